import Foundation

/// `GET v2/defaultSupportedIdps` and `identityPlatform:initializeAuth`: the project-independent
/// list of providers production configures by id, and the call that turns Identity Platform on.
extension Emulator {
    /// The providers production lists (`idpId`, the ids `defaultSupportedIdpConfigs` take), in id
    /// order. The descriptions are authemu's.
    public static let defaultSupportedIdps: [(idpId: String, description: String)] = [
        ("apple.com", "Apple"), ("facebook.com", "Facebook"), ("gc.apple.com", "Game Center"),
        ("github.com", "GitHub"), ("google.com", "Google"), ("linkedin.com", "LinkedIn"),
        ("microsoft.com", "Microsoft"), ("playgames.google.com", "Google Play Games"),
        ("twitter.com", "Twitter"), ("yahoo.com", "Yahoo"),
    ]

    /// A page of `defaultSupportedIdps` after `pageToken` (the last id of the page before); a
    /// `pageSize` of 0 or less, or none, lists them all.
    public func listDefaultSupportedIdps(pageSize: Int?, pageToken: String?) -> JSONValue {
        let rest = Emulator.defaultSupportedIdps.filter { idp in pageToken.map { idp.idpId > $0 } ?? true }
        let size = pageSize.flatMap { $0 > 0 ? $0 : nil } ?? rest.count
        let page = rest.prefix(size)
        var response: [String: JSONValue] = [
            "defaultSupportedIdps": .array(
                page.map { .object(["idpId": .string($0.idpId), "description": .string($0.description)]) })
        ]
        if page.count < rest.count, let last = page.last { response["nextPageToken"] = .string(last.idpId) }
        return .object(response)
    }

    /// `identityPlatform:initializeAuth` for a project or a tenant: Identity Platform is always on
    /// here, so it answers production's empty response once the scope is known to exist (a
    /// deleted tenant is `TENANT_NOT_FOUND`).
    public func initializeAuth(_ scope: Scope) async throws -> JSONValue {
        _ = try await store.read { tx in try await self.settings(tx, scope, create: false) }
        return .object([:])
    }
}
