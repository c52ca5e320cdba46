import Foundation

/// The kinds of app-verification credential the emulator issues and checks.
public enum AppCredentialKind: String, Codable, Sendable, CaseIterable {
    /// An APNs receipt/secret pair from `verifyIosClient` (the secret arrives by silent push).
    case apns = "APNS"
    /// A reCAPTCHA v2 token (`recaptchaToken`).
    case recaptchaV2 = "RECAPTCHA_V2"
    /// A reCAPTCHA Enterprise token (`captchaResponse`).
    case recaptchaEnterprise = "RECAPTCHA_ENTERPRISE"
    /// An Android Play Integrity token.
    case playIntegrity = "PLAY_INTEGRITY"
    /// A legacy SafetyNet token.
    case safetyNet = "SAFETY_NET"
}

/// A credential minted by the emulator (a receipt, or a token a test asked for).
public struct IssuedCredential: Codable, Sendable, Equatable {
    public var token: String
    public var kind: AppCredentialKind
    public var projectId: String
    public var tenantId: String?
    /// For APNs: the secret the push delivers.
    public var secret: String?
    public var appToken: String?
    /// False for tokens minted on purpose to be rejected.
    public var valid: Bool
    public var createdAt: Date
}

/// A silent push the backend would have sent after `verifyIosClient`.
public struct ApnsPush: Codable, Sendable, Equatable {
    public var id: Int64
    public var projectId: String
    public var tenantId: String?
    public var deviceToken: String
    public var isSandbox: Bool
    public var receipt: String
    public var secret: String
    public var sentAt: Date

    /// The userInfo the iOS SDK parses (`AuthNotificationManager`).
    public var payload: JSONValue {
        .object([
            "aps": .object(["content-available": 1]),
            "com.google.firebase.auth": .object(["receipt": .string(receipt), "secret": .string(secret)]),
        ])
    }

    public var wireValue: JSONValue {
        .object([
            "id": .string(String(id)), "deviceToken": .string(deviceToken), "isSandbox": .bool(isSandbox),
            "tenantId": tenantId.map { .string($0) } ?? .null, "sentAt": .string(sentAt.rfc3339Millis),
            "receipt": .string(receipt), "secret": .string(secret), "payload": payload,
            // `xcrun simctl push <device> <bundle-id> file.json` wants this file: the payload plus the target.
            "simctlPayload": payload.merged(with: .object(["Simulator Target Bundle": "<your bundle id>"])),
        ])
    }
}

/// What a test asked to fail next.
public enum InjectedFault: String, Codable, Sendable, CaseIterable {
    /// `verifyIosClient` answers, but the push never reaches the outbox (the push path times out).
    case apnsPush = "APNS_PUSH"
    /// The next app-credential checks fail as if the credential were bad.
    case credential = "CREDENTIAL"
    /// The next Game Center sign-ins fail as if Apple's signature were bad.
    case gameCenter = "GAME_CENTER"

    /// The key a fault is armed under: the fault's name, or for one subject (a Game Center
    /// player) the name and the subject, `GAME_CENTER:G:1234`.
    public func key(subject: String?) -> String { subject.map { "\(rawValue):\($0)" } ?? rawValue }
}

/// Issued credentials, the APNs outbox and injected faults.
public protocol AppVerificationRepository {
    func saveCredential(_ credential: IssuedCredential) async throws
    func credential(_ token: String) async throws -> IssuedCredential?
    func insertPush(_ push: ApnsPush) async throws -> ApnsPush
    func listPushes(_ scope: Scope, afterId: Int64?, limit: Int?) async throws -> [ApnsPush]
    func deletePushes(_ scope: Scope) async throws
    /// Arms `count` faults under `key` (`InjectedFault.key(subject:)`); 0 disarms them.
    func setFault(_ scope: Scope, key: String, count: Int) async throws
    /// Uses one pending fault armed under `key`; true when one was pending.
    func takeFault(_ scope: Scope, key: String) async throws -> Bool
    /// Disarms every fault of the scope, whatever its subject.
    func clearFaults(_ scope: Scope) async throws
}

extension AppVerificationRepository {
    func setFault(_ scope: Scope, _ fault: InjectedFault, count: Int) async throws {
        try await setFault(scope, key: fault.key(subject: nil), count: count)
    }

    func takeFault(_ scope: Scope, _ fault: InjectedFault) async throws -> Bool {
        try await takeFault(scope, key: fault.key(subject: nil))
    }
}
