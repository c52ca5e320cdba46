import Foundation

/// Emulator behaviour of one project that production does not expose (authemu extension key
/// `emulatorSettings` of the v2 config; tenants use their project's): SMS code lifetime,
/// attempts, supersession and quotas; MFA limits and lifetimes; password and second-factor lockouts.
public struct EmulatorSettings: Sendable, Equatable {
    /// Seconds a code stays valid (`SESSION_EXPIRED` afterwards).
    public var codeLifetimeSeconds: Int = 600
    /// Wrong codes allowed before the session locks (`TOO_MANY_ATTEMPTS_TRY_LATER`).
    public var maxAttempts: Int = 5
    /// Whether a newer code for the same number and purpose supersedes older pending ones.
    public var supersedeOlderCodes = true
    /// SMS per phone number per hour before `QUOTA_EXCEEDED`; 0 = unlimited.
    public var quotaPerNumberPerHour: Int = 0
    /// SMS per client address per hour before `TOO_MANY_ATTEMPTS_TRY_LATER`; 0 = unlimited.
    public var quotaPerIPPerHour: Int = 0
    /// Most second factors one user may enrol (`SECOND_FACTOR_LIMIT_EXCEEDED` beyond).
    public var maxEnrolledFactors: Int = 5
    /// Seconds an MFA pending credential stays valid.
    public var mfaPendingCredentialLifetimeSeconds: Int = 600
    /// Seconds a TOTP enrollment may take between start and finalize.
    public var totpEnrollmentLifetimeSeconds: Int = 600
    /// App verification of SMS requests: `off` (default; SDKs in emulator mode skip it) or
    /// `enforce` (one valid APNs / reCAPTCHA / Play Integrity credential required).
    public var appVerificationEnforced = false
    /// Whether a TOTP code's time step may be used only once per enrollment (production does so;
    /// turn off for test suites or benchmarks that sign in with the same factor within 30 s).
    public var totpReplayProtection = true
    /// Seconds an email action code (OOB) stays valid (`EXPIRED_OOB_CODE` afterwards).
    public var oobCodeLifetimeSeconds: Int = 3600
    /// The project's custom Firebase Hosting domains: when listed, an action link's `linkDomain`
    /// must be one of them or the project's own (`INVALID_HOSTING_LINK_DOMAIN`).
    public var hostingDomains: [String] = []
    /// Wrong passwords in a row before password sign-in locks (`TOO_MANY_ATTEMPTS_TRY_LATER`);
    /// 0 = never. Production does not publish its limit.
    public var passwordMaxAttempts: Int = 10
    /// Seconds a password lock lasts, and how close together wrong passwords must be to count
    /// as in a row. A password reset or a new password ends it at once.
    public var passwordLockoutSeconds: Int = 900
    /// Wrong second-factor codes in a row before the factor locks, and most wrong codes one MFA
    /// pending credential may make; 0 = never.
    public var mfaMaxAttempts: Int = 5
    /// Seconds a second factor's lock lasts.
    public var mfaLockoutSeconds: Int = 900

    public init() {}

    public init(_ value: JSONValue?) {
        guard let value else { return }
        if let number = value["smsCodeLifetimeSeconds"]?.doubleValue?.truncatedInt { codeLifetimeSeconds = number }
        if let number = value["smsMaxAttempts"]?.doubleValue?.truncatedInt { maxAttempts = number }
        if let flag = value["smsSupersedeOlderCodes"]?.boolValue { supersedeOlderCodes = flag }
        if let number = value["smsQuotaPerNumberPerHour"]?.doubleValue?.truncatedInt { quotaPerNumberPerHour = number }
        if let number = value["smsQuotaPerIpPerHour"]?.doubleValue?.truncatedInt { quotaPerIPPerHour = number }
        if let number = value["mfaMaxEnrolledFactors"]?.doubleValue?.truncatedInt { maxEnrolledFactors = number }
        if let number = value["mfaPendingCredentialLifetimeSeconds"]?.doubleValue?.truncatedInt {
            mfaPendingCredentialLifetimeSeconds = number
        }
        if let mode = value["appVerification"]?.stringValue { appVerificationEnforced = mode.lowercased() == "enforce" }
        if let flag = value["totpReplayProtection"]?.boolValue { totpReplayProtection = flag }
        if let number = value["totpEnrollmentLifetimeSeconds"]?.doubleValue?.truncatedInt {
            totpEnrollmentLifetimeSeconds = number
        }
        if let number = value["oobCodeLifetimeSeconds"]?.doubleValue?.truncatedInt { oobCodeLifetimeSeconds = number }
        if let domains = value["hostingDomains"]?.arrayValue { hostingDomains = domains.compactMap(\.stringValue) }
        if let number = value["passwordMaxAttempts"]?.doubleValue?.truncatedInt { passwordMaxAttempts = number }
        if let number = value["passwordLockoutSeconds"]?.doubleValue?.truncatedInt { passwordLockoutSeconds = number }
        if let number = value["mfaMaxAttempts"]?.doubleValue?.truncatedInt { mfaMaxAttempts = number }
        if let number = value["mfaLockoutSeconds"]?.doubleValue?.truncatedInt { mfaLockoutSeconds = number }
    }

    /// Validates an `emulatorSettings` object from the REST API or the config file.
    static func validate(_ value: JSONValue?) throws(AuthError) {
        guard let value, value != .null else { return }
        guard let object = value.objectValue else { throw AuthError.invalidJSON("/emulatorSettings must be object") }
        let ranges: [String: ClosedRange<Double>] = [
            "smsCodeLifetimeSeconds": 1...86400, "smsMaxAttempts": 1...1000, "smsQuotaPerNumberPerHour": 0...1_000_000,
            "smsQuotaPerIpPerHour": 0...1_000_000, "mfaMaxEnrolledFactors": 1...100,
            "mfaPendingCredentialLifetimeSeconds": 1...86400, "totpEnrollmentLifetimeSeconds": 1...86400,
            "oobCodeLifetimeSeconds": 1...2_592_000, "passwordMaxAttempts": 0...1000,
            "passwordLockoutSeconds": 1...86400, "mfaMaxAttempts": 0...1000, "mfaLockoutSeconds": 1...86400,
        ]
        for (key, field) in object {
            if key == "appVerification" {
                guard let mode = field.stringValue?.lowercased(), mode == "off" || mode == "enforce" else {
                    throw AuthError("INVALID_CONFIG", "emulatorSettings.appVerification must be off or enforce")
                }
                continue
            }
            if key == "hostingDomains" {
                guard let domains = field.arrayValue,
                    domains.allSatisfy({ field in field.stringValue.map { LinkDomain.isHostname($0) } == true })
                else {
                    throw AuthError("INVALID_CONFIG", "emulatorSettings.hostingDomains must be a list of host names")
                }
                continue
            }
            if key == "smsSupersedeOlderCodes" || key == "totpReplayProtection" {
                guard field.boolValue != nil else {
                    throw AuthError("INVALID_CONFIG", "emulatorSettings.\(key) must be true or false")
                }
                continue
            }
            guard let range = ranges[key] else {
                throw AuthError("INVALID_CONFIG", "emulatorSettings.\(key) is not a known setting")
            }
            guard let number = field.doubleValue, number.rounded() == number, range.contains(number) else {
                throw AuthError(
                    "INVALID_CONFIG",
                    "emulatorSettings.\(key) must be an integer from \(Int(range.lowerBound)) to \(Int(range.upperBound))"
                )
            }
        }
    }
}

extension EmulatorSettings {
    /// Factors an Admin SDK sets (create, update, import) are held to the scope's
    /// `mfaMaxEnrolledFactors`, as a client's enrolment is.
    func admitFactors(_ user: UserRecord) throws(AuthError) {
        guard user.enrollments.count > maxEnrolledFactors else { return }
        throw AuthError(
            "SECOND_FACTOR_LIMIT_EXCEEDED",
            "((An account has at most \(maxEnrolledFactors) second factors here (mfaMaxEnrolledFactors).))")
    }
}
