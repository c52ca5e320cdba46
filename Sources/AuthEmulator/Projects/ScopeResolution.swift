import Foundation

/// Where a request names its tenant.
public struct TenantSources: Sendable {
    public var path: String?
    public var body: String?
    public var query: String?
    /// The request's `idToken`, whose `firebase.tenant` claim names the tenant when nothing else does.
    public var idToken: String?

    @inlinable
    public init(path: String? = nil, body: String? = nil, query: String? = nil, idToken: String? = nil) {
        self.path = path
        self.body = body
        self.query = query
        self.idToken = idToken
    }
}

extension Scope {
    /// The scope a request acts on: the tenant of the path; else the body's `tenantId` (which must
    /// agree with the path's, `TENANT_ID_MISMATCH`); else `?tenantId=`; else the ID token's
    /// `firebase.tenant` claim; else the project itself. Every adapter resolves scopes here.
    @inlinable
    public static func resolve(projectId: String, tenant sources: TenantSources) throws(AuthError) -> Scope {
        var tenantId = sources.path
        if let body = sources.body, !body.isEmpty {
            if let tenantId, tenantId != body { throw AuthError.tenantIdMismatch }
            tenantId = body
        }
        if tenantId == nil, let query = sources.query, !query.isEmpty { tenantId = query }
        if tenantId == nil, let idToken = sources.idToken, let claimed = try? TokenService.peekTenant(idToken) {
            tenantId = claimed
        }
        guard Self.isIdentifier(projectId, extra: ":") else {
            throw AuthError(
                "INVALID_PROJECT_ID",
                "A project id is 1 to 100 letters, digits, '-', '_', '.' or ':' (got \(Self.shown(projectId))).")
        }
        if let tenantId, !Self.isIdentifier(tenantId, extra: nil) {
            throw AuthError(
                "INVALID_TENANT_ID",
                "A tenant id is 1 to 100 letters, digits, '-', '_' or '.' (got \(Self.shown(tenantId))).")
        }
        return Scope(projectId: projectId, tenantId: tenantId)
    }

    /// Letters and digits (ASCII), `-`, `_`, `.` and `extra`, 1 to 100 of them: what production's
    /// ids are made of (project ids `my-app-1a2b3`, domain-scoped `example.com:app`; tenant ids
    /// `team-a-x8k2p`), and nothing a path, a log line or a SQL LIKE could misread (no `/`, `%`,
    /// NUL, control characters or spaces). Case is not checked: test suites use `TestProject`.
    @usableFromInline
    static func isIdentifier(_ id: String, extra: Unicode.Scalar?) -> Bool {
        var id = id
        return id.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 100 else { return false }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    continue
                default:
                    if let extra, byte == UInt8(extra.value) { continue }
                    return false
                }
            }
            return true
        }
    }

    /// An id as an error message shows it: quoted, control characters escaped, at most 100 characters.
    @usableFromInline
    static func shown(_ id: String) -> String {
        let escaped = id.unicodeScalars.prefix(100).map { scalar in
            scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return "\"\(escaped)\(id.unicodeScalars.count > 100 ? "…" : "")\""
    }
}

extension TokenService {
    /// The `firebase.tenant` claim of an ID token, without any other check.
    /// Remembered per token: a client presents the same ID token for its whole hour, and reading
    /// the claim (base64 of the payload, then a search) cost a lookup ~16,000 instructions.
    public static func peekTenant(_ token: String) throws -> String? {
        if let known = peeked[token] { return known.tenant }
        let tenant = try readTenant(token)
        peeked[token] = PeekedTenant(tenant: tenant)
        return tenant
    }

    private static func readTenant(_ token: String) throws -> String? {
        // On the raw bytes: `String.UTF8View` indexing is slow on this path.
        var token = token
        let payload: String? = token.withUTF8 { bytes in
            let dot = UInt8(ascii: ".")
            guard let firstDot = bytes.firstIndex(of: dot) else { return nil }
            let rest = bytes[(firstDot + 1)...]
            return String(decoding: rest[..<(rest.firstIndex(of: dot) ?? rest.endIndex)], as: UTF8.self)
        }
        guard let payload, let data = Data(base64Encoded: Base64.padded(payload)) else { return nil }
        // Most tokens carry no tenant: only parse when the claim can be there.
        guard [UInt8](data).contains(subsequence: tenantClaim) else { return nil }
        return try JSONValue.parse(data).value(at: "firebase.tenant")?.stringValue
    }

    private static let tenantClaim = Array(#""tenant""#.utf8)
    private static let peeked = BoundedCache<String, PeekedTenant>(capacity: 1024)
}

/// A token's tenant claim, or none.
private struct PeekedTenant: Sendable {
    let tenant: String?
}
