import AuthEmulator
import Foundation
import Hummingbird

/// Registers API handlers: each route decodes an `ApiRequest`, calls the domain and answers JSON.
struct RouteTable<Context: RequestContext> {
    let router: Router<Context>
    let exact: ExactPaths<Context>
    let emulator: Emulator
    let settings: HTTPSettings
    /// What `/emulator/openapi.json` lists.
    let catalog: RouteCatalog

    func api(
        _ method: HTTPRequest.Method, _ paths: [String], access: Access,
        _ handler: @escaping @Sendable (ApiRequest) async throws -> JSONValue
    ) {
        let settings = self.settings
        let respond: @Sendable (Request, Context) async throws -> Response = { request, context in
            let api = try await ApiRequest.make(request, context, access: access, settings: settings)
            return JSONResponse.make(try await handler(api))
        }
        for path in paths {
            catalog.add(method, path, access: access)
            router.on(RouterPath(path), method: method, use: respond)
            exact.add(path, method: method, middlewares: router.middlewares, handler: respond)
        }
    }

    /// A known operation that is not built yet: credentials are checked first, then 501.
    func notImplemented(_ method: HTTPRequest.Method, _ paths: [String], access: Access, operation: String) {
        api(method, paths, access: access) { _ in throw AuthError.notImplemented(operation) }
    }
}
