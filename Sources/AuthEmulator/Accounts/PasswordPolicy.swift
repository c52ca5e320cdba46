/// A scope's password policy (`passwordPolicyConfig`) as Identity Platform applies it. With
/// `passwordPolicyEnforcementState: ENFORCE`, a new password (sign-up, Admin create, update,
/// reset) that misses a requirement is refused with `PASSWORD_DOES_NOT_MEET_REQUIREMENTS` and the
/// list of what is missing, and with `forceUpgradeOnSignin` so is a sign-in with such a password.
/// `OFF` and `AUDIT` only serve the policy to clients (`GET v2/passwordPolicy`); without an
/// enforced policy the old rule stands: at least 6 characters, else `WEAK_PASSWORD`.
public struct PasswordPolicy: Sendable, Equatable {
    public var enforced = false
    public var forceUpgradeOnSignin = false
    public var minLength = Validation.minimumPasswordLength
    public var maxLength = 4096
    public var requiresLowercase = false
    public var requiresUppercase = false
    public var requiresNumeric = false
    public var requiresNonAlphanumeric = false

    /// The characters that count as non-alphanumeric (the list `GET v2/passwordPolicy` serves and
    /// the client SDKs check against).
    public static let nonAlphanumericCharacters = Array("^$*.[]{}()?\"!@#%&/\\,><':;|_~`=+-")

    public init(config: JSONValue) {
        enforced = config["passwordPolicyEnforcementState"]?.stringValue == "ENFORCE"
        forceUpgradeOnSignin = config["forceUpgradeOnSignin"]?.boolValue ?? false
        let options = config["passwordPolicyVersions"]?.arrayValue?.first?["customStrengthOptions"]
        if let min = options?["minPasswordLength"]?.doubleValue?.truncatedInt { minLength = min }
        if let max = options?["maxPasswordLength"]?.doubleValue?.truncatedInt { maxLength = max }
        requiresLowercase = options?["containsLowercaseCharacter"]?.boolValue ?? false
        requiresUppercase = options?["containsUppercaseCharacter"]?.boolValue ?? false
        requiresNumeric = options?["containsNumericCharacter"]?.boolValue ?? false
        requiresNonAlphanumeric = options?["containsNonAlphanumericCharacter"]?.boolValue ?? false
    }

    /// What `password` misses, in the words and order of the production error.
    public func missingRequirements(_ password: String) -> [String] {
        var missing: [String] = []
        let length = password.count
        if length < minLength { missing.append("Password must contain at least \(minLength) characters") }
        if length > maxLength { missing.append("Password may contain at most \(maxLength) characters") }
        if requiresLowercase, !password.contains(where: { $0.isASCII && $0.isLowercase }) {
            missing.append("Password must contain a lower case character")
        }
        if requiresUppercase, !password.contains(where: { $0.isASCII && $0.isUppercase }) {
            missing.append("Password must contain an upper case character")
        }
        if requiresNumeric, !password.contains(where: { $0.isASCII && $0.isNumber }) {
            missing.append("Password must contain a numeric character")
        }
        if requiresNonAlphanumeric, !password.contains(where: Self.nonAlphanumericCharacters.contains) {
            missing.append("Password must contain a non-alphanumeric character")
        }
        return missing
    }

    /// The check every new password goes through.
    public func check(newPassword password: String) throws(AuthError) {
        if enforced {
            let missing = missingRequirements(password)
            if !missing.isEmpty { throw AuthError.passwordDoesNotMeetRequirements(missing) }
        } else if password.count < Validation.minimumPasswordLength {
            throw AuthError.weakPassword
        }
    }

    /// The check of a sign-in's (correct) password under `forceUpgradeOnSignin`.
    public func check(signInPassword password: String) throws(AuthError) {
        guard enforced, forceUpgradeOnSignin else { return }
        let missing = missingRequirements(password)
        if !missing.isEmpty { throw AuthError.passwordDoesNotMeetRequirements(missing) }
    }
}

extension AuthError {
    public static func passwordDoesNotMeetRequirements(_ missing: [String]) -> AuthError {
        AuthError(
            "PASSWORD_DOES_NOT_MEET_REQUIREMENTS",
            "Missing password requirements: [\(missing.joined(separator: ", "))]")
    }
}

extension Emulator {
    /// `GET v2/passwordPolicy` from the scope's `passwordPolicyConfig`.
    public func passwordPolicy(caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let settings = try await store.read { tx in try await self.settings(tx, scope, create: false) }
        let policy = settings.passwordPolicy
        var options: [String: JSONValue] = ["minPasswordLength": 6, "maxPasswordLength": 4096]
        if let custom = policy["passwordPolicyVersions"]?.arrayValue?.first?["customStrengthOptions"]?.objectValue {
            for (key, value) in custom { options[key] = value }
        }
        return .object([
            "customStrengthOptions": .object(options),
            "allowedNonAlphanumericCharacters": .array(
                "^$*.[]{}()?\"!@#%&/\\,><':;|_~`=+-".map { .string(String($0)) }),
            "enforcementState": .string(policy["passwordPolicyEnforcementState"]?.stringValue ?? "OFF"),
            "forceUpgradeOnSignin": .bool(policy["forceUpgradeOnSignin"]?.boolValue ?? false),
            "schemaVersion": 1,
        ])
    }
}
