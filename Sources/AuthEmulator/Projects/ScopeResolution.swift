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
        return Scope(projectId: projectId, tenantId: tenantId)
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
