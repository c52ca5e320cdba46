import Foundation

extension Emulator {
    /// The accounts of one IdP the sign-in widget (`/emulator/auth/handler`) offers to reuse, each
    /// as the fake `id_token` claims (JSON text) that sign in as it again.
    public func idpWidgetAccounts(providerId: String, scope: Scope, limit: Int = 200) async throws
        -> [(info: ProviderUserInfo, idToken: String)]
    {
        let users = try await store.read { tx in try await tx.users(scope, providerId: providerId, limit: limit) }
        return users.compactMap { user in
            guard let info = user.providers.first(where: { $0.providerId == providerId }), let rawId = info.rawId
            else { return nil }
            var claims: [String: JSONValue] = [
                "sub": .string(rawId), "iss": "", "aud": "", "exp": 0, "iat": 0, "email_verified": true,
            ]
            claims.setIfPresent("name", info.displayName.map(JSONValue.string))
            claims.setIfPresent("screen_name", info.screenName.map(JSONValue.string))
            claims.setIfPresent("email", info.email.map(JSONValue.string))
            claims.setIfPresent("picture", info.photoUrl.map(JSONValue.string))
            return (info, JSONValue.object(claims).jsonString())
        }
    }
}
