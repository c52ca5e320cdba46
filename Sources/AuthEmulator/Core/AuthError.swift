/// The one error type of the emulator: a wire `CODE`, an optional human detail and the HTTP
/// class it belongs to. The HTTP layer renders it once, in the Identity Toolkit envelope.
public struct AuthError: Error, Equatable, Sendable, CustomStringConvertible {
    /// How the error is rendered: firebase-tools distinguishes these classes by status and reason.
    public enum Kind: Sendable, Equatable {
        /// A handler assertion: HTTP 400, no `status`, reason `invalid`.
        case badRequest
        /// A malformed or mistyped body: HTTP 400, status `INVALID_ARGUMENT`.
        case invalidArgument(reason: String)
        /// HTTP 401 `UNAUTHENTICATED` (a Bearer token that is not the admin credential).
        case unauthenticated
        /// HTTP 403 `PERMISSION_DENIED` (no API key).
        case permissionDenied
        /// HTTP 404 `NOT_FOUND`.
        case notFound
        /// HTTP 413: the body is larger than the configured limit.
        case payloadTooLarge
        /// HTTP 501 `NOT_IMPLEMENTED`.
        case notImplemented
        /// HTTP 503 `UNAVAILABLE`: the store cannot take writes right now.
        case unavailable
        /// HTTP 500 `INTERNAL`.
        case internalError
    }

    public var code: String
    public var detail: String?
    public var kind: Kind

    public init(_ code: String, _ detail: String? = nil, kind: Kind = .badRequest) {
        self.code = code
        self.detail = detail
        self.kind = kind
    }

    /// The wire message: `CODE` or `CODE : detail` (JS splits on the exact `" : "`).
    public var message: String {
        switch kind {
        case .badRequest:
            guard let detail, !detail.isEmpty else { return code }
            return "\(code) : \(detail)"
        default:
            return detail ?? code
        }
    }

    public var description: String { message }
}

extension AuthError {
    public static func invalidJSON(_ detail: String) -> AuthError {
        AuthError(
            "INVALID_ARGUMENT", "Invalid JSON payload received. \(detail)", kind: .invalidArgument(reason: "invalid"))
    }
    public static func malformedJSON(_ detail: String) -> AuthError {
        AuthError(
            "INVALID_ARGUMENT", "Invalid JSON payload received. \(detail)", kind: .invalidArgument(reason: "parseError")
        )
    }
    public static func notImplemented(_ operation: String) -> AuthError {
        AuthError("NOT_IMPLEMENTED", "\(operation) is not implemented in the Auth Emulator.", kind: .notImplemented)
    }
    public static let missingAPIKey = AuthError(
        "PERMISSION_DENIED", "The request is missing a valid API key.", kind: .permissionDenied)
    public static let invalidCredentials = AuthError(
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        kind: .unauthenticated)
    public static let routeNotFound = AuthError("NOT_FOUND", "Not Found", kind: .notFound)
    public static let adminCredentialOffLoopback = AuthError(
        "PERMISSION_DENIED",
        "The daemon listens beyond loopback: this endpoint needs the admin credential (Authorization: Bearer …).",
        kind: .permissionDenied)
    public static let bodyTooLarge = AuthError(
        "PAYLOAD_TOO_LARGE", "The request body exceeds the configured limit.", kind: .payloadTooLarge)
    /// A request the HTTP parser refused (answered before the connection closes).
    public static func malformedHTTP(_ detail: String) -> AuthError {
        AuthError("INVALID_HTTP_REQUEST", detail)
    }
    public static func storeUnavailable(_ detail: String) -> AuthError {
        AuthError("UNAVAILABLE", "The emulator's database cannot be used: \(detail)", kind: .unavailable)
    }

    /// A request without the admin credential that names a project or reaches an admin operation.
    public static let adminCredentialRequired = AuthError(
        "INSUFFICIENT_PERMISSION", "Only authenticated requests can specify target_project_id.")
    public static let adminOnlyOperation = AuthError("ADMIN_ONLY_OPERATION")
    public static let claimsTooLarge = AuthError("CLAIMS_TOO_LARGE")
    public static let duplicateLocalId = AuthError("DUPLICATE_LOCAL_ID")
    public static let emailExists = AuthError("EMAIL_EXISTS")
    public static let emailNotFound = AuthError("EMAIL_NOT_FOUND")
    public static let insufficientPermission = AuthError("INSUFFICIENT_PERMISSION")
    public static let invalidClaims = AuthError("INVALID_CLAIMS")
    public static let invalidEmail = AuthError("INVALID_EMAIL")
    public static let invalidIdToken = AuthError("INVALID_ID_TOKEN")
    public static let invalidLoginCredentials = AuthError("INVALID_LOGIN_CREDENTIALS")
    public static let invalidOobCode = AuthError("INVALID_OOB_CODE")
    public static let expiredOobCode = AuthError("EXPIRED_OOB_CODE")
    public static let invalidPassword = AuthError("INVALID_PASSWORD")
    public static let invalidPhoneNumber = AuthError("INVALID_PHONE_NUMBER", "Invalid format.")
    public static let invalidRefreshToken = AuthError("INVALID_REFRESH_TOKEN")
    public static let missingEmail = AuthError("MISSING_EMAIL")
    public static let missingIdToken = AuthError("MISSING_ID_TOKEN")
    public static let missingLocalId = AuthError("MISSING_LOCAL_ID")
    public static let missingOobCode = AuthError("MISSING_OOB_CODE")
    public static let missingPassword = AuthError("MISSING_PASSWORD")
    public static let missingRefreshToken = AuthError("MISSING_REFRESH_TOKEN")
    public static let operationNotAllowed = AuthError("OPERATION_NOT_ALLOWED")
    public static let passwordLoginDisabled = AuthError("PASSWORD_LOGIN_DISABLED")
    public static let phoneNumberExists = AuthError("PHONE_NUMBER_EXISTS")
    public static let projectDisabled = AuthError("PROJECT_DISABLED")
    public static let tenantIdMismatch = AuthError("TENANT_ID_MISMATCH")
    /// A tenant deleted through the API (production; one never created is made on first use).
    public static let tenantNotFound = AuthError("TENANT_NOT_FOUND")
    public static let tokenExpired = AuthError("TOKEN_EXPIRED")
    public static let unsupportedTenantOperation = AuthError("UNSUPPORTED_TENANT_OPERATION")
    public static let userDisabled = AuthError("USER_DISABLED")
    public static let userNotFound = AuthError("USER_NOT_FOUND")
    public static let weakPassword = AuthError("WEAK_PASSWORD", "Password should be at least 6 characters")
    public static func forbiddenClaim(_ name: String) -> AuthError { AuthError("FORBIDDEN_CLAIM", name) }
    public static func missing(_ code: String) -> AuthError { AuthError(code) }
}
