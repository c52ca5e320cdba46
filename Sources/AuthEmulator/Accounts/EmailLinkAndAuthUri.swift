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
        let random = self.random
        let nowMillis = nowMillisString
        let (user, isNew, settings): (UserRecord, Bool, ScopeSettings) = try await store.write { tx in
            let settings = try self.settings(tx, scope)
            if settings.disableAuth { throw AuthError.projectDisabled }
            if !settings.emailLinkEnabled { throw AuthError.operationNotAllowed }
            guard let code = request.oobCode, !code.isEmpty else { throw AuthError.missingOobCode }
            guard let email = request.email, !email.isEmpty else { throw AuthError.missingEmail }
            guard let oob = try tx.oobCode(scope, code: code), oob.requestType == .emailSignin else {
                throw AuthError.invalidOobCode
            }
            guard oob.email == email.lowercased() else {
                throw AuthError("INVALID_EMAIL", "The email provided does not match the sign-in email address.")
            }
            var user: UserRecord
            var isNew = false
            if let idToken = request.idToken {
                user = try Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
                if try tx.users(scope, email: oob.email).contains(where: { $0.localId != user.localId }) {
                    throw AuthError.emailExists
                }
            } else if let existing = try tx.users(scope, email: oob.email).first {
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
            if !(settings.mfaEnabled && !user.enrollments.isEmpty) { self.markSignedIn(&user) }
            try tx.save(scope, user)
            try tx.deleteOobCode(scope, code: code)
            return (user, isNew, settings)
        }
        let response: [String: JSONValue] = [
            "kind": "identitytoolkit#EmailLinkSigninResponse", "email": .string(user.email ?? ""),
            "localId": .string(user.localId), "isNewUser": .bool(isNew),
        ]
        return try await completeFirstFactor(
            SessionGrant(user: user, scope: scope, provider: "password"), settings: settings, response: response)
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
            let settings = try self.settings(tx, scope, create: false)
            if settings.disableAuth { throw AuthError.projectDisabled }
            return (try tx.users(scope, email: identifier), settings)
        }
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#CreateAuthUriResponse", "sessionId": .string(sessionId),
        ]
        if settings.improvedEmailPrivacy { return .object(response) }
        var providers: [String] = []
        var methods: [String] = []
        for user in users {
            if user.hasPassword, !methods.contains("password") { methods.append("password") }
            if user.emailLinkSignin == true, !methods.contains("emailLink") { methods.append("emailLink") }
            for provider in user.providers where provider.providerId != "phone" {
                if !providers.contains(provider.providerId) { providers.append(provider.providerId) }
                if provider.providerId != "password", !methods.contains(provider.providerId) {
                    methods.append(provider.providerId)
                }
            }
        }
        response["registered"] = .bool(!users.isEmpty)
        if !users.isEmpty {
            response["allProviders"] = .array(providers.map { .string($0) })
            response["signinMethods"] = .array(methods.map { .string($0) })
        }
        return .object(response)
    }
}
