import Foundation

/// One SMS of the daemon's outbox.
public struct SmsMessage: Codable, Sendable, Equatable {
    public let id: String
    public let phoneNumber: String
    public let code: String
    public let purpose: String
    public let status: String
    public let sessionInfo: String
    public let sentAt: String
}

/// One push of the APNs outbox: what the iOS SDK receives, and the file `xcrun simctl push`
/// delivers to a simulator (its target bundle id still to fill in), both as JSON text.
public struct ApnsPush: Decodable, Sendable, Equatable {
    public let id: String
    public let deviceToken: String
    public let receipt: String
    public let secret: String
    /// The push's userInfo as JSON.
    public let payloadJSON: String
    /// `simctlPayload`: the payload plus `Simulator Target Bundle`.
    public let simctlJSON: String

    enum CodingKeys: String, CodingKey { case id, deviceToken, receipt, secret, payload, simctlPayload }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        deviceToken = try container.decode(String.self, forKey: .deviceToken)
        receipt = try container.decode(String.self, forKey: .receipt)
        secret = try container.decode(String.self, forKey: .secret)
        payloadJSON = try Self.text(container, .payload)
        simctlJSON = try Self.text(container, .simctlPayload)
    }

    private static func text(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> String {
        let value = try container.decode(AnyJSON.self, forKey: key)
        let data = try JSONSerialization.data(withJSONObject: value.object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

/// App verification of SMS requests (`emulatorSettings.appVerification`).
public enum AppVerification: String, Sendable {
    case off, enforce
}

/// The kinds of app credential the daemon mints.
public enum AppCredential: String, Sendable, CaseIterable {
    case recaptchaV2 = "RECAPTCHA_V2"
    case recaptchaEnterprise = "RECAPTCHA_ENTERPRISE"
    case playIntegrity = "PLAY_INTEGRITY"
    case safetyNet = "SAFETY_NET"
}

struct SmsOutbox: Decodable { let smsMessages: [SmsMessage] }
struct TotpAnswer: Decodable { let code: String }
struct ApnsPushes: Decodable { let apnsPushes: [ApnsPush] }
struct Minted: Decodable { let token: String }
struct Created: Decodable { let localId: String }
struct ClockAnswer: Decodable { let now: String }
struct Imported: Decodable {
    struct Refusal: Decodable {
        let index: Int
        let message: String
    }
    let importedCount: Int
    let error: [Refusal]?
}

/// Any JSON value, decoded into Foundation objects for re-serialising.
struct AnyJSON: Decodable {
    let object: Any

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            object = NSNull()
        } else if let value = try? container.decode(Bool.self) {
            object = value
        } else if let value = try? container.decode(Double.self) {
            object = value
        } else if let value = try? container.decode(String.self) {
            object = value
        } else if let value = try? container.decode([AnyJSON].self) {
            object = value.map(\.object)
        } else {
            object = try container.decode([String: AnyJSON].self).mapValues(\.object)
        }
    }
}
