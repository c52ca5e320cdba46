import AuthEmulator
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A decoded API request: normalised JSON body, query, and who is calling for which scope.
struct ApiRequest: Sendable {
    var body: JSONValue
    var query: [String: [String]]
    var caller: Caller
    /// `{config}` of IdP-config item paths (project and tenant come as `caller.scope`).
    var configId: String
    let emulator: Emulator
    /// The connection, when served over one (not in `app.test(.router)`).
    var channel: (any Channel)? = nil

    func queryValue(_ name: String) -> String? { query[name]?.first }

    func decode<T: Decodable>(_ type: T.Type) throws(AuthError) -> T { try LenientDecoder.decode(type, from: body) }

    /// Reads and normalises a request: JSON or form body, snake_case keys to camelCase; checks
    /// credentials; resolves project (path, `targetProjectId`, default) and tenant (path, body,
    /// the `idToken`'s tenant claim).
    static func make(
        _ request: Request, _ context: some RequestContext, access: Access, services: RouteServices
    ) async throws -> ApiRequest {
        let settings = services.settings
        var query: [String: [String]] = [:]
        for (key, value) in request.uri.queryParameters {
            query[String(key), default: []].append(String(value))
        }
        let body = try await readBody(request, limit: settings.maxBodyBytes, method: request.method)
        let isAdmin = try adminCredential(request.headers[.authorization], ownerToken: settings.adminToken)
        let hasKey =
            (query["key"]?.first.map { !$0.isEmpty } ?? false)
            || (request.headers[HTTPField.Name("x-goog-api-key")!].map { !$0.isEmpty } ?? false)
        let gate = CredentialGate(settings: settings)
        try gate.admit(access, isAdmin: isAdmin, hasKey: hasKey)
        let projectId = try gate.project(
            access, isAdmin: isAdmin, path: context.parameters.get("project"), body: body, query: query)
        if projectId != settings.defaultProjectId { try services.emulator.admitProject(projectId) }
        let tenant = try CredentialGate.tenant(body: body, query: query)
        let scope = try Scope.resolve(
            projectId: projectId,
            tenant: TenantSources(
                path: context.parameters.get("tenant"), body: tenant.body, query: tenant.query,
                idToken: body["idToken"]?.stringValue))
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!]?.split(separator: ",").first
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let peer = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
        return ApiRequest(
            body: body, query: query,
            caller: Caller(
                scope: scope, isAdmin: isAdmin, clientIP: forwarded ?? peer,
                requestOrigin: requestOrigin(request.head.authority)),
            configId: context.parameters.get("config") ?? "", emulator: services.emulator,
            // Only the emulator API's long-polls need their connection; the cast would cost every request.
            channel: access == .emulator ? (context as? AuthRequestContext)?.channel : nil)
    }

    /// Runs a long-poll, cancelled when the client leaves (its connection closes, or its input
    /// ends while it waits), so a departed client's wait holds no socket until it expires.
    /// A request that does not wait runs as it is. A long-poll waits without its bulk-answer
    /// permit (`BulkAnswerGate.setAside`).
    func untilClientLeaves<T: Sendable>(
        waiting: Bool, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard waiting else { return try await body() }
        guard let channel, let departure = await ConnectionGuard.departure(of: channel) else {
            return try await BulkAnswerGate.setAside(body)
        }
        let task = Task { try await body() }
        departure.whenComplete { _ in task.cancel() }
        return try await BulkAnswerGate.setAside {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// `http://host[:port]` from the request's `Host`, if it is nothing more than that.
    static func requestOrigin(_ authority: String?) -> String? {
        guard let authority, !authority.isEmpty, authority.count <= 255,
            authority.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x3A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x2D || byte == 0x5B || byte == 0x5D
            })
        else { return nil }
        return "http://\(authority)"
    }

    /// The admin is `Bearer <admin_token>`, that exact token, compared in constant time. With the
    /// default token (`owner`, which every Admin SDK sends to an emulator) the token is compared in
    /// any case (firebase-tools' suite sends `bEArEr OWNER`), and Google access tokens
    /// (`Bearer ya29.…`, what `gcloud auth print-access-token` gives) are the admin too, as for
    /// firebase-tools; with an `admin_token` of one's own neither holds. Another Bearer value is a
    /// 401; any other scheme is ignored.
    static func adminCredential(_ header: String?, ownerToken: String) throws(AuthError) -> Bool {
        guard let header else { return false }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        if ConstantTime.equal(token, ownerToken) { return true }
        if ownerToken == HTTPSettings.defaultAdminToken {
            if token.lowercased() == ownerToken || token.hasPrefix("ya29.") { return true }
        }
        throw AuthError.invalidCredentials
    }

    static func readBody(_ request: Request, limit: Int, method: HTTPRequest.Method) async throws -> JSONValue {
        let buffer = try await request.body.collect(upTo: limit)
        let data = Data(buffer: buffer)
        if data.isEmpty || method == .get || method == .delete && data.allSatisfy({ $0 == 0x20 || $0 == 0x0a }) {
            return .object([:])
        }
        if isFormEncoded(request.headers[.contentType]) {
            return formBody(String(decoding: data, as: UTF8.self)).camelCasedKeys()
        }
        if method == .delete, (try? JSONValue.parse(data)) == nil { return .object([:]) }
        if data.count > 2 * maxJSONValues, JSONValue.valueCount(data, stoppingAfter: maxJSONValues) > maxJSONValues {
            throw AuthError.malformedJSON("The body holds more than \(maxJSONValues) values.")
        }
        let value = try JSONValue.parse(data)
        guard value.objectValue != nil else { throw AuthError.invalidJSON("/ must be object") }
        return value.camelCasedKeys()
    }

    /// The most values (numbers, strings, members, elements…) a JSON body may hold: a thousand
    /// accounts of `accounts:batchCreate` hold about 50,000. A parsed value costs ~100 bytes of
    /// memory, so a 14 MB body of one 7-million-element array took 525 MB; now at most ~20 MB.
    static let maxJSONValues = 200_000

    /// Whether a Content-Type names a form body (any case, any parameters). On the bytes:
    /// Foundation's `lowercased().contains(_:)` cost 8,000 instructions a request.
    static func isFormEncoded(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let lowered = contentType.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return lowered.contains(subsequence: formContentType)
    }

    private static let formContentType = Array("application/x-www-form-urlencoded".utf8)

    static func formBody(_ text: String) -> JSONValue {
        .object(FormEncoding.fields(text).mapValues { .string($0) })
    }
}

/// HTTP-level settings.
public struct HTTPSettings: Sendable {
    /// The well-known admin credential the Admin SDKs send to an emulator.
    public static let defaultAdminToken = "owner"
    public var defaultProjectId: String
    public var adminToken: String
    public var maxBodyBytes: Int
    /// Whether only this machine can reach the listener (then `.emulatorAdmin` needs no credential).
    public var loopbackOnly: Bool
    /// Whether `admin_token` was set to something other than the well-known default.
    public var hasOwnAdminToken: Bool { adminToken != Self.defaultAdminToken }

    public init(
        defaultProjectId: String, adminToken: String = "owner", maxBodyBytes: Int = 16 * 1024 * 1024,
        loopbackOnly: Bool = true
    ) {
        self.defaultProjectId = defaultProjectId
        self.adminToken = adminToken
        self.maxBodyBytes = maxBodyBytes
        self.loopbackOnly = loopbackOnly
    }
}

/// 127.0.0.0/8, ::1, IPv4-mapped loopback and `localhost`.
public func isLoopbackAddress(_ address: String) -> Bool {
    let bare = address.hasPrefix("::ffff:") ? String(address.dropFirst(7)) : address
    return bare == "::1" || bare.hasPrefix("127.") || bare.lowercased() == "localhost"
}
