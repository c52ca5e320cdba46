import Foundation

/// `accounts:signInWithIdp` (v3 `verifyAssertion`) with the fake IdP of firebase-tools: the
/// `postBody` carries `providerId` and an unsigned `id_token` (JWT or plain JSON claims).
public struct SignInWithIdpRequest: Decodable, Sendable {
    public var requestUri: String?
    public var postBody: String?
    public var idToken: String?
    public var returnIdpCredential: Bool?
    public var returnRefreshToken: Bool?
    public var pendingIdToken: String?
    public var sessionId: String?
}

extension Emulator {
    public func signInWithIdp(_ request: SignInWithIdpRequest, caller: Caller) async throws -> JSONValue {
        if request.returnRefreshToken == true { throw AuthError.notImplemented("signInWithIdp returnRefreshToken") }
        if request.pendingIdToken != nil { throw AuthError.notImplemented("signInWithIdp pendingIdToken") }
        guard let requestUri = request.requestUri, !requestUri.isEmpty else { throw AuthError("MISSING_REQUEST_URI") }
        guard URL(string: requestUri)?.scheme != nil else { throw AuthError("INVALID_REQUEST_URI") }
        let assertion = try IdpAssertion(postBody: request.postBody ?? "", tokens: tokens)
        let scope = caller.scope
        let random = self.random
        let nowMillis = nowMillisString
        typealias Outcome = (user: UserRecord, isNew: Bool, settings: ScopeSettings, needConfirmation: Bool)
        let outcome: Outcome = try await store.write { tx in
            let settings = try self.settings(tx, scope)
            if settings.disableAuth { throw AuthError.projectDisabled }
            var user: UserRecord
            var isNew = false
            let linked = try tx.user(scope, providerId: assertion.providerId, rawId: assertion.rawId)
            if let idToken = request.idToken {
                user = try Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
                if let linked, linked.localId != user.localId { throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED") }
            } else if let linked {
                user = linked
            } else if let email = assertion.email, !settings.allowDuplicateEmails,
                let existing = try tx.users(scope, email: email).first
            {
                guard assertion.emailVerified else { return (existing, false, settings, true) }
                user = existing
            } else {
                user = UserRecord(localId: random.alphanumeric(28))
                user.createdAt = nowMillis
                user.tenantId = scope.tenantId
                user.email = assertion.email
                user.emailVerified = assertion.emailVerified
                user.displayName = assertion.displayName
                user.photoUrl = assertion.photoUrl
                isNew = true
            }
            if user.isDisabled { throw AuthError.userDisabled }
            user.upsertProvider(assertion.providerInfo)
            if !(settings.mfaEnabled && !user.enrollments.isEmpty) { self.markSignedIn(&user) }
            try tx.save(scope, user)
            return (user, isNew, settings, false)
        }
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": .string(assertion.providerId),
            "federatedId": .string(assertion.rawId), "localId": .string(outcome.user.localId),
            "rawUserInfo": .string(JSONValue.object(assertion.claims).jsonString()),
            "emailVerified": .bool(assertion.emailVerified), "isNewUser": .bool(outcome.isNew),
        ]
        if let email = assertion.email { response["email"] = .string(email) }
        if let name = assertion.displayName { response["displayName"] = .string(name) }
        if let photo = assertion.photoUrl { response["photoUrl"] = .string(photo) }
        if let idToken = assertion.idToken { response["oauthIdToken"] = .string(idToken) }
        if let accessToken = assertion.accessToken { response["oauthAccessToken"] = .string(accessToken) }
        if outcome.needConfirmation {
            response["needConfirmation"] = true
            response["localId"] = nil
            return .object(response)
        }
        return try await completeFirstFactor(
            SessionGrant(user: outcome.user, scope: scope, provider: assertion.providerId), settings: outcome.settings,
            response: response)
    }
}

/// What the fake IdP asserted, read from `postBody`.
struct IdpAssertion {
    var providerId: String
    var rawId: String
    var claims: [String: JSONValue]
    var idToken: String?
    var accessToken: String?

    var email: String? { claims["email"]?.stringValue?.lowercased() }
    var emailVerified: Bool { claims["email_verified"]?.boolValue ?? (claims["email_verified"]?.stringValue == "true") }
    var displayName: String? { claims["name"]?.stringValue ?? claims["screen_name"]?.stringValue }
    var photoUrl: String? { claims["picture"]?.stringValue }

    var providerInfo: ProviderUserInfo {
        ProviderUserInfo(
            providerId: providerId, rawId: rawId, federatedId: rawId, email: email, displayName: displayName,
            photoUrl: photoUrl, screenName: claims["screen_name"]?.stringValue)
    }

    init(postBody: String, tokens: TokenService) throws(AuthError) {
        let fields = FormEncoding.fields(postBody)
        guard let providerId = fields["providerId"], !providerId.isEmpty else {
            throw AuthError("INVALID_CREDENTIAL_OR_PROVIDER_ID", "Invalid IdP response/credential: \(postBody)")
        }
        self.providerId = providerId
        idToken = fields["id_token"]
        accessToken = fields["access_token"]
        var claims: [String: JSONValue]?
        if let idToken {
            if idToken.hasPrefix("{") {
                claims = (try? JSONValue.parse(Data(idToken.utf8)))?.objectValue
            } else {
                claims = tokens.decodeUnverified(idToken)
            }
        } else if let accessToken, accessToken.hasPrefix("{") {
            claims = (try? JSONValue.parse(Data(accessToken.utf8)))?.objectValue
        }
        guard let claims, let sub = claims["sub"]?.stringValue, !sub.isEmpty else {
            throw AuthError(
                "INVALID_IDP_RESPONSE",
                "((Unsupported or malformed id_token; the emulator needs an id_token with a sub claim.))")
        }
        self.claims = claims
        rawId = sub
    }
}
