import Foundation

/// `accounts:signInWithIdp` (v3 `verifyAssertion`) with the fake IdP of firebase-tools (see
/// `IdpAssertion`), and its account rules: link to the ID token's user, else the user with this
/// (providerId, sub), else (one account per email) the user with the email, else a new user.
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
        let scope = caller.scope
        let nowMillis = nowMillisString
        let nowSeconds = clock.now().epochSeconds
        enum Outcome: Sendable {
            /// Answered without signing in: `needConfirmation`, or an error turned into `errorMessage`.
            case answer([String: JSONValue])
            case signedIn(UserRecord, IdpAssertionSummary, ScopeSettings, [String: JSONValue], [String: JSONValue])
        }
        // Read before the write (a SAML document, a JWT), answered in the order checked below.
        let parsed = Result { () throws(AuthError) in
            try IdpAssertion(requestUri: request.requestUri, postBody: request.postBody, tokens: self.tokens)
        }
        let outcome: Outcome = try await writeWithBlockingFunctions(scope) { tx, hooks, random in
            let settings = try await self.enabledSettings(tx, scope)
            if request.returnRefreshToken == true { throw AuthError.notImplemented("signInWithIdp returnRefreshToken") }
            if request.pendingIdToken != nil { throw AuthError.notImplemented("signInWithIdp pendingIdToken") }
            let assertion = try parsed.get()
            var response = assertion.response
            var linking: UserRecord?
            if let idToken = request.idToken {
                linking = try await Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
            }
            let resolution: IdpResolution
            do {
                resolution = try await Emulator.resolveIdpAccount(
                    tx, scope, assertion, linking: linking, settings: settings, response: &response,
                    newLocalId: { random.alphanumeric(28) }, nowSeconds: nowSeconds)
            } catch let error as AuthError where error.kind == .badRequest && request.returnIdpCredential == true {
                response["errorMessage"] = .string(error.message)
                return .answer(response)
            }
            guard case .account(var user, let isNew) = resolution else { return .answer(response) }
            if isNew {
                user.createdAt = nowMillis
                user.tenantId = scope.tenantId
                response["isNewUser"] = true
            }
            user.upsertProvider(assertion.providerInfo)
            var context = BlockingSignInContext(signInMethod: assertion.providerId, clientIP: caller.clientIP)
            context.rawUserInfo = response["rawUserInfo"]?.stringValue
            context.signInAttributes = assertion.signInAttributes.map { $0.jsonString() }
            context.oauthIdToken = response["oauthIdToken"]?.stringValue
            context.oauthAccessToken = response["oauthAccessToken"]?.stringValue
            let sessionClaims =
                isNew
                ? try hooks.beforeCreateAndSignIn(&user, settings: settings, scope: scope, context: context)
                : try hooks.beforeSignIn(&user, settings: settings, scope: scope, context: context)
            if !(settings.mfaEnabled && !user.enrollments.isEmpty) { self.markSignedIn(&user) }
            try await tx.save(scope, user)
            if isNew { self.recordCreated(tx, user, scope: scope) }
            response["localId"] = .string(user.localId)
            if user.email == assertion.email { response["emailVerified"] = .bool(user.emailVerified ?? false) }
            response.setIfPresent("tenantId", scope.tenantId.map(JSONValue.string))
            return .signedIn(user, IdpAssertionSummary(assertion), settings, response, sessionClaims)
        }
        switch outcome {
        case .answer(let response):
            return .object(response)
        case .signedIn(let user, let assertion, let settings, let response, let sessionClaims):
            // As firebase-tools: the account is updated first, then a disabled user is refused
            // (one with second factors gets its pending credential, and is refused at the second).
            if user.isDisabled, !(settings.mfaEnabled && !user.enrollments.isEmpty) { throw AuthError.userDisabled }
            var grant = SessionGrant(user: user, scope: scope, provider: assertion.providerId)
            grant.signInAttributes = assertion.signInAttributes
            grant.extraClaims = sessionClaims
            return try await completeFirstFactor(grant, settings: settings, response: response)
        }
    }

    /// Which account an IdP sign-in lands on, and what it changes there before the provider is
    /// linked; `response` gets `localId`, `needConfirmation`, `emailRecycled` as production sets them.
    static func resolveIdpAccount(
        _ tx: any StoreTransaction, _ scope: Scope, _ assertion: IdpAssertion, linking: UserRecord?,
        settings: ScopeSettings, response: inout [String: JSONValue], newLocalId: () -> String, nowSeconds: Int64
    ) async throws -> IdpResolution {
        let oneAccountPerEmail = !settings.allowDuplicateEmails
        let matching = try await tx.user(scope, providerId: assertion.providerId, rawId: assertion.rawId)
        let email = assertion.email
        if var user = linking {
            if matching != nil { throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED") }
            if oneAccountPerEmail, let email,
                try await tx.users(scope, email: email).contains(where: { $0.localId != user.localId })
            {
                throw AuthError.emailExists
            }
            if oneAccountPerEmail, let email, user.email == nil {
                user.email = email
                user.emailVerified = assertion.emailVerified
            }
            if let email, assertion.emailVerified, user.email == email { user.emailVerified = true }
            return .account(user, isNew: false)
        }
        if let matching { return .account(matching, isNew: false) }
        if oneAccountPerEmail, let email, let existing = try await tx.users(scope, email: email).first {
            guard assertion.emailVerified else {
                response["needConfirmation"] = true
                response["localId"] = .string(existing.localId)
                response["verifiedProvider"] = .array(
                    existing.providers.map(\.providerId).filter { $0 != "password" && $0 != "phone" }.map {
                        .string($0)
                    })
                return .needsConfirmation
            }
            if existing.providers.contains(where: {
                $0.providerId == assertion.providerId && $0.rawId != assertion.rawId
            }) {
                response["emailRecycled"] = true
            }
            var user = existing
            if existing.emailVerified != true {
                // Whoever set the unverified email loses the account's other ways in: the IdP
                // proved it owns the address.
                user.passwordHash = nil
                user.salt = nil
                user.phoneNumber = nil
                user.providerUserInfo = []
                user.validSince = String(nowSeconds)
            }
            user.displayName = assertion.displayName
            user.photoUrl = assertion.photoUrl
            user.screenName = assertion.screenName
            user.emailVerified = true
            return .account(user, isNew: false)
        }
        var user = UserRecord(localId: newLocalId())
        user.displayName = assertion.displayName
        user.photoUrl = assertion.photoUrl
        user.screenName = assertion.screenName
        if oneAccountPerEmail, let email {
            user.email = email
            user.emailVerified = assertion.emailVerified
        }
        return .account(user, isNew: true)
    }
}

enum IdpResolution {
    case account(UserRecord, isNew: Bool)
    case needsConfirmation
}

/// The parts of an assertion the token step needs, carried out of the store transaction.
struct IdpAssertionSummary: Sendable {
    var providerId: String
    var signInAttributes: JSONValue?

    init(_ assertion: IdpAssertion) {
        providerId = assertion.providerId
        signInAttributes = assertion.signInAttributes
    }
}
