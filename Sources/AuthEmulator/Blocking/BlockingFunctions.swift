import Foundation

/// The events Identity Platform (and firebase-tools) calls blocking functions for.
public enum BlockingEvent: String, Sendable, CaseIterable {
    case beforeCreate, beforeSignIn
    /// Production's events before an email link or an SMS code goes out (firebase-functions
    /// `beforeEmailSent`, `beforeSmsSent`); firebase-tools has neither.
    case beforeSendEmail, beforeSendSms
}

/// The project config's `blockingFunctions`: a function URI per event and which IdP credentials
/// are forwarded. Tenants use their project's.
public struct BlockingFunctionsConfig: Sendable, Equatable {
    public var triggers: [BlockingEvent: String] = [:]
    public var forwardIdToken = false
    public var forwardAccessToken = false
    public var forwardRefreshToken = false

    public init() {}

    init(_ value: JSONValue?) {
        for event in BlockingEvent.allCases {
            if let uri = value?.value(at: "triggers.\(event.rawValue).functionUri")?.stringValue, !uri.isEmpty {
                triggers[event] = uri
            }
        }
        forwardIdToken = value?.value(at: "forwardInboundCredentials.idToken")?.boolValue ?? false
        forwardAccessToken = value?.value(at: "forwardInboundCredentials.accessToken")?.boolValue ?? false
        forwardRefreshToken = value?.value(at: "forwardInboundCredentials.refreshToken")?.boolValue ?? false
    }
}

/// How a blocking function is reached: one POST of a JSON body, answered within `timeout`.
/// The daemon's implementation speaks HTTP/1.1 (AuthEmulatorHTTP); tests inject their own.
public protocol BlockingFunctionTransport: Sendable {
    func post(url: String, json body: [UInt8], timeout: Duration) async throws -> BlockingFunctionReply
}

public struct BlockingFunctionReply: Sendable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Why a transport got no reply.
public enum BlockingFunctionTransportError: Error, Sendable {
    case timedOut
    case unreachable(String)
}

/// What a sign-in tells its blocking functions besides the user (the JWT's `sign_in_*`,
/// `raw_user_info` and forwarded IdP credentials).
public struct BlockingSignInContext: Sendable {
    public var signInMethod: String
    public var signInSecondFactor: String?
    /// The IdP's profile, as the JSON string `rawUserInfo` of the sign-in response.
    public var rawUserInfo: String?
    /// A SAML assertion's attribute statements, serialized.
    public var signInAttributes: String?
    public var oauthIdToken: String?
    public var oauthAccessToken: String?
    public var clientIP: String?
    /// `email_type` of beforeSendEmail (`EMAIL_SIGN_IN`, `PASSWORD_RESET`) or `sms_type` of
    /// beforeSendSms (`SIGN_IN_OR_SIGN_UP`, `MULTI_FACTOR_SIGN_IN`, `MULTI_FACTOR_ENROLLMENT`).
    public var messageType: String?

    public init(signInMethod: String, signInSecondFactor: String? = nil, clientIP: String? = nil) {
        self.signInMethod = signInMethod
        self.signInSecondFactor = signInSecondFactor
        self.clientIP = clientIP
    }
}

/// Leaves a store transaction that reached a blocking function it has no answer for yet: the
/// transaction rolls back, the function is called, and the transaction runs again with the answer.
struct BlockingFunctionCall: Error, Sendable {
    var event: BlockingEvent
    var uri: String
    var user: UserRecord
    var scope: Scope
    var context: BlockingSignInContext
    var config: BlockingFunctionsConfig
}

/// The `userRecord` of a function's answer, restricted to its `updateMask` (firebase-tools'
/// modifiable fields: displayName, photoUrl, disabled, emailVerified, customClaims, and
/// sessionClaims for beforeSignIn).
struct BlockingFunctionAnswer: Sendable {
    var displayName: String??
    var photoUrl: String??
    var disabled: Bool?
    var emailVerified: Bool?
    /// The new `customAttributes` (nil inside: cleared), when the mask names customClaims.
    var customAttributes: String??
    var sessionClaims: [String: JSONValue] = [:]
    /// `recaptchaActionOverride: "BLOCK"`: a send event stops the message.
    var blocked = false

    func apply(to user: inout UserRecord) {
        if let displayName { user.displayName = displayName }
        if let photoUrl { user.photoUrl = photoUrl }
        if let disabled { user.disabled = disabled }
        if let emailVerified { user.emailVerified = emailVerified }
        if let customAttributes { user.customAttributes = customAttributes }
    }
}

/// The answers a transaction has so far, handed to each try of it.
public struct BlockingHooks: Sendable {
    var answers: [BlockingEvent: BlockingFunctionAnswer] = [:]

    /// Runs `event`'s function for `user` when the scope has one: applies the answer if an earlier
    /// try of this transaction got it, else leaves the transaction to call it. Returns the session
    /// claims for the tokens, or nil when no function is configured for the event.
    func run(
        _ event: BlockingEvent, user: inout UserRecord, settings: ScopeSettings, scope: Scope,
        context: BlockingSignInContext
    ) throws -> [String: JSONValue]? {
        guard let uri = settings.blockingFunctions.triggers[event] else { return nil }
        guard let answer = answers[event] else {
            throw BlockingFunctionCall(
                event: event, uri: uri, user: user, scope: scope, context: context, config: settings.blockingFunctions)
        }
        answer.apply(to: &user)
        return answer.sessionClaims
    }
}

extension BlockingHooks {
    /// beforeSendEmail / beforeSendSms before a link or a code is stored and "sent": the function
    /// sees the user (or, for a new sign-in, one with just the address) and the message type; an
    /// answer `recaptchaActionOverride: "BLOCK"` stops the message with this error, and nothing
    /// reaches the outbox. The answer changes no user field.
    func beforeSend(
        _ event: BlockingEvent, user: UserRecord, settings: ScopeSettings, scope: Scope, context: BlockingSignInContext
    ) throws {
        var shown = user
        guard try run(event, user: &shown, settings: settings, scope: scope, context: context) != nil else { return }
        if answers[event]?.blocked == true { throw Self.blockedMessage(event) }
    }

    static func blockedMessage(_ event: BlockingEvent) -> AuthError {
        AuthError(
            "BLOCKING_FUNCTION_ERROR_RESPONSE",
            "((The \(event.rawValue) function blocked the \(event == .beforeSendSms ? "SMS" : "email") (recaptchaActionOverride: BLOCK).))"
        )
    }

    /// beforeSignIn for a user about to be signed in, unless it is disabled or must still pass a
    /// second factor (firebase-tools calls it at `mfaSignIn:finalize` then). Session claims, or [:].
    func beforeSignIn(
        _ user: inout UserRecord, settings: ScopeSettings, scope: Scope, context: BlockingSignInContext
    ) throws -> [String: JSONValue] {
        if user.isDisabled || (settings.mfaEnabled && !user.enrollments.isEmpty) { return [:] }
        return try run(.beforeSignIn, user: &user, settings: settings, scope: scope, context: context) ?? [:]
    }

    /// beforeCreate and then beforeSignIn for a user about to be created. Session claims, or [:].
    func beforeCreateAndSignIn(
        _ user: inout UserRecord, settings: ScopeSettings, scope: Scope, context: BlockingSignInContext
    ) throws -> [String: JSONValue] {
        _ = try run(.beforeCreate, user: &user, settings: settings, scope: scope, context: context)
        return try beforeSignIn(&user, settings: settings, scope: scope, context: context)
    }
}

/// Random draws repeated exactly on a transaction's next try, so a user created after its
/// beforeCreate function answered has the uid the function was shown.
final class ReplayingRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private let source: any RandomSource
    private var draws: [[UInt8]] = []
    private var next = 0

    init(_ source: any RandomSource) { self.source = source }

    func rewind() { lock.withLock { next = 0 } }

    func bytes(_ count: Int) -> [UInt8] {
        lock.withLock {
            defer { next += 1 }
            if next < draws.count, draws[next].count == count { return draws[next] }
            let fresh = source.bytes(count)
            if next < draws.count { draws[next] = fresh } else { draws.append(fresh) }
            return fresh
        }
    }
}
