import AuthEmulator
import AuthEmulatorHTTP
import AuthEmulatorSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Builds exactly what `serve` builds, through `makeEmulator` and `buildApplication` (with an
/// in-memory store, a manual clock, seeded randomness and, where a test gives one, a fake
/// blocking-function transport) and drives it through `app.test(.router)`.
struct Harness {
    let clock = ManualClock()
    let config: AppConfig
    let store: SQLiteStore
    /// Of the seeded randomness (two harnesses on one database file need different ones).
    let seed: UInt64

    init(
        project: String = "example", store: SQLiteStore? = nil, host: String = "127.0.0.1",
        singleProject: SingleProjectMode = .off, seed: UInt64 = 42, adminToken: String = "owner",
        maxBodyBytes: Int = 64 * 1024
    ) throws {
        self.seed = seed
        var config = AppConfig()
        config.host = host
        config.singleProjectMode = singleProject
        config.projectId = project
        config.ephemeral = true
        config.maxBodyBytes = maxBodyBytes
        config.adminToken = adminToken
        // Events go where a test says (`run(functionsEmulator:)`), never to a hub on this machine.
        config.functionsEmulator = .none
        self.config = config
        self.store = try store ?? SQLiteStore()
    }

    struct Reply {
        let status: Int
        let json: JSONValue
        let headers: HTTPFields

        var errorMessage: String? { json.value(at: "error.message")?.stringValue }
        subscript(_ path: String) -> JSONValue? { json.value(at: path) }
        func string(_ path: String) -> String { json.value(at: path)?.stringValue ?? "<missing \(path)>" }

        /// A setup step's reply, checked: a setup the emulator refused fails the test where it
        /// happened instead of being discarded.
        @discardableResult
        func ok(sourceLocation: SourceLocation = #_sourceLocation) -> Reply {
            #expect((200..<300).contains(status), "setup answered \(status): \(json)", sourceLocation: sourceLocation)
            return self
        }
    }

    /// Runs `body` against a fresh application; every call goes through the real router.
    func run(
        functions: (any BlockingFunctionTransport)? = nil, signedTokens: Bool = false,
        passwordCheck: PasswordCheck = .pooled, functionsEmulator: (any FunctionsEmulatorLink)? = nil,
        _ body: @Sendable @escaping (Client) async throws -> Void
    ) async throws {
        var config = self.config
        if signedTokens { config.tokenSigning = .rs256 }
        let emulator = try await makeEmulator(
            config: config, store: store, clock: clock, random: SeededRandomSource(seed: seed), functions: functions,
            passwordCheck: passwordCheck, functionsEmulator: functionsEmulator)
        let app = buildApplication(config: config, emulator: emulator)
        try await app.test(.router) { client in try await body(Client(client: client)) }
    }

    struct Client: Sendable {
        let client: any TestClientProtocol

        func call(
            _ method: HTTPRequest.Method, _ path: String, _ body: String? = nil, admin: Bool = false,
            key: Bool = true, headers extra: HTTPFields = [:]
        ) async throws -> Reply {
            var uri = path
            if key { uri += (uri.contains("?") ? "&" : "?") + "key=fake-api-key" }
            var headers = extra
            if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
            if admin { headers[.authorization] = "Bearer owner" }
            return try await client.execute(
                uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
            ) { response in
                let text = String(buffer: response.body)
                let json =
                    text.isEmpty ? JSONValue.object([:]) : (try? JSONValue.parse(Data(text.utf8))) ?? .string(text)
                return Reply(status: Int(response.status.code), json: json, headers: response.headers)
            }
        }

        /// POST `/identitytoolkit.googleapis.com/v1/<op>` with a JSON body.
        func v1(_ operation: String, _ body: [String: JSONValue], admin: Bool = false) async throws -> Reply {
            try await call(
                .post, "/identitytoolkit.googleapis.com/v1/\(operation)", JSONValue.object(body).jsonString(),
                admin: admin)
        }

        func signUp(_ email: String, _ password: String = "secret123") async throws -> Reply {
            try await v1(
                "accounts:signUp", ["email": .string(email), "password": .string(password), "returnSecureToken": true])
        }
    }
}

extension String {
    /// The payload of a JWT as JSON.
    var jwtPayload: JSONValue {
        let parts = split(separator: ".", omittingEmptySubsequences: false)
        var base64 = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return (try? JSONValue.parse(Data(base64Encoded: base64) ?? Data())) ?? .null
    }
}
