import Hummingbird

/// The daemon's router: API paths without parameters (every client route the SDKs call per
/// sign-in) are found by one dictionary lookup; any other request (paths with `{project}` or
/// `{tenant}`, unknown paths, other methods, preflights) goes through Hummingbird's router.
/// Walking the router's trie through fifty sibling paths cost ~29,000 instructions per request.
public struct ExactPathRouter<Context: RequestContext>: HTTPResponderBuilder {
    public let router: Router<Context>
    let exact: ExactPaths<Context>

    public func buildResponder() -> Responder {
        Responder(exact: exact.responders, router: router.buildResponder())
    }

    public struct Responder: HTTPResponder {
        let exact: [String: [HTTPRequest.Method: any HTTPResponder<Context>]]
        let router: RouterResponder<Context>

        public func respond(to request: Request, context: Context) async throws -> Response {
            guard let responder = exact[request.uri.path]?[request.method] else {
                return try await router.respond(to: request, context: context)
            }
            do {
                return try await responder.respond(to: request, context: context)
            } catch let error as any HTTPResponseError {
                // As `RouterResponder` does for the routes it finds.
                return try error.response(from: request, context: context)
            }
        }
    }
}

/// The parameter-free routes, with the router's middleware around each, collected while the
/// routes are registered.
final class ExactPaths<Context: RequestContext> {
    private(set) var responders: [String: [HTTPRequest.Method: any HTTPResponder<Context>]] = [:]

    /// Records a route if its path has no parameter; the router keeps it too.
    func add(
        _ path: String, method: HTTPRequest.Method, middlewares: MiddlewareGroup<Context>,
        handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) {
        guard !path.contains("{"), !path.contains("*"), !path.contains("/:") else { return }
        responders[path, default: [:]][method] = middlewares.constructResponder(
            finalResponder: CallbackResponder(callback: handler))
    }
}
