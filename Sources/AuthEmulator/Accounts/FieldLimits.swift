import Foundation

/// The most an account and a configuration may hold, checked in one place: every store's `save`
/// writes `UserRecord.checkedStoredData()`, and every config or tenant write passes
/// `checkConfigSize`, so no path (sign-up, update, IdP claims, custom tokens, imports, SAML
/// attributes, the admin API) stores more. Production documents a few of these (a uid of 128
/// characters, custom claims of 1,000 bytes, five second factors by default); the others are
/// authemu's, far above any real profile, and docs/security.md lists them all.
public enum FieldLimits {
    /// Characters of a uid (production's documented limit).
    public static let localId = 128
    /// Bytes of an email address (64 for the local part, 255 for the domain, and the `@`).
    public static let email = 320
    /// Bytes of a display name or screen name, the user's or a provider's or a factor's.
    public static let displayName = 2_048
    /// Bytes of a photo URL.
    public static let photoUrl = 8_192
    /// Bytes of any other string of a linked provider (raw id, federated id, phone number).
    public static let providerField = 2_048
    /// Linked providers of one account.
    public static let providers = 64
    /// Second factors of one account: `mfaMaxEnrolledFactors`' ceiling (the default is 5).
    public static let enrollments = 100
    /// Passkeys of one account.
    public static let passkeys = 100
    /// Bytes of custom claims as stored (production's limit).
    public static let customAttributes = 1_000
    /// Bytes of one account as stored, whatever holds them.
    public static let record = 256 * 1024
    /// Bytes of a project config or a tenant as stored.
    public static let config = 256 * 1024

    /// Refuses a config or tenant over `config` bytes.
    public static func checkConfigSize(_ config: JSONValue) throws(AuthError) {
        guard config.serialized().count <= Self.config else {
            throw AuthError("INVALID_CONFIG", "((The configuration would take more than 256 KiB.))")
        }
    }
}

extension UserRecord {
    /// `storedData`, once the record is within `FieldLimits`.
    public func checkedStoredData() throws(AuthError) -> Data {
        try checkFieldLimits()
        let data = storedData
        guard data.count <= FieldLimits.record else {
            throw AuthError("INVALID_USER_INFO", "((The account would take more than 256 KiB.))")
        }
        return data
    }

    func checkFieldLimits() throws(AuthError) {
        typealias Limits = FieldLimits
        guard localId.count <= Limits.localId else {
            throw AuthError("INVALID_LOCAL_ID", "((A uid has at most 128 characters.))")
        }
        try Self.check(email, Limits.email, "INVALID_EMAIL", "an email")
        try Self.check(initialEmail, Limits.email, "INVALID_EMAIL", "an email")
        try Self.check(displayName, Limits.displayName, "INVALID_DISPLAY_NAME", "a display name")
        try Self.check(screenName, Limits.displayName, "INVALID_DISPLAY_NAME", "a screen name")
        try Self.check(photoUrl, Limits.photoUrl, "INVALID_PHOTO_URL", "a photo URL")
        if (customAttributes?.utf8.count ?? 0) > Limits.customAttributes { throw AuthError.claimsTooLarge }
        guard providers.count <= Limits.providers else {
            throw AuthError("INVALID_USER_INFO", "((An account links at most 64 providers.))")
        }
        for provider in providers { try Self.check(provider) }
        guard enrollments.count <= Limits.enrollments else {
            throw AuthError("SECOND_FACTOR_LIMIT_EXCEEDED", "((An account has at most 100 second factors.))")
        }
        for enrollment in enrollments {
            try Self.check(enrollment.displayName, Limits.displayName, "INVALID_DISPLAY_NAME", "a factor's name")
        }
        guard (passkeyInfo?.count ?? 0) <= Limits.passkeys else {
            throw AuthError("INVALID_USER_INFO", "((An account has at most 100 passkeys.))")
        }
    }

    private static func check(_ provider: ProviderUserInfo) throws(AuthError) {
        typealias Limits = FieldLimits
        try check(provider.email, Limits.email, "INVALID_EMAIL", "a provider's email")
        try check(provider.displayName, Limits.displayName, "INVALID_DISPLAY_NAME", "a provider's display name")
        try check(provider.screenName, Limits.displayName, "INVALID_DISPLAY_NAME", "a provider's screen name")
        try check(provider.photoUrl, Limits.photoUrl, "INVALID_PHOTO_URL", "a provider's photo URL")
        for field in [provider.providerId, provider.rawId, provider.federatedId, provider.phoneNumber] {
            try check(field, Limits.providerField, "INVALID_USER_INFO", "a provider's id or phone number")
        }
    }

    private static func check(_ value: String?, _ limit: Int, _ code: String, _ what: String) throws(AuthError) {
        guard let value, value.utf8.count > limit else { return }
        throw AuthError(code, "((\(what.prefix(1).uppercased() + what.dropFirst()) has at most \(limit) bytes.))")
    }
}
