import Foundation

/// The kind of an out-of-band email action (proto `OobReqType`, in proto number order).
public enum OobRequestType: String, WireEnum {
    case unspecified = "OOB_REQ_TYPE_UNSPECIFIED"
    case passwordReset = "PASSWORD_RESET"
    case oldEmailAgree = "OLD_EMAIL_AGREE"
    case newEmailAccept = "NEW_EMAIL_ACCEPT"
    case verifyEmail = "VERIFY_EMAIL"
    case recoverEmail = "RECOVER_EMAIL"
    case emailSignin = "EMAIL_SIGNIN"
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    case revertSecondFactorAddition = "REVERT_SECOND_FACTOR_ADDITION"

    /// `email_type` of production's beforeSendEmail, which covers these two kinds of email only.
    public var beforeSendEmailType: String? {
        switch self {
        case .passwordReset: "PASSWORD_RESET"
        case .emailSignin: "EMAIL_SIGN_IN"
        default: nil
        }
    }

    /// The `mode` of the `/emulator/action` link.
    public var actionMode: String {
        switch self {
        case .passwordReset: "resetPassword"
        case .verifyEmail: "verifyEmail"
        case .emailSignin: "signIn"
        case .verifyAndChangeEmail: "verifyAndChangeEmail"
        case .recoverEmail: "recoverEmail"
        default: rawValue
        }
    }
}

/// An issued email action code, as `GET /emulator/v1/projects/{p}/oobCodes` lists it.
public struct OobCode: Codable, Sendable, Equatable {
    public var email: String
    public var newEmail: String?
    public var requestType: OobRequestType
    public var oobCode: String
    public var oobLink: String
    public var localId: String?
    public var createdAt: Double?

    public init(
        email: String, newEmail: String? = nil, requestType: OobRequestType, oobCode: String, oobLink: String,
        localId: String? = nil, createdAt: Double? = nil
    ) {
        self.email = email
        self.newEmail = newEmail
        self.requestType = requestType
        self.oobCode = oobCode
        self.oobLink = oobLink
        self.localId = localId
        self.createdAt = createdAt
    }
}
