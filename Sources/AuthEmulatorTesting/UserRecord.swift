import Foundation

/// One account as the Admin APIs return it (`accounts:lookup`, `accounts:batchGet`); the fields a
/// test reads. Times are the daemon's strings of epoch milliseconds.
public struct UserRecord: Codable, Sendable, Equatable {
    public let localId: String
    public let email: String?
    public let emailVerified: Bool?
    public let phoneNumber: String?
    public let displayName: String?
    public let disabled: Bool?
    public let tenantId: String?
    public let createdAt: String?
    public let lastLoginAt: String?
    /// The linked providers (`password`, `phone`, `google.com`, …).
    public let providerUserInfo: [Provider]?
    /// Enrolled second factors.
    public let mfaInfo: [SecondFactor]?

    public struct Provider: Codable, Sendable, Equatable {
        public let providerId: String
        public let rawId: String?
        public let email: String?
        public let phoneNumber: String?
    }

    public struct SecondFactor: Codable, Sendable, Equatable {
        public let mfaEnrollmentId: String
        public let displayName: String?
        /// Set for an SMS factor.
        public let phoneInfo: String?
        /// Set (empty) for a TOTP factor.
        public let totpInfo: TotpInfo?
        public let enrolledAt: String?
    }

    public struct TotpInfo: Codable, Sendable, Equatable {}
}

/// One page of `listUsers`.
public struct UserPage: Codable, Sendable, Equatable {
    public let users: [UserRecord]
    /// Pass to the next `listUsers` call; nil on the last page.
    public let nextPageToken: String?

    enum CodingKeys: String, CodingKey { case users, nextPageToken }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        users = try container.decodeIfPresent([UserRecord].self, forKey: .users) ?? []
        let token = try container.decodeIfPresent(String.self, forKey: .nextPageToken)
        nextPageToken = token?.isEmpty == false ? token : nil
    }
}

/// One email action (the OOB outbox): its link opens the emulator's action page.
public struct EmailActionLink: Codable, Sendable, Equatable {
    public let email: String
    /// `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN`, …
    public let requestType: String
    public let oobCode: String
    public let oobLink: String
}
