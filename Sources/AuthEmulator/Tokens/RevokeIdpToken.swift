import Foundation

extension Emulator {
    /// `v2/accounts:revokeToken`: revokes the signed-in user's token at its IdP (production:
    /// Sign in with Apple; the JS SDK's `revokeAccessToken`, the iOS SDK's `revokeToken`). There is
    /// no IdP behind the fake one, so after checking the caller's ID token it answers `{}`, as
    /// production does, and logs what was revoked (firebase-tools answers 501).
    public func revokeIdpToken(_ body: JSONValue, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        guard let idToken = body["idToken"]?.stringValue, !idToken.isEmpty else { throw AuthError.missingIdToken }
        let claims = try tokens.decodeIdToken(idToken)
        let user = try await store.read { tx in
            try await self.enabledSettings(tx, scope, create: false)
            return try await Emulator.userForIdToken(tx, claims, scope: scope)
        }
        let provider = body["providerId"]?.stringValue ?? "apple.com"
        let type = body["tokenType"]?.stringValue ?? "ACCESS_TOKEN"
        logger.info(
            "revoked the \(provider) \(type) of \(user.localId) (no IdP is called)",
            metadata: ["event": "revokeToken", "scope": "\(scope)"])
        return .object([:])
    }
}
