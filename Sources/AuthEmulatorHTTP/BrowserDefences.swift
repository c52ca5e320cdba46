import AuthEmulator
import Foundation
import HTTPTypes
import Hummingbird

/// Who a browser page may be, for the daemon: its own pages and local tools (loopback origins,
/// `public_url`'s) may use every route; a page of any other origin may use the routes the browser
/// SDKs call, without credentials, and nothing else. docs/security.md has the threat model.
struct OriginPolicy: Sendable {
    /// `scheme://host[:port]` of `public_url`, lowercased (nil: none set).
    let publicOrigin: String?
    /// Path patterns of the routes the browser SDKs call (`Access.client` and `.apiKey`).
    let browserRoutes: [[PathSegmentPattern]]

    init(publicURL: String?, routes: [Route]) {
        publicOrigin = publicURL.flatMap(Self.origin(of:))
        browserRoutes = routes.filter { $0.access == .client || $0.access == .apiKey }.map {
            PathSegmentPattern.parse($0.path)
        }
    }

    /// A loopback origin (`http(s)://localhost|*.localhost|127.x.x.x|[::1]`, any port) or `public_url`'s:
    /// exactly `scheme://host[:port]`, the host parsed by `HostName`.
    func isTrusted(_ origin: String) -> Bool {
        let lowered = origin.lowercased()
        if lowered == publicOrigin { return true }
        let authority: Substring
        if lowered.hasPrefix("http://") {
            authority = lowered.dropFirst(7)
        } else if lowered.hasPrefix("https://") {
            authority = lowered.dropFirst(8)
        } else {
            return false
        }
        return HostName(authority: authority).map { $0.isLoopback } ?? false
    }

    /// Whether a browser SDK calls this path (any origin may, without credentials).
    func isBrowserRoute(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        return browserRoutes.contains { pattern in
            pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0.matches($1) }
        }
    }

    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url.lowercased()), let scheme = components.scheme,
            let host = components.host
        else { return nil }
        return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)\(components.port.map { ":\($0)" } ?? "")"
    }
}

/// One segment of a route's path: literal text, or a parameter with literal text around it
/// (`{project}:queryAccounts`).
struct PathSegmentPattern: Sendable {
    let prefix: String
    let suffix: String
    let isParameter: Bool

    static func parse(_ path: String) -> [PathSegmentPattern] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
            guard let open = segment.firstIndex(of: "{"), let close = segment.firstIndex(of: "}") else {
                return PathSegmentPattern(prefix: String(segment), suffix: "", isParameter: false)
            }
            return PathSegmentPattern(
                prefix: String(segment[..<open]), suffix: String(segment[segment.index(after: close)...]),
                isParameter: true)
        }
    }

    func matches(_ segment: String) -> Bool {
        guard isParameter else { return segment == prefix }
        return segment.count > prefix.count + suffix.count && segment.hasPrefix(prefix) && segment.hasSuffix(suffix)
    }
}

/// The `Host` check (`DaemonNames`) and CORS by route, in one middleware (each middleware is a
/// call every request pays). CORS: a trusted origin (`OriginPolicy.isTrusted`) is reflected with credentials, as
/// firebase-tools does for every origin; another origin is reflected on the browser SDKs' routes
/// only, without credentials and without the `Authorization` header, and refused (403, before any
/// handler runs) on every other route, so no page elsewhere can read or change the daemon's
/// accounts, codes, settings or clock. `Access-Control-Allow-Private-Network` is given on the
/// browser SDKs' routes, the only ones a public page may need to reach this daemon on. It runs
/// outside `ErrorEnvelopeMiddleware`, so error answers carry the headers too: a browser reads
/// `EMAIL_EXISTS` instead of a CORS failure.
struct BrowserDefenceMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: OriginPolicy
    /// On a loopback listener, the names a `Host` may give (nil: not checked; see `DaemonNames`).
    let names: DaemonNames?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if let names, let authority = request.head.authority, !names.accepts(authority) {
            return names.refusal(authority)
        }
        let origin = request.headers[.origin]
        if origin == nil, request.method != .options { return try await Self.page(next(request, context)) }
        // The inspector's own forms: its pages send no referrer, so Chromium posts them with
        // `Origin: null`. Each carries the inspector's CSRF token, which no other page can read.
        if origin == "null", request.uri.path.hasPrefix(InspectorPages.prefix) {
            return try await Self.page(next(request, context))
        }
        let trusted = origin.map(policy.isTrusted) ?? true
        let browserRoute = policy.isBrowserRoute(request.uri.path)
        if let origin, !trusted, !browserRoute {
            return ErrorEnvelope.response(
                for: AuthError(
                    "PERMISSION_DENIED",
                    "A page of \(origin.prefix(200)) may not call this endpoint; only this machine's pages "
                        + "(localhost) and public_url's may.", kind: .permissionDenied))
        }
        var headers: HTTPFields = [.vary: "Origin"]
        if let origin {
            headers[.accessControlAllowOrigin] = origin
            if trusted { headers[.accessControlAllowCredentials] = "true" }
        }
        // Every OPTIONS request is a preflight, as for firebase-tools (express `cors`): browsers
        // and jsdom do not always send Access-Control-Request-Method, and no API takes OPTIONS.
        if request.method == .options {
            headers[.accessControlAllowMethods] = "GET,HEAD,PUT,PATCH,POST,DELETE"
            if let requested = request.headers[.accessControlRequestHeaders] {
                headers[.accessControlAllowHeaders] = trusted ? requested : Self.withoutAuthorization(requested)
            }
            if browserRoute, request.headers[HTTPField.Name("Access-Control-Request-Private-Network")!] != nil {
                headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] = "true"
            }
            return Response(status: .noContent, headers: headers)
        }
        var response = try await Self.page(next(request, context))
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    /// An HTML answer without a policy of its own gets the strict fallback (`HTMLPage`).
    static func page(_ response: Response) -> Response {
        var response = response
        HTMLPage.guarded(&response)
        return response
    }

    /// The requested headers less `Authorization`: a page elsewhere may not send the admin credential.
    static func withoutAuthorization(_ requested: String) -> String {
        requested.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.lowercased() != "authorization" }.joined(separator: ", ")
    }
}

/// The DNS-rebinding defence of a loopback listener (as webpack-dev-server, Vite and Jupyter
/// have): a request must name this daemon in its `Host`: a loopback name (`HostName.isLoopback`), the listener's address, `public_url`'s host, or the address an Android
/// emulator (`10.0.2.2`) or Genymotion (`10.0.3.2`) reaches the host's loopback by. A page of
/// `evil.example` whose name was made to resolve to 127.0.0.1 sends `Host: evil.example` and is
/// refused (403), and so are lookalikes (`127.1.evil.example`, `localhost.evil.example`, a trailing
/// dot, userinfo). An HTTP/1.1 request without exactly one `Host` never gets here: the connection's
/// guard answers it 400 (RFC 9112 §3.2); an HTTP/1.0 one without `Host` passes.
struct DaemonNames: Sendable {
    let accepted: Set<String>

    init(listenerHost: String, publicURL: String?) {
        var names: Set<String> = ["10.0.2.2", "10.0.3.2", Self.bare(listenerHost.lowercased())]
        if let host = publicURL.flatMap({ URLComponents(string: $0)?.host?.lowercased() }) {
            names.insert(Self.bare(host))
        }
        accepted = names
    }

    /// Whether a `Host` names this daemon: exactly `host[:port]` (`HostName`), the host a loopback
    /// name or one of `accepted`.
    func accepts(_ authority: String) -> Bool {
        let bytes = authority.utf8
        // The names nearly every request gives, checked on the bytes without a copy.
        for name in Self.common where bytes.starts(with: name) {
            let port = bytes.dropFirst(name.count)
            if port.isEmpty { return true }
            if port.first == UInt8(ascii: ":"), (2...6).contains(port.count),
                port.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            {
                return true
            }
        }
        guard let name = HostName(authority: Substring(authority)) else { return false }
        return name.isLoopback || accepted.contains(name.host)
    }

    private static let common: [[UInt8]] = ["127.0.0.1", "localhost", "[::1]"].map { Array($0.utf8) }

    /// A host without the brackets of an IPv6 literal.
    static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    func refusal(_ authority: String) -> Response {
        ErrorEnvelope.response(
            for: AuthError(
                "PERMISSION_DENIED",
                "Host \(authority.prefix(200)) does not name this daemon: a loopback listener answers "
                    + "localhost, 127.0.0.1, [::1] and public_url's host.", kind: .permissionDenied))
    }
}
