import Foundation

/// `accounts:signInWithCustomToken` (v3 `verifyCustomToken`): strict JSON or a JWT of any
/// algorithm, signature unchecked, as firebase-tools accepts them.
public struct SignInWithCustomTokenRequest: Decodable, Sendable {
    public var token: String?
}

extension Emulator {
    static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    public func signInWithCustomToken(_ request: SignInWithCustomTokenRequest, caller: Caller) async throws
        -> JSONValue
    {
        try await requireAuthEnabled(caller.scope)
        guard let token = request.token, !token.isEmpty else { throw AuthError("MISSING_CUSTOM_TOKEN") }
        let payload = try parseCustomToken(token, scope: caller.scope)
        guard let uid = payload["uid"]?.stringValue ?? payload["user_id"]?.stringValue, !uid.isEmpty else {
            throw AuthError("MISSING_IDENTIFIER")
        }
        var extraClaims: [String: JSONValue] = [:]
        if let claims = payload["claims"], claims != .null {
            guard let object = claims.objectValue else { throw AuthError.invalidClaims }
            if let bad = object.keys.sorted().first(where: CustomClaims.reserved.contains) {
                throw AuthError.forbiddenClaim(bad)
            }
            extraClaims = object
        }
        let scope = caller.scope
        let (user, isNew): (UserRecord, Bool) = try await store.write { tx in
            try await self.enabledSettings(tx, scope)
            var user = try await tx.user(scope, localId: uid)
            let isNew = user == nil
            if user == nil {
                var created = UserRecord(localId: uid)
                created.customAuth = true
                created.createdAt = self.nowMillisString
                created.tenantId = scope.tenantId
                user = created
            }
            guard var user else { throw AuthError.userNotFound }
            if user.isDisabled { throw AuthError.userDisabled }
            self.markSignedIn(&user)
            try await tx.save(scope, user)
            if isNew { self.recordCreated(tx, user, scope: scope) }
            return (user, isNew)
        }
        var grant = SessionGrant(user: user, scope: scope, provider: "custom")
        grant.extraClaims = extraClaims
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": .bool(isNew),
        ]
        for (key, value) in try await issueTokens(grant) { response[key] = value }
        return .object(response)
    }

    func parseCustomToken(_ token: String, scope: Scope) throws(AuthError) -> [String: JSONValue] {
        if token.hasPrefix("{") {
            guard let object = (try? JSONValue.parse(Data(token.utf8)))?.objectValue else {
                throw AuthError(
                    "INVALID_CUSTOM_TOKEN", "((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
            }
            return object
        }
        guard let claims = tokens.decodeUnverified(token) else {
            throw AuthError("INVALID_CUSTOM_TOKEN", "Invalid assertion format")
        }
        let audience = claims["aud"]?.stringValue ?? ""
        if audience != Self.customTokenAudience {
            throw AuthError(
                "INVALID_CUSTOM_TOKEN",
                "((Invalid aud (audience): \(audience) Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))"
            )
        }
        if let tenant = claims["tenant_id"]?.stringValue, tenant != scope.tenantId { throw AuthError.tenantIdMismatch }
        return claims
    }
}
