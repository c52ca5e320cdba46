import Foundation

/// The three kinds of identity-provider configuration the Admin SDKs manage.
public enum IdpConfigKind: String, Sendable, CaseIterable {
    case oauth = "oauthIdpConfigs"
    case saml = "inboundSamlConfigs"
    case defaultSupported = "defaultSupportedIdpConfigs"

    /// The query parameter that names the id on create.
    public var idParameter: String {
        switch self {
        case .oauth: "oauthIdpConfigId"
        case .saml: "inboundSamlConfigId"
        case .defaultSupported: "idpId"
        }
    }

    /// An OIDC provider's `responseType` as production answers it: only the types that are on
    /// (`{"code": true}`, not `{"code": true, "idToken": false}`).
    func productionForm(_ config: JSONValue) -> JSONValue {
        guard self == .oauth, let responseType = config["responseType"], responseType.objectValue != nil else {
            return config
        }
        return config.setting(["responseType"], to: ResourceDefaults.withoutFalse(responseType))
    }

    func validate(id: String) throws(AuthError) {
        switch self {
        case .oauth where !id.hasPrefix("oidc."), .saml where !id.hasPrefix("saml."):
            throw AuthError("INVALID_PROVIDER_ID", "\(id)")
        default:
            if id.isEmpty { throw AuthError("INVALID_PROVIDER_ID") }
        }
    }
}

extension Emulator {
    static func idpResourceName(_ scope: Scope, _ kind: IdpConfigKind, _ id: String) -> String {
        var name = "projects/\(scope.projectId)"
        if let tenant = scope.tenantId { name += "/tenants/\(tenant)" }
        return "\(name)/\(kind.rawValue)/\(id)"
    }

    public func createIdpConfig(_ kind: IdpConfigKind, id: String?, body: JSONValue, scope: Scope) async throws
        -> JSONValue
    {
        guard let id, !id.isEmpty else { throw AuthError("MISSING_PROVIDER_ID") }
        try kind.validate(id: id)
        guard body.objectValue != nil else { throw AuthError.invalidJSON("/ must be object") }
        let config = kind.productionForm(body.setting(["name"], to: .string(Self.idpResourceName(scope, kind, id))))
        return try await store.write { tx in
            if try await tx.idpConfig(scope, kind: kind.rawValue, id: id) != nil {
                throw AuthError("DUPLICATE_IDP_CONFIG")
            }
            try await tx.saveIdpConfig(scope, kind: kind.rawValue, id: id, config)
            return config
        }
    }

    public func getIdpConfig(_ kind: IdpConfigKind, id: String, scope: Scope) async throws -> JSONValue {
        guard let config = try await store.read({ tx in try await tx.idpConfig(scope, kind: kind.rawValue, id: id) })
        else {
            throw AuthError("CONFIGURATION_NOT_FOUND")
        }
        return config
    }

    public func updateIdpConfig(
        _ kind: IdpConfigKind, id: String, patch: JSONValue, updateMask: [String], scope: Scope
    ) async throws -> JSONValue {
        guard patch.objectValue != nil else { throw AuthError.invalidJSON("/ must be object") }
        return try await store.write { tx in
            guard let current = try await tx.idpConfig(scope, kind: kind.rawValue, id: id) else {
                throw AuthError("CONFIGURATION_NOT_FOUND")
            }
            var updated =
                updateMask.isEmpty ? current.merged(with: patch) : FieldMask.apply(updateMask, from: patch, to: current)
            updated = kind.productionForm(updated.setting(["name"], to: .string(Self.idpResourceName(scope, kind, id))))
            try await tx.saveIdpConfig(scope, kind: kind.rawValue, id: id, updated)
            return updated
        }
    }

    public func deleteIdpConfig(_ kind: IdpConfigKind, id: String, scope: Scope) async throws -> JSONValue {
        let deleted = try await store.write { tx in try await tx.deleteIdpConfig(scope, kind: kind.rawValue, id: id) }
        guard deleted else { throw AuthError("CONFIGURATION_NOT_FOUND") }
        return .object([:])
    }

    public func listIdpConfigs(_ kind: IdpConfigKind, pageSize: Int?, pageToken: String?, scope: Scope) async throws
        -> JSONValue
    {
        let all = try await store.read { tx in try await tx.listIdpConfigs(scope, kind: kind.rawValue) }
        let start = pageToken.flatMap(Int.init) ?? 0
        // A negative start would trap in dropFirst.
        guard start >= 0 else { throw AuthError("INVALID_PAGE_SELECTION", "Invalid page token.") }
        let size = min(max(pageSize ?? 100, 1), 100)
        let page = Array(all.dropFirst(start).prefix(size))
        var response: [String: JSONValue] = [kind.rawValue: .array(page)]
        if start + page.count < all.count { response["nextPageToken"] = .string(String(start + page.count)) }
        return .object(response)
    }
}
