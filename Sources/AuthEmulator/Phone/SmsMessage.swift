import Foundation

/// Why an SMS was sent.
public enum SmsPurpose: String, Codable, Sendable, CaseIterable {
    /// `accounts:sendVerificationCode`: phone sign-in, link, update or reauthentication.
    case signIn = "SIGN_IN"
    case link = "LINK"
    case update = "UPDATE"
    case reauth = "REAUTH"
    case mfaEnrollment = "MFA_ENROLLMENT"
    case mfaSignIn = "MFA_SIGN_IN"
}

/// Where an SMS session stands.
public enum SmsStatus: String, Codable, Sendable {
    case pending = "PENDING"
    case used = "USED"
    case expired = "EXPIRED"
    case superseded = "SUPERSEDED"
    case locked = "LOCKED"
}

/// One SMS the emulator "delivered": the outbox record, which is also the verification session
/// that `sessionInfo` names.
public struct SmsMessage: Codable, Sendable, Equatable {
    public var id: Int64
    public var projectId: String
    public var tenantId: String?
    public var phoneNumber: String
    public var code: String
    public var text: String
    public var purpose: SmsPurpose
    /// For first-factor codes, the operation that consumed it (LINK, UPDATE, REAUTH or SIGN_IN).
    public var usedFor: SmsPurpose?
    public var sessionInfo: String
    public var sentAt: Date
    public var expiresAt: Date
    public var status: SmsStatus
    public var testNumber: Bool
    public var attempts: Int
    /// Which app-verification path the request passed (none, apns, recaptcha, …, test-number).
    public var verificationPath: String
    /// For MFA codes: the user and enrollment the session belongs to.
    public var localId: String?
    public var mfaEnrollmentId: String?
    public var clientIP: String?

    public var scope: Scope { Scope(projectId: projectId, tenantId: tenantId) }

    /// The outbox view (`GET …/smsMessages`).
    public var wireValue: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(String(id)), "phoneNumber": .string(phoneNumber), "code": .string(code),
            "text": .string(text), "purpose": .string(purpose.rawValue), "sessionInfo": .string(sessionInfo),
            "tenantId": tenantId.map { .string($0) } ?? .null, "sentAt": .string(sentAt.rfc3339Millis),
            "expiresAt": .string(expiresAt.rfc3339Millis), "status": .string(status.rawValue),
            "testNumber": .bool(testNumber), "verificationPath": .string(verificationPath),
            "attempts": .number(Double(attempts)),
        ]
        if let usedFor { object["usedFor"] = .string(usedFor.rawValue) }
        if let mfaEnrollmentId { object["mfaEnrollmentId"] = .string(mfaEnrollmentId) }
        return .object(object)
    }
}

/// A filter over the outbox.
public struct SmsQuery: Sendable {
    public var phoneNumber: String?
    public var purpose: SmsPurpose?
    public var afterId: Int64?
    public var limit: Int?
    public var statuses: Set<SmsStatus>?

    public init(
        phoneNumber: String? = nil, purpose: SmsPurpose? = nil, afterId: Int64? = nil, limit: Int? = nil,
        statuses: Set<SmsStatus>? = nil
    ) {
        self.phoneNumber = phoneNumber
        self.purpose = purpose
        self.afterId = afterId
        self.limit = limit
        self.statuses = statuses
    }
}

/// A proof that someone verified a phone number that belongs to another account; it signs in
/// to that account (`{temporaryProof, phoneNumber}`).
public struct TemporaryProof: Codable, Sendable, Equatable {
    public var proof: String
    public var projectId: String
    public var tenantId: String?
    public var phoneNumber: String
    public var expiresAt: Date
}
