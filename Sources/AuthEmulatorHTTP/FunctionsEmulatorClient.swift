import AsyncHTTPClient
import AuthEmulator
import Foundation
import NIOCore
import Synchronization

/// Reaches the Cloud Functions emulator over HTTP with swift-server/async-http-client: an address
/// given (`functions_emulator`, or firebase.json's `emulators.functions`), or one found as
/// firebase-tools' own emulators find each other. The Emulator Suite's hub writes
/// `hub-<project>.json` into the temporary folder (`$TMPDIR`, else `/tmp`) with the origins it
/// listens on, and answers `GET /emulators` with each running emulator's host and port;
/// processes that firebase-tools starts get the hub's address in `FIREBASE_EMULATOR_HUB`. A
/// project's answer is kept for `lookInterval`, so a Functions emulator started (or moved) after
/// the daemon is found by the next event after it.
public final class FunctionsEmulatorClient: FunctionsEmulatorLink {
    public enum Source: Sendable {
        case fixed(FunctionsEmulatorAddress)
        /// Look through `FIREBASE_EMULATOR_HUB` (when set), then the hub's locator file in `directory`.
        case discover(directory: String, environmentHub: String?)
    }

    static let lookInterval: Duration = .seconds(3)
    static let hubTimeout: TimeAmount = .seconds(2)
    static let sendTimeout: TimeAmount = .seconds(10)
    static let maxHubAnswerBytes = 1 << 20

    let source: Source
    private let client = Mutex<HTTPClient?>(nil)
    private let looks = Mutex<[String: Look]>([:])

    struct Look {
        let address: FunctionsEmulatorAddress?
        let at: ContinuousClock.Instant
    }

    public init(_ source: Source) {
        self.source = source
    }

    deinit {
        client.withLock { $0 }?.shutdown { _ in }
    }

    public var startupDescription: String {
        switch source {
        case .fixed(let address):
            return
                "auth events (user.create, user.delete) go to the Functions emulator at \(address.origin) (\(address.foundThrough))"
        case .discover(let directory, let hub):
            let env = hub.map { "FIREBASE_EMULATOR_HUB=\($0), then " } ?? ""
            return
                "auth events (user.create, user.delete) go to a Functions emulator listed by the Emulator Suite hub (\(env)\(directory)/hub-<project>.json), looked for when an event is to be sent"
        }
    }

    public func locate(projectId: String, lookAgain: Bool) async -> FunctionsEmulatorAddress? {
        guard case .discover(let directory, let environmentHub) = source else {
            if case .fixed(let address) = source { return address }
            return nil
        }
        let now = ContinuousClock.now
        if !lookAgain, let look = looks.withLock({ $0[projectId] }), now - look.at < Self.lookInterval {
            return look.address
        }
        let found = await discover(projectId: projectId, directory: directory, environmentHub: environmentHub)
        looks.withLock { looks in
            if looks.count >= 1_000, looks[projectId] == nil { looks.removeAll() }
            looks[projectId] = Look(address: found, at: now)
        }
        return found
    }

    public func send(_ event: AuthEvent, to address: FunctionsEmulatorAddress) async throws -> Int {
        var request = HTTPClientRequest(url: address.origin + event.path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "authemu/\(BuildVersion.number)")
        request.body = .bytes(ByteBuffer(bytes: event.body))
        let response = try await httpClient().execute(request, timeout: Self.sendTimeout)
        _ = try? await response.body.collect(upTo: 64 << 10)
        return Int(response.status.code)
    }

    /// The hubs to ask, in order, and what each asks them about.
    func hubs(projectId: String, directory: String, environmentHub: String?) -> [(origin: String, via: String)] {
        var hubs: [(String, String)] = []
        if let environmentHub, let origin = FunctionsEmulatorAddress.origin(environmentHub) {
            hubs.append((origin, "FIREBASE_EMULATOR_HUB"))
        }
        // A project id names a file only when it cannot name another folder.
        guard !projectId.isEmpty, projectId.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        else { return hubs }
        let file = (directory as NSString).appendingPathComponent("hub-\(projectId).json")
        guard let data = FileManager.default.contents(atPath: file), data.count <= Self.maxHubAnswerBytes,
            let origins = (try? JSONValue.parse(data))?["origins"]?.arrayValue
        else { return hubs }
        for case .string(let text) in origins {
            if let origin = FunctionsEmulatorAddress.origin(text) { hubs.append((origin, file)) }
        }
        return hubs
    }

    private func discover(projectId: String, directory: String, environmentHub: String?) async
        -> FunctionsEmulatorAddress?
    {
        for hub in hubs(projectId: projectId, directory: directory, environmentHub: environmentHub) {
            if let address = await ask(hub: hub.origin, via: hub.via) { return address }
        }
        return nil
    }

    /// The `functions` entry of the hub's `GET /emulators`, if it answers with one.
    private func ask(hub: String, via: String) async -> FunctionsEmulatorAddress? {
        var request = HTTPClientRequest(url: hub + "/emulators")
        request.headers.add(name: "User-Agent", value: "authemu/\(BuildVersion.number)")
        guard let response = try? await httpClient().execute(request, timeout: Self.hubTimeout),
            response.status == .ok,
            let body = try? await response.body.collect(upTo: Self.maxHubAnswerBytes),
            let functions = (try? JSONValue.parse(Data(buffer: body)))?["functions"],
            let host = functions["host"]?.stringValue, let port = functions["port"]?.doubleValue,
            let origin = FunctionsEmulatorAddress.origin("\(FunctionsEmulatorAddress.connectable(host)):\(Int(port))")
        else { return nil }
        return FunctionsEmulatorAddress(
            origin: origin, foundThrough: "listed by the Emulator Suite hub at \(hub), from \(via)")
    }

    private func httpClient() -> HTTPClient {
        client.withLock { client in
            if let client { return client }
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            // A Functions emulator that is down is found out quickly; the event waits and is retried.
            configuration.timeout.connect = .seconds(2)
            let made = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            client = made
            return made
        }
    }
}

/// Where auth events go, as configured: `functions_emulator` (flag, variable, YAML key) or
/// firebase.json's `emulators.functions`; else found through the hub; `none` sends nothing.
public enum FunctionsEmulatorSetting: Sendable, Equatable {
    case discover
    case none
    case fixed(FunctionsEmulatorAddress)

    /// The link that sends the events (nil: `none`).
    public func link(environment: [String: String] = ProcessInfo.processInfo.environment) -> FunctionsEmulatorClient? {
        switch self {
        case .none: return nil
        case .fixed(let address): return FunctionsEmulatorClient(.fixed(address))
        case .discover:
            // Node's os.tmpdir(): $TMPDIR without a trailing slash, else /tmp.
            var directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
            return FunctionsEmulatorClient(
                .discover(directory: directory, environmentHub: environment["FIREBASE_EMULATOR_HUB"]))
        }
    }
}
