import AuthEmulatorTesting
import Foundation
import MCP

/// Runs the tools of `catalog` through the AuthEmulatorTesting helpers. A failing tool answers an
/// error result with the daemon's `CODE : message`; it never ends the server.
struct EmulatorTools: Sendable {
    let emulator: AuthEmulator

    func call(_ name: String, arguments: [String: Value]) async -> CallTool.Result {
        do {
            guard let tool = Self.catalog.first(where: { $0.name == name }) else {
                throw AuthEmulatorError(status: 0, code: "UNKNOWN_TOOL", message: "no tool named \(name)")
            }
            let input = try ToolArguments(arguments, schema: tool.inputSchema)
            let output = try await run(name, input)
            return try .init(
                content: [.text(text: Self.text(of: output), annotations: nil, _meta: nil)], structuredContent: output,
                isError: false)
        } catch let error as AuthEmulatorError {
            return Self.failure("\(error.code) : \(error.message)")
        } catch {
            return Self.failure("INTERNAL : \(error)")
        }
    }

    private static func failure(_ text: String) -> CallTool.Result {
        .init(content: [.text(text: text, annotations: nil, _meta: nil)], isError: true)
    }

    private func run(_ name: String, _ input: ToolArguments) async throws -> Value {
        switch name {
        case "list_users":
            return try Value(
                await emulator.listUsers(
                    maxResults: try input.integer("maxResults") ?? 100, pageToken: try input.string("pageToken")))
        case "get_user": return try Value(await user(input))
        case "create_user": return try await createUser(input)
        case "delete_user":
            let uid = try input.required(input.string("uid"), "uid")
            try await emulator.deleteUser(uid: uid)
            return ["deleted": .string(uid)]
        case "latest_sms_code":
            return try Value(
                await emulator.latestSms(
                    to: try input.string("phoneNumber"), purpose: try input.string("purpose"),
                    timeout: try input.number("waitSeconds") ?? 10))
        case "totp_code": return ["code": .string(try await totpCode(input))]
        case "email_action_links":
            return ["links": try Value(await emulator.emailActionLinks(for: try input.string("email")))]
        case "apns_pushes": return ["apnsPushes": .array(try await emulator.apnsPushes().map(Self.value))]
        default: return try await configure(name, input)
        }
    }

    /// The tools that change settings or state.
    private func configure(_ name: String, _ input: ToolArguments) async throws -> Value {
        switch name {
        case "set_test_phone_numbers":
            let numbers = try input.required(input.stringMap("numbers"), "numbers")
            try await emulator.setTestPhoneNumbers(numbers)
            return ["testPhoneNumbers": .object(numbers.mapValues { .string($0) })]
        case "set_mfa":
            let sms = try input.bool("sms") ?? true
            let totp = try input.bool("totp") ?? false
            let window = try input.integer("adjacentIntervals") ?? 5
            try await emulator.setMFA(sms: sms, totp: totp, adjacentIntervals: window)
            return ["sms": .bool(sms), "totp": .bool(totp), "adjacentIntervals": .int(window)]
        case "advance_clock":
            let now = try await emulator.advanceClock(by: try input.required(input.number("seconds"), "seconds"))
            return ["now": .string(Self.rfc3339(now))]
        case "freeze_clock":
            let time = try input.string("time").map { text in
                guard let date = Self.parseRFC3339(text) else {
                    throw ToolArguments.invalid("time must be an RFC 3339 date-time, e.g. 2030-01-01T00:00:00Z")
                }
                return date
            }
            return ["now": .string(Self.rfc3339(try await emulator.freezeClock(at: time))), "frozen": true]
        case "resume_clock":
            return ["now": .string(Self.rfc3339(try await emulator.resumeClock())), "frozen": false]
        case "import_accounts":
            let users = try input.required(input.json("users"), "users")
            let accounts = Data(#"{"users":"#.utf8) + users + Data("}".utf8)
            let count = try await emulator.importState(accountsJSON: accounts, configJSON: try input.json("config"))
            return ["importedCount": .int(count)]
        default:
            try await emulator.reset()
            return ["reset": true]
        }
    }

    private func user(_ input: ToolArguments) async throws -> UserRecord {
        let keys = [
            ("uid", try input.string("uid")), ("email", try input.string("email")),
            ("phoneNumber", try input.string("phoneNumber")),
        ].filter { $0.1 != nil }
        guard keys.count == 1, let (key, value) = keys.first, let value else {
            throw ToolArguments.invalid("give exactly one of uid, email and phoneNumber")
        }
        switch key {
        case "uid": return try await emulator.user(uid: value)
        case "email": return try await emulator.user(email: value)
        default: return try await emulator.user(phoneNumber: value)
        }
    }

    private func createUser(_ input: ToolArguments) async throws -> Value {
        let uid = try await emulator.createUser(
            email: try input.string("email"), password: try input.string("password"),
            phoneNumber: try input.string("phoneNumber"), displayName: try input.string("displayName"),
            emailVerified: try input.bool("emailVerified") ?? false, uid: try input.string("uid"))
        return ["localId": .string(uid)]
    }

    /// Of a secret: computed here at the daemon's (possibly moved) time. Of a user: asked of the daemon.
    private func totpCode(_ input: ToolArguments) async throws -> String {
        switch (try input.string("secret"), try input.string("uid")) {
        case (let secret?, nil): return try emulator.totpCode(secret: secret, at: try await emulator.clockNow())
        case (nil, let uid?):
            return try await emulator.totpCode(localId: uid, enrollmentId: try input.string("enrollmentId"))
        default: throw ToolArguments.invalid("give exactly one of secret and uid")
        }
    }

    private static func value(_ push: ApnsPush) -> Value {
        func json(_ text: String) -> Value {
            (try? JSONDecoder().decode(Value.self, from: Data(text.utf8))) ?? .string(text)
        }
        return [
            "id": .string(push.id), "deviceToken": .string(push.deviceToken), "receipt": .string(push.receipt),
            "secret": .string(push.secret), "payload": json(push.payloadJSON), "simctlPayload": json(push.simctlJSON),
        ]
    }

    private static func text(of value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// (Not ISO8601DateFormatter: it traps on a host whose zoneinfo folder lacks GMT.)
    private static func rfc3339(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// An RFC 3339 time with or without a fraction of a second.
    private static func parseRFC3339(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
