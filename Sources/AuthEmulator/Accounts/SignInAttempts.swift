import Crypto
import Foundation

/// Wrong secrets given for one account, kept in its record and never sent: production's lockouts
/// (`TOO_MANY_ATTEMPTS_TRY_LATER`). Times are epoch seconds on the emulator's clock, so moving
/// the clock ends a lock as waiting would.
public struct SignInAttempts: Codable, Sendable, Equatable {
    /// Wrong passwords in a row (each within the lockout time of the one before).
    public var passwordFailures: Int?
    public var passwordLastFailureAt: Double?
    /// Until when password sign-in is refused, the right password too.
    public var passwordLockedUntil: Double?
    /// Per second factor, by enrollment id: wrong codes in a row and the lock they set.
    public var factors: [String: CodeFailures]?
    /// Per MFA pending credential, by a digest of it: wrong codes made with it, kept until it expires.
    public var pendingCredentials: [String: CodeFailures]?

    public init() {}

    /// True when nothing is counted, so the record can drop it.
    var isEmpty: Bool {
        (passwordFailures ?? 0) == 0 && passwordLockedUntil == nil && (factors ?? [:]).isEmpty
            && (pendingCredentials ?? [:]).isEmpty
    }
}

/// Wrong codes for one factor or one pending credential.
public struct CodeFailures: Codable, Sendable, Equatable {
    public var count: Int
    /// A factor's lock, or a pending credential's expiry (when its entry may go).
    public var until: Double?

    public init(count: Int, until: Double? = nil) {
        self.count = count
        self.until = until
    }
}

/// The limits of one scope (`emulatorSettings`), with the answer production gives.
struct AttemptLimits {
    var passwordMaxAttempts: Int
    var passwordLockoutSeconds: Double
    var mfaMaxAttempts: Int
    var mfaLockoutSeconds: Double

    init(_ settings: EmulatorSettings) {
        passwordMaxAttempts = settings.passwordMaxAttempts
        passwordLockoutSeconds = Double(settings.passwordLockoutSeconds)
        mfaMaxAttempts = settings.mfaMaxAttempts
        mfaLockoutSeconds = Double(settings.mfaLockoutSeconds)
    }

    /// Production's message for a locked account.
    static let passwordLocked = AuthError(
        "TOO_MANY_ATTEMPTS_TRY_LATER",
        "Access to this account has been temporarily disabled due to many failed login attempts. You can immediately "
            + "restore it by resetting your password or you can try again later.")
    static let codeLocked = AuthError("TOO_MANY_ATTEMPTS_TRY_LATER")
}

extension UserRecord {
    private var attempts: SignInAttempts { signInAttempts ?? SignInAttempts() }

    private mutating func update(_ change: (inout SignInAttempts) -> Void) {
        var value = attempts
        change(&value)
        signInAttempts = value.isEmpty ? nil : value
    }

    /// Throws production's lockout while password sign-in is locked; a lock that has ended is
    /// forgotten (true when the record changed and should be saved).
    mutating func checkPasswordLock(_ limits: AttemptLimits, now: Double) throws(AuthError) -> Bool {
        guard limits.passwordMaxAttempts > 0, let until = attempts.passwordLockedUntil else { return false }
        if now < until { throw AttemptLimits.passwordLocked }
        update {
            $0.passwordFailures = nil
            $0.passwordLastFailureAt = nil
            $0.passwordLockedUntil = nil
        }
        return true
    }

    /// Counts a wrong password; the error to answer: the lockout once the limit is reached.
    mutating func recordWrongPassword(_ limits: AttemptLimits, now: Double, error: AuthError) -> AuthError {
        guard limits.passwordMaxAttempts > 0 else { return error }
        let window = limits.passwordLockoutSeconds
        var locked = false
        update { attempts in
            let recent = attempts.passwordLastFailureAt.map { now - $0 < window } ?? false
            let failures = (recent ? attempts.passwordFailures ?? 0 : 0) + 1
            attempts.passwordFailures = failures
            attempts.passwordLastFailureAt = now
            if failures >= limits.passwordMaxAttempts {
                attempts.passwordLockedUntil = now + window
                locked = true
            }
        }
        return locked ? AttemptLimits.passwordLocked : error
    }

    /// The right password, a new password or a reset: the count starts again (true when the
    /// record changed).
    @discardableResult
    mutating func forgetPasswordFailures() -> Bool {
        guard attempts.passwordFailures != nil || attempts.passwordLockedUntil != nil else { return false }
        update {
            $0.passwordFailures = nil
            $0.passwordLastFailureAt = nil
            $0.passwordLockedUntil = nil
        }
        return true
    }

    /// Throws the lockout when the factor is locked or the pending credential has used up its
    /// tries; entries that have ended are dropped.
    mutating func checkCodeLock(
        _ limits: AttemptLimits, factor: String?, credential: String, now: Double
    ) throws(AuthError) {
        guard limits.mfaMaxAttempts > 0 else { return }
        update { attempts in
            attempts.factors = attempts.factors?.filter { $0.value.until.map { now < $0 } ?? true }
            attempts.pendingCredentials = attempts.pendingCredentials?.filter {
                $0.value.until.map { now < $0 } ?? true
            }
        }
        let digest = Self.credentialDigest(credential)
        if let used = attempts.pendingCredentials?[digest], used.count >= limits.mfaMaxAttempts {
            throw AttemptLimits.codeLocked
        }
        if let factor, let failures = attempts.factors?[factor], failures.count >= limits.mfaMaxAttempts {
            throw AttemptLimits.codeLocked
        }
    }

    /// Counts a wrong code against the factor and the pending credential; the error to answer:
    /// the lockout once either reaches the limit.
    mutating func recordWrongCode(
        _ limits: AttemptLimits, factor: String?, credential: String, credentialExpiry: Double, now: Double,
        error: AuthError
    ) -> AuthError {
        guard limits.mfaMaxAttempts > 0 else { return error }
        let digest = Self.credentialDigest(credential)
        var locked = false
        update { attempts in
            var used = attempts.pendingCredentials?[digest] ?? CodeFailures(count: 0, until: credentialExpiry)
            used.count += 1
            attempts.pendingCredentials = (attempts.pendingCredentials ?? [:]).merging([digest: used]) { $1 }
            locked = used.count >= limits.mfaMaxAttempts
            if let factor {
                var failures = attempts.factors?[factor] ?? CodeFailures(count: 0)
                failures.count += 1
                if failures.count >= limits.mfaMaxAttempts {
                    failures.until = now + limits.mfaLockoutSeconds
                    locked = true
                }
                attempts.factors = (attempts.factors ?? [:]).merging([factor: failures]) { $1 }
            }
        }
        return locked ? AttemptLimits.codeLocked : error
    }

    /// The right code: the factor's count starts again (the pending credential is spent anyway).
    mutating func forgetCodeFailures(factor: String) {
        guard attempts.factors?[factor] != nil else { return }
        update { $0.factors?[factor] = nil }
    }

    /// A short digest naming a pending credential without keeping it.
    static func credentialDigest(_ credential: String) -> String {
        SHA256.hash(data: Data(credential.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}
