import Foundation

/// Which project, and which tenant inside it, a request or a record belongs to.
public struct Scope: Sendable, Hashable, CustomStringConvertible {
    public var projectId: String
    public var tenantId: String?

    public init(projectId: String, tenantId: String? = nil) {
        self.projectId = projectId
        self.tenantId = (tenantId?.isEmpty ?? true) ? nil : tenantId
    }

    public var description: String { tenantId.map { "\(projectId)/\($0)" } ?? projectId }
}

/// A linked identity provider of a user (Identity Toolkit `ProviderUserInfo`).
public struct ProviderUserInfo: Codable, Sendable, Equatable {
    public var providerId: String
    public var rawId: String?
    public var federatedId: String?
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var screenName: String?

    public init(
        providerId: String, rawId: String? = nil, federatedId: String? = nil, email: String? = nil,
        displayName: String? = nil, photoUrl: String? = nil, phoneNumber: String? = nil, screenName: String? = nil
    ) {
        self.providerId = providerId
        self.rawId = rawId
        self.federatedId = federatedId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.screenName = screenName
    }
}

/// One enrolled second factor (Identity Toolkit `MfaEnrollment`). `totpSecret` never leaves
/// the emulator on the wire; it is kept so restarts and export/import lose nothing.
public struct MfaEnrollment: Codable, Sendable, Equatable {
    public var mfaEnrollmentId: String
    public var displayName: String?
    public var enrolledAt: String?
    public var phoneInfo: String?
    public var unobfuscatedPhoneInfo: String?
    public var totpInfo: JSONValue?
    public var totpSecret: String?
    public var totpLastUsedStep: Int64?

    public init(
        mfaEnrollmentId: String, displayName: String? = nil, enrolledAt: String? = nil, phoneInfo: String? = nil,
        totpInfo: JSONValue? = nil, totpSecret: String? = nil
    ) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.phoneInfo = phoneInfo
        self.unobfuscatedPhoneInfo = phoneInfo
        self.totpInfo = totpInfo
        self.totpSecret = totpSecret
    }
}

/// A user account as stored, in the Identity Toolkit `UserInfo` shape.
public struct UserRecord: Codable, Sendable, Equatable {
    public var localId: String
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoUrl: String?
    /// The IdP's screen name (`screen_name`), copied when an IdP sign-in creates or takes over the account.
    public var screenName: String?
    public var phoneNumber: String?
    public var passwordHash: String?
    public var salt: String?
    public var passwordUpdatedAt: Double?
    public var providerUserInfo: [ProviderUserInfo]?
    public var mfaInfo: [MfaEnrollment]?
    public var customAttributes: String?
    public var disabled: Bool?
    public var createdAt: String?
    public var lastLoginAt: String?
    public var lastRefreshAt: String?
    public var validSince: String?
    public var tenantId: String?
    public var customAuth: Bool?
    public var initialEmail: String?
    public var emailLinkSignin: Bool?
    public var passkeyInfo: [PasskeyInfo]?
    /// How an imported `passwordHash` was made (production's algorithms); nil for the emulator's own.
    public var importedPasswordHash: ImportedPasswordHash?
    /// Wrong passwords and codes counted towards a lockout; stored only, never on the wire.
    public var signInAttempts: SignInAttempts?

    public init(localId: String) {
        self.localId = localId
    }

    public var isDisabled: Bool { disabled ?? false }
    public var hasPassword: Bool { passwordHash != nil }
    public var enrollments: [MfaEnrollment] { mfaInfo ?? [] }
    public var providers: [ProviderUserInfo] { providerUserInfo ?? [] }

    /// An identity the stores index for lookups by (providerId, rawId) and by its email.
    public struct IndexedIdentity: Equatable, Sendable {
        public var providerId: String
        public var rawId: String
        /// Lower-cased, for `users(_:providerEmail:)`.
        public var email: String?
    }

    /// Passkeys are indexed as identities of this provider id, which no IdP can have.
    public static let passkeyProvider = "#passkey"

    /// What the stores index of this user (the rule is the domain's; the stores only apply it):
    /// every linked IdP with a raw id (not `password` or `phone`, which have their own columns),
    /// and every passkey under `passkeyProvider`.
    public var indexedIdentities: [IndexedIdentity] {
        let linked = providers.compactMap { provider -> IndexedIdentity? in
            guard provider.providerId != "password", provider.providerId != "phone", let rawId = provider.rawId
            else { return nil }
            return IndexedIdentity(providerId: provider.providerId, rawId: rawId, email: provider.email?.lowercased())
        }
        let passkeys = (passkeyInfo ?? []).map {
            IndexedIdentity(providerId: Self.passkeyProvider, rawId: $0.credentialId, email: nil)
        }
        return linked + passkeys
    }

    /// True for anonymous accounts: no email, phone, password, provider or custom-token origin.
    public var isAnonymous: Bool {
        email == nil && phoneNumber == nil && passwordHash == nil && providers.isEmpty && customAuth != true
    }

    /// Seconds since the epoch before which issued tokens are revoked.
    public var validSinceSeconds: Int64? { validSince.flatMap { Int64($0) } }

    /// Adds or replaces the provider entry with the same `providerId` (and `rawId` for IdPs).
    public mutating func upsertProvider(_ info: ProviderUserInfo) {
        var list = providers.filter { $0.providerId != info.providerId }
        list.append(info)
        providerUserInfo = list
    }

    public func hasEnrollment(_ id: String) -> Bool { enrollments.contains { $0.mfaEnrollmentId == id } }

    public mutating func removeProvider(_ providerId: String) {
        providerUserInfo = providers.filter { $0.providerId != providerId }
    }

    public mutating func clearPassword() {
        passwordHash = nil
        salt = nil
        importedPasswordHash = nil
        if email == nil || emailLinkSignin != true { removeProvider("password") }
    }

    /// Drops the address, its verification and email-link sign-in, and the password provider entry.
    public mutating func clearEmail() {
        email = nil
        emailVerified = nil
        emailLinkSignin = nil
        removeProvider("password")
    }
}
