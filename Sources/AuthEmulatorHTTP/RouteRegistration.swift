import AuthEmulator
import Foundation
import Hummingbird

/// One line of `routeTable`: a method, the path as a client sends it, who may call it and what
/// answers.
struct Route: Sendable {
    let method: HTTPRequest.Method
    let path: String
    let access: Access
    let handler: RouteHandler
    let cost: Cost

    /// What building a route's answer may take.
    enum Cost: Sendable {
        /// Bounded by the limits on one account or setting.
        case light
        /// A list that can run to megabytes: answered through `BulkAnswerGate`.
        case bulk
    }

    init(
        _ method: HTTPRequest.Method, _ path: String, _ access: Access, _ handler: RouteHandler, _ cost: Cost = .light
    ) {
        self.method = method
        self.path = path
        self.access = access
        self.handler = handler
        self.cost = cost
    }

    /// Whether `/emulator/openapi.json` lists it: every route but the inspector's pages.
    var isDocumented: Bool { access != .ui }
}

/// What answers a route.
enum RouteHandler: Sendable {
    /// A JSON API: credentials checked for the route's access, the body decoded, a JSON answer.
    case api(@Sendable (ApiRequest) async throws -> JSONValue)
    /// A JSON API whose answer comes written as text (`accounts:lookup`).
    case text(@Sendable (ApiRequest) async throws -> JSONText)
    /// A JSON API whose answer comes serialized (the code log's listings, `JSONListing`).
    case listing(@Sendable (ApiRequest) async throws -> JSONListing)
    /// A page, an asset or a redirect, answered as it is (no credential).
    case page(@Sendable (PageRequest) async throws -> Response)
    /// An inspector page (GET): the inspector's credential, else its login page.
    case inspectorPage(@Sendable (PageRequest) async throws -> Response)
    /// An inspector action (POST): the credential, the CSRF token, then the form's fields.
    case inspectorAction(@Sendable (PageRequest, [String: String]) async throws -> Response)
}

extension RouteHandler {
    /// The common API: the body decoded as the domain operation's request, then the operation
    /// called with the caller (`.call(Emulator.signUp)`).
    static func call<Body: Decodable & SendableMetatype>(
        _ operation: @escaping @Sendable (Emulator) -> (Body, Caller) async throws -> JSONValue
    ) -> RouteHandler {
        .api { request in try await operation(request.emulator)(request.decode(Body.self), request.caller) }
    }

    /// As `call`, for an operation whose answer comes written as text.
    static func call<Body: Decodable & SendableMetatype>(
        _ operation: @escaping @Sendable (Emulator) -> (Body, Caller) async throws -> JSONText
    ) -> RouteHandler {
        .text { request in try await operation(request.emulator)(request.decode(Body.self), request.caller) }
    }

    /// An inspector page of a scope (`.show(InspectorPages.messages)`).
    static func show(
        _ page: @escaping @Sendable (InspectorPages) -> (Request, Scope) async throws -> Response
    ) -> RouteHandler {
        .inspectorPage { request in try await page(request.inspector)(request.request, request.inspectorScope) }
    }

    /// An inspector action of a scope, with its form (`.act(InspectorPages.createUser)`).
    static func act(
        _ action: @escaping @Sendable (InspectorPages) -> (Request, Scope, [String: String]) async throws -> Response
    ) -> RouteHandler {
        .inspectorAction { request, form in
            try await action(request.inspector)(request.request, request.inspectorScope, form)
        }
    }
}

/// What a `.page`, `.inspectorPage` or `.inspectorAction` handler gets: the request, its path
/// parameters and the daemon's services.
struct PageRequest: Sendable {
    let request: Request
    let parameters: Parameters
    let services: RouteServices

    var emulator: Emulator { services.emulator }
    var inspector: InspectorPages { services.inspector }
    var query: Parameters { request.uri.queryParameters }

    /// A path parameter, percent-decoded (a uid with a space, `/`, `?`, `%` or `ä` arrives escaped).
    func parameter(_ name: String) -> String {
        let raw = parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    /// The scope of an inspector page: `projects/{project}` or `projects/{project}/tenants/{tenant}`,
    /// by the API's rule (`Scope.resolve`, the single-project mode): an id the API refuses is
    /// refused here too, before anything is read or made.
    var inspectorScope: Scope {
        get throws(AuthError) {
            let projectId = parameter("project")
            if projectId != services.settings.defaultProjectId { try emulator.admitProject(projectId) }
            let tenant = parameters.get("tenant").map { _ in parameter("tenant") }
            return try Scope.resolve(projectId: projectId, tenant: TenantSources(path: tenant))
        }
    }
}

/// The daemon's parts that handlers reach.
struct RouteServices: Sendable {
    let emulator: Emulator
    let settings: HTTPSettings
    let inspector: InspectorPages
    let bulkAnswers: BulkAnswerGate
}

/// Registers every route of `routeTable` with the router and its exact-path index.
struct RouteRegistration<Context: RequestContext> {
    let router: Router<Context>
    let exact: ExactPaths<Context>
    let services: RouteServices

    /// Every route, and `HEAD` beside every `GET`: the same handler, whose body SwiftNIO's
    /// encoder leaves out of the answer to a `HEAD` (the headers, `Content-Length` included, stay).
    func register(_ routes: [Route]) {
        for route in routes {
            let respond = responder(route)
            for method in route.method == .get ? [.get, .head] : [route.method] {
                router.on(RouterPath(route.path), method: method, use: respond)
                exact.add(route.path, method: method, middlewares: router.middlewares, handler: respond)
            }
        }
    }

    /// A route's handler, through the bulk-answer gate when its answers can run to megabytes, and
    /// for any route when its request's body is big (`isBulkBody`).
    private func responder(_ route: Route) -> @Sendable (Request, Context) async throws -> Response {
        let respond = answering(route)
        let gate = services.bulkAnswers
        let limit = services.settings.maxBodyBytes
        let bulkRoute = route.cost == .bulk
        return { request, context in
            guard bulkRoute || Self.isBulkBody(method: request.method, headers: request.headers) else {
                return try await respond(request, context)
            }
            // The body is in before the turn is taken: a client that sends part of one and stops
            // would otherwise hold a permit, and every listing, until the body timeout.
            var request = request
            if request.method != .get, request.method != .head { _ = try await request.collectBody(upTo: limit) }
            return try await gate.admit { [request] in try await respond(request, context) }
        }
    }

    /// Whether a request's body makes it bulk work on any route: over 64 KiB, or of a length not
    /// given (chunked). Reading, parsing and acting on every entry of such a body (a lookup of
    /// 150,000 ids, an import of a thousand accounts) holds a core for a fraction of a second;
    /// eight clients sending them took both cores and held unrelated sign-ups for 3 s.
    static func isBulkBody(method: HTTPRequest.Method, headers: HTTPFields) -> Bool {
        guard method != .get, method != .head else { return false }
        if let length = headers[.contentLength] {
            return Int(length).map { $0 > ConnectionLimits.smallBodyBytes } ?? true
        }
        return headers[.transferEncoding] != nil
    }

    private func answering(_ route: Route) -> @Sendable (Request, Context) async throws -> Response {
        let services = self.services
        let access = route.access
        switch route.handler {
        case .api(let handler):
            return { request, context in
                let api = try await ApiRequest.make(request, context, access: access, services: services)
                return JSONResponse.make(try await handler(api))
            }
        case .text(let handler):
            return { request, context in
                let api = try await ApiRequest.make(request, context, access: access, services: services)
                return JSONResponse.make(bytes: try await handler(api).bytes)
            }
        case .listing(let handler):
            return { request, context in
                let api = try await ApiRequest.make(request, context, access: access, services: services)
                return JSONResponse.make(listing: try await handler(api))
            }
        case .page(let handler):
            return { request, context in
                try await handler(PageRequest(request: request, parameters: context.parameters, services: services))
            }
        case .inspectorPage(let handler):
            return { request, context in
                let page = PageRequest(request: request, parameters: context.parameters, services: services)
                return try await services.inspector.guarded(request) { try await handler(page) }
            }
        case .inspectorAction(let handler):
            return { request, context in
                let page = PageRequest(request: request, parameters: context.parameters, services: services)
                return try await services.inspector.changing(request) { form in try await handler(page, form) }
            }
        }
    }
}
