import Foundation

/// A TOTP enrollment between `mfaEnrollment:start` and `:finalize`.
public struct TotpEnrollmentSession: Codable, Sendable, Equatable {
    public var sessionInfo: String
    public var projectId: String
    public var tenantId: String?
    public var localId: String
    /// The shared secret, base32.
    public var secret: String
    public var expiresAt: Date
    /// Wrong codes given so far (nil: none).
    public var attempts: Int?
}

/// `v2/accounts/mfaEnrollment:start`.
public struct StartMfaEnrollmentRequest: Decodable, Sendable {
    public typealias PhoneInfo = PhoneCodeRequest
    public var idToken: String?
    public var phoneEnrollmentInfo: PhoneInfo?
    public var totpEnrollmentInfo: JSONValue?
}

/// `v2/accounts/mfaEnrollment:finalize`.
public struct FinalizeMfaEnrollmentRequest: Decodable, Sendable {
    public struct PhoneVerification: Decodable, Sendable {
        public var sessionInfo: String?
        public var code: String?
        public var androidVerificationProof: JSONValue?
        public var phoneNumber: String?
    }
    public struct TotpVerification: Decodable, Sendable {
        public var sessionInfo: String?
        public var verificationCode: String?
    }
    public var idToken: String?
    public var displayName: String?
    public var phoneVerificationInfo: PhoneVerification?
    public var totpVerificationInfo: TotpVerification?
}

/// `v2/accounts/mfaSignIn:start`.
public struct StartMfaSignInRequest: Decodable, Sendable {
    public var mfaPendingCredential: String?
    public var mfaEnrollmentId: String?
    public var phoneSignInInfo: StartMfaEnrollmentRequest.PhoneInfo?
}

/// `v2/accounts/mfaSignIn:finalize`.
public struct FinalizeMfaSignInRequest: Decodable, Sendable {
    public struct TotpVerification: Decodable, Sendable {
        public var verificationCode: String?
    }
    public var mfaPendingCredential: String?
    public var mfaEnrollmentId: String?
    public var phoneVerificationInfo: FinalizeMfaEnrollmentRequest.PhoneVerification?
    public var totpVerificationInfo: TotpVerification?
}

/// `v2/accounts/mfaEnrollment:withdraw`.
public struct WithdrawMfaRequest: Decodable, Sendable {
    public var idToken: String?
    public var mfaEnrollmentId: String?
}

extension AuthError {
    public static let smsMfaNotEnabled = AuthError("OPERATION_NOT_ALLOWED", "SMS based MFA not enabled.")
    public static let totpMfaNotEnabled = AuthError("OPERATION_NOT_ALLOWED", "TOTP based MFA not enabled.")
    public static let unsupportedFirstFactor = AuthError(
        "UNSUPPORTED_FIRST_FACTOR", "MFA is not available for the given first factor.")
    public static let unverifiedEmail = AuthError(
        "UNVERIFIED_EMAIL", "Need to verify email first before enrolling second factors.")
    public static let secondFactorExists = AuthError(
        "SECOND_FACTOR_EXISTS", "Phone number already enrolled as second factor for this account.")
    public static let secondFactorLimitExceeded = AuthError("SECOND_FACTOR_LIMIT_EXCEEDED")
    public static let mfaEnrollmentNotFound = AuthError("MFA_ENROLLMENT_NOT_FOUND")
    public static let invalidMfaPendingCredential = AuthError("INVALID_MFA_PENDING_CREDENTIAL")
    public static let providerNotSupported = AuthError("INVALID_ARGUMENT", "MFA provider not supported!")
}
