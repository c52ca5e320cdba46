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
        // A hash of the emulator's own is checked in the transaction (one SHA-256); an imported
        // one leaves it (`PasswordCheckNeeded`), is checked on the pool, and the flow runs again
        // with the verdict: the store's writer never waits for a slow hash.
        var outcome: PasswordSignInOutcome?
        for _ in 0..<PasswordVerdict.maxChecks where outcome == nil {
            do {
                outcome = try await passwordSignIn(request, caller: caller, now: now, verdict: verdict)
            } catch let needed as PasswordCheckNeeded {
                let right = try await passwordCheck.verify(needed.password, needed.user)
                verdict.remember(right, of: needed.user)
            }
        }
        let (user, settings, sessionClaims): (UserRecord, ScopeSettings, [String: JSONValue])
        switch outcome {
        case nil: throw AuthError.storeUnavailable("((The account's password changed during the sign-in; try again.))")
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

    /// The sign-in's transaction: checks, the password's verdict, counted failures, the
    /// `beforeSignIn` function and the sign-in time.
    private func passwordSignIn(
        _ request: SignInWithPasswordRequest, caller: Caller, now: TimeInterval, verdict: PasswordVerdict
    ) async throws -> PasswordSignInOutcome {
        let scope = caller.scope
        return try await writeWithBlockingFunctions(scope, sessionOnly: true) { tx, hooks, random in
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
            guard try verdict.check(password, of: user) else {
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
    }
}

/// What `signInWithPassword` did in its transaction: a wrong password is recorded (committed)
/// and then answered.
enum PasswordSignInOutcome: Sendable {
    case signedIn(UserRecord, ScopeSettings, [String: JSONValue])
    case refused(AuthError)
}

/// One sign-in's verdicts on its password, kept across runs of its transaction (a store runs a
/// `sessionWrite` body again as a `write` when it changed more than session times, and an
/// imported hash is checked between runs). The emulator's own salted SHA-256 is computed in
/// place; an imported hash without a verdict ends the run with `PasswordCheckNeeded`.
final class PasswordVerdict: Sendable {
    /// Runs a sign-in may take when its account's imported hash changes under it each time.
    static let maxChecks = 4

    private let memo = Mutex<(hash: String?, salt: String?, right: Bool)?>(nil)

    func check(_ password: String, of user: UserRecord) throws(PasswordCheckNeeded) -> Bool {
        guard user.importedPasswordHash != nil else { return PasswordHasher.verify(password, of: user) }
        if let known = memo.withLock({ $0 }), known.hash == user.passwordHash, known.salt == user.salt {
            return known.right
        }
        throw PasswordCheckNeeded(password: password, user: user)
    }

    func remember(_ right: Bool, of user: UserRecord) {
        memo.withLock { $0 = (user.passwordHash, user.salt, right) }
    }
}

/// A password to check against an imported hash before the sign-in's transaction runs again.
struct PasswordCheckNeeded: Error, Sendable {
    let password: String
    let user: UserRecord
}

/// How a sign-in checks a password against an imported hash: on `SlowCheckPool`, outside every
/// transaction. Tests pass one that waits, to show the writer does not.
public struct PasswordCheck: Sendable {
    public let verify: @Sendable (_ password: String, _ user: UserRecord) async throws -> Bool

    public init(_ verify: @escaping @Sendable (_ password: String, _ user: UserRecord) async throws -> Bool) {
        self.verify = verify
    }

    public static let pooled = PasswordCheck { password, user in
        try await SlowCheckPool.shared.run { PasswordHasher.verify(password, of: user) }
    }
}
