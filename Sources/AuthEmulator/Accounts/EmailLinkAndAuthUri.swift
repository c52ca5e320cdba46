import Foundation

/// `accounts:signInWithEmailLink` (v3 `emailLinkSignin`).
public struct SignInWithEmailLinkRequest: Decodable, Sendable {
    public var email: String?
    public var oobCode: String?
    public var idToken: String?
}

/// `accounts:createAuthUri`.
public struct CreateAuthUriRequest: Decodable, Sendable {
    public var identifier: String?
    public var continueUri: String?
    public var providerId: String?
    public var sessionId: String?
}

extension Emulator {
    public func signInWithEmailLink(_ request: SignInWithEmailLinkRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let nowMillis = nowMillisString
        typealias Outcome = (UserRecord, Bool, ScopeSettings, [String: JSONValue])
        let (user, isNew, settings, sessionClaims): Outcome = try await writeWithBlockingFunctions(scope) {
            tx, hooks, random in
            let settings = try await self.enabledSettings(tx, scope)
            if !settings.emailLinkEnabled { throw AuthError.operationNotAllowed }
            guard let code = request.oobCode, !code.isEmpty else { throw AuthError.missingOobCode }
            guard let email = request.email, !email.isEmpty else { throw AuthError.missingEmail }
            let oob = try await self.liveOobCode(tx, scope, code: code)
            guard oob.requestType == .emailSignin else { throw AuthError.invalidOobCode }
            guard oob.email == email.lowercased() else {
                throw AuthError("INVALID_EMAIL", "The email provided does not match the sign-in email address.")
            }
            var user: UserRecord
            var isNew = false
            if let idToken = request.idToken {
                user = try await Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
                if try await tx.users(scope, email: oob.email).contains(where: { $0.localId != user.localId }) {
                    throw AuthError.emailExists
                }
            } else if let existing = try await tx.users(scope, email: oob.email).first {
                user = existing
            } else {
                user = UserRecord(localId: random.alphanumeric(28))
                user.createdAt = nowMillis
                user.tenantId = scope.tenantId
                isNew = true
            }
            if user.isDisabled { throw AuthError.userDisabled }
            user.email = oob.email
            user.emailVerified = true
            user.emailLinkSignin = true
            user.upsertProvider(
                ProviderUserInfo(providerId: "password", rawId: oob.email, federatedId: oob.email, email: oob.email))
            let context = BlockingSignInContext(signInMethod: "emailLink", clientIP: caller.clientIP)
            let sessionClaims =
                isNew
                ? try hooks.beforeCreateAndSignIn(&user, settings: settings, scope: scope, context: context)
                : try hooks.beforeSignIn(&user, settings: settings, scope: scope, context: context)
            if !(settings.mfaEnabled && !user.enrollments.isEmpty) { self.markSignedIn(&user) }
            try await tx.save(scope, user)
            if isNew { self.recordCreated(tx, user, scope: scope) }
            try await tx.deleteOobCode(scope, code: code)
            return (user, isNew, settings, sessionClaims)
        }
        // Disabled by a blocking function: the account is written, the sign-in refused.
        if user.isDisabled { throw AuthError.userDisabled }
        let response: [String: JSONValue] = [
            "kind": "identitytoolkit#EmailLinkSigninResponse", "email": .string(user.email ?? ""),
            "localId": .string(user.localId), "isNewUser": .bool(isNew),
        ]
        var grant = SessionGrant(user: user, scope: scope, provider: "password")
        grant.extraClaims = sessionClaims
        return try await completeFirstFactor(grant, settings: settings, response: response)
    }

    public func createAuthUri(_ request: CreateAuthUriRequest, caller: Caller) async throws -> JSONValue {
        if request.providerId != nil { throw AuthError.notImplemented("createAuthUri with providerId") }
        guard let identifier = request.identifier, !identifier.isEmpty else { throw AuthError("MISSING_IDENTIFIER") }
        guard Validation.isEmail(identifier) else { throw AuthError("INVALID_IDENTIFIER") }
        guard let continueUri = request.continueUri, !continueUri.isEmpty else {
            throw AuthError("MISSING_CONTINUE_URI")
        }
        guard URL(string: continueUri)?.scheme != nil else { throw AuthError("INVALID_CONTINUE_URI") }
        let scope = caller.scope
        let sessionId = request.sessionId ?? random.alphanumeric(27)
        let (users, settings): ([UserRecord], ScopeSettings) = try await store.read { tx in
            let settings = try await self.enabledSettings(tx, scope, create: false)
            var users = try await tx.users(scope, email: identifier)
            for user in try await tx.users(scope, providerEmail: identifier)
            where !users.contains(where: { $0.localId == user.localId }) {
                users.append(user)
            }
            return (users, settings)
        }
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#CreateAuthUriResponse", "sessionId": .string(sessionId),
        ]
        if settings.improvedEmailPrivacy { return .object(response) }
        let (providers, methods) = Self.signInMethods(users, oneAccountPerEmail: !settings.allowDuplicateEmails)
        response["registered"] = .bool(providers != nil)
        if let providers {
            response["allProviders"] = .array(providers.map { .string($0) })
            response["signinMethods"] = .array(methods.map { .string($0) })
        }
        return .object(response)
    }

    /// As firebase-tools and production: with one account per email, the providers of the account
    /// with the address (else the first whose IdP has it), in link order; with duplicates allowed,
    /// only the password methods of an account with the address. Nil providers: not registered.
    static func signInMethods(_ users: [UserRecord], oneAccountPerEmail: Bool) -> ([String]?, [String]) {
        var providers: [String] = []
        var methods: [String] = []
        if oneAccountPerEmail {
            guard let user = users.first else { return (nil, []) }
            for provider in user.providers where provider.providerId != "phone" {
                providers.append(provider.providerId)
                if provider.providerId != "password" {
                    methods.append(provider.providerId)
                    continue
                }
                if user.hasPassword { methods.append("password") }
                if user.emailLinkSignin == true { methods.append("emailLink") }
            }
            return (providers, methods)
        }
        guard let user = users.first(where: { $0.email != nil }) else { return (nil, []) }
        if user.hasPassword || user.emailLinkSignin == true {
            providers.append("password")
            if user.hasPassword { methods.append("password") }
            if user.emailLinkSignin == true { methods.append("emailLink") }
        }
        return (providers, methods)
    }
}
