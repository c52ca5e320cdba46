import Foundation
import Synchronization

/// `accounts:signInWithPassword` (v3 `verifyPassword`).
public struct SignInWithPasswordRequest: Decodable, Sendable {
    public var email: String?
    public var password: String?
    public var captchaChallenge: String?
    public var idToken: String?
    public var pendingIdToken: String?
    public var captchaResponse: String?
    public var clientType: String?
    public var recaptchaVersion: String?
}

extension Emulator {
    public func signInWithPassword(_ request: SignInWithPasswordRequest, caller: Caller) async throws -> JSONValue {
        if request.idToken != nil || request.pendingIdToken != nil {
            throw AuthError.notImplemented("signInWithPassword with idToken")
        }
        let scope = caller.scope
        let now = clock.now().timeIntervalSince1970
        let verdict = PasswordVerdict()
        let outcome: PasswordSignInOutcome =
            try await writeWithBlockingFunctions(scope, sessionOnly: true) { tx, hooks, random in
                let settings = try await self.enabledSettings(tx, scope)
                if !settings.passwordSignUpEnabled { throw AuthError.passwordLoginDisabled }
                try await Emulator.verifyPasswordRecaptcha(
                    tx, token: request.captchaResponse, clientType: request.clientType,
                    version: request.recaptchaVersion,
                    scope: scope, settings: settings)
                guard let email = request.email else { throw AuthError.missingEmail }
                guard Validation.isEmail(email) else { throw AuthError.invalidEmail }
                guard let password = request.password, !password.isEmpty else { throw AuthError.missingPassword }
                let privacy = settings.improvedEmailPrivacy
                // An account whose password an IdP takeover dropped still has the address: a wrong
                // password, not an unknown email (firebase-tools, production).
                let owners = try await tx.users(scope, email: email)
                guard var user = owners.first(where: \.hasPassword) ?? owners.first else {
                    throw privacy ? AuthError.invalidLoginCredentials : AuthError.emailNotFound
                }
                if user.isDisabled { throw AuthError.userDisabled }
                let wrong = privacy ? AuthError.invalidLoginCredentials : AuthError.invalidPassword
                guard user.hasPassword else { throw wrong }
                let limits = AttemptLimits(settings.emulator)
                if try user.checkPasswordLock(limits, now: now) { try await tx.save(scope, user) }
                guard verdict.check(password, of: user) else {
                    // Counted, committed, then answered.
                    let error = user.recordWrongPassword(limits, now: now, error: wrong)
                    if limits.passwordMaxAttempts > 0 { try await tx.save(scope, user) }
                    return .refused(error)
                }
                if user.forgetPasswordFailures(), user.importedPasswordHash == nil { try await tx.save(scope, user) }
                if user.importedPasswordHash != nil {
                    // As production: an imported hash is replaced by the emulator's own at the first
                    // sign-in (the password's update time stays the user's).
                    let updatedAt = user.passwordUpdatedAt
                    user.setPassword(password, random: random, nowMillis: self.nowMillisString)
                    user.passwordUpdatedAt = updatedAt
                    try await tx.save(scope, user)
                }
                try settings.passwordRules.check(signInPassword: password)
                var sessionClaims: [String: JSONValue] = [:]
                if !(settings.mfaEnabled && !user.enrollments.isEmpty) {
                    if let claims = try hooks.run(
                        .beforeSignIn, user: &user, settings: settings, scope: scope,
                        context: BlockingSignInContext(signInMethod: "password", clientIP: caller.clientIP))
                    {
                        sessionClaims = claims
                        self.markSignedIn(&user)
                        try await tx.save(scope, user)
                    } else {
                        try await self.recordSignIn(tx, scope, &user)
                    }
                }
                return .signedIn(user, settings, sessionClaims)
            }
        let (user, settings, sessionClaims): (UserRecord, ScopeSettings, [String: JSONValue])
        switch outcome {
        case .refused(let error): throw error
        case .signedIn(let signedIn, let scopeSettings, let claims):
            (user, settings, sessionClaims) = (signedIn, scopeSettings, claims)
        }
        // Disabled by its beforeSignIn function: the change is kept, the sign-in refused.
        if user.isDisabled { throw AuthError.userDisabled }
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyPasswordResponse", "registered": true, "localId": .string(user.localId),
            "email": .string(user.email ?? ""),
        ]
        if let name = user.displayName { response["displayName"] = .string(name) }
        if let photo = user.photoUrl { response["profilePicture"] = .string(photo) }
        var grant = SessionGrant(user: user, scope: scope, provider: "password")
        grant.extraClaims = sessionClaims
        return try await completeFirstFactor(grant, settings: settings, response: response)
    }
}

/// What `signInWithPassword` did in its transaction: a wrong password is recorded (committed)
/// and then answered.
enum PasswordSignInOutcome: Sendable {
    case signedIn(UserRecord, ScopeSettings, [String: JSONValue])
    case refused(AuthError)
}

/// One sign-in's check of its password, kept across runs of its transaction: a store runs a
/// `sessionWrite` body again as a `write` when it changed more than session times (a counted
/// wrong password), and the hash, slow by design, need not be computed twice.
final class PasswordVerdict: Sendable {
    private let memo = Mutex<(hash: String?, salt: String?, right: Bool)?>(nil)

    func check(_ password: String, of user: UserRecord) -> Bool {
        if let known = memo.withLock({ $0 }), known.hash == user.passwordHash, known.salt == user.salt {
            return known.right
        }
        let right = PasswordHasher.verify(password, of: user)
        memo.withLock { $0 = (user.passwordHash, user.salt, right) }
        return right
    }
}
