import AuthEmulator
import AuthEmulatorHTTP
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// Runs `exec`'s command beside the daemon: the listeners and the command are services of one
/// group, the command starts when the primary listener accepts connections, and its end stops the
/// group. A listener that fails first ends the group before the command ever starts.
struct CommandRunner: Sendable {
    let argv: [String]
    let projectId: String
    let emulator: Emulator
    let exportDirectory: String?
    let logger: Logger

    func runBesideDaemon(config: AppConfig) async -> ExecOutcome {
        let (ready, readySignal) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let status = CommandStatus()
        var services = Listeners.services(
            config: config, emulator: emulator, logger: logger, activated: []
        ) { channel in
            let host = channel.localAddress?.ipAddress ?? config.host
            let port = channel.localAddress?.port ?? config.port
            logger.info("authemu listening on \(host):\(port), project \(config.projectId)")
            if let warning = ListenerExposure.warning(boundTo: host, port: port, adminToken: config.adminToken) {
                logger.warning("\(warning)")
            }
            readySignal.yield(Self.connectable(host, port: port))
        }
        services.append(
            .init(
                service: CommandService(runner: self, ready: ready, status: status),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(10)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch {
            logger.error("the daemon stopped: \(error)")
            if status.value == nil {
                return .notStarted(reason: "the daemon could not start on \(config.host):\(config.port) (\(error))")
            }
        }
        guard let result = status.value else { return .notStarted(reason: status.failure ?? "the daemon stopped") }
        return .finished(status: result)
    }

    /// `host:port` a client on this machine reaches: a wildcard becomes loopback, IPv6 is bracketed.
    static func connectable(_ host: String, port: Int) -> String {
        let shown = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        return shown.contains(":") ? "[\(shown)]:\(port)" : "\(shown):\(port)"
    }

    /// The caller's environment with the variables firebase-tools sets for its script.
    func environment(emulatorHost: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = emulatorHost
        environment["GCLOUD_PROJECT"] = projectId
        if environment["FIREBASE_CONFIG"] == nil {
            environment["FIREBASE_CONFIG"] =
                #"{"projectId":"\#(projectId)","storageBucket":"\#(projectId).appspot.com","#
                + #""databaseURL":"https://\#(projectId).firebaseio.com"}"#
        }
        return environment
    }

    /// Writes the default project's export; a failure is reported and makes the run fail.
    func export() async -> Bool {
        guard let exportDirectory else { return true }
        do {
            let export = try await emulator.exportProject(projectId)
            try ExportFiles.write(export, to: URL(fileURLWithPath: exportDirectory))
            let count = export.accounts.values.reduce(0) { $0 + $1.count }
            logger.info("exported \(count) account(s) of project \(projectId) to \(exportDirectory)")
            return true
        } catch {
            FileHandle.standardError.write(Data("authemu exec: export to \(exportDirectory) failed: \(error)\n".utf8))
            return false
        }
    }
}

/// COMMAND's exit status once it has ended (nil before), or why it could not start.
final class CommandStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var status: Int32?
    private var reason: String?

    var value: Int32? { lock.withLock { status } }
    var failure: String? { lock.withLock { reason } }

    func set(_ value: Int32) { lock.withLock { status = value } }
    func fail(_ text: String) { lock.withLock { reason = text } }
}

/// The group's service that waits for the daemon, runs the command, forwards SIGINT and SIGTERM
/// to it, exports when asked, and returns (which stops the daemon).
struct CommandService: Service {
    let runner: CommandRunner
    let ready: AsyncStream<String>
    let status: CommandStatus

    func run() async throws {
        var waiting = ready.makeAsyncIterator()
        guard let host = await waiting.next() else { return }
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(runner.argv, environment: runner.environment(emulatorHost: host))
        } catch {
            status.fail("\(error)")
            return
        }
        runner.logger.info("running \(runner.argv.joined(separator: " ")) with FIREBASE_AUTH_EMULATOR_HOST=\(host)")
        let forwarding = Task {
            for await signal in signals { child.send(signal.rawValue) }
        }
        let exit = await child.wait()
        forwarding.cancel()
        runner.logger.info("the command exited with \(exit)")
        status.set(await runner.export() || exit != 0 ? exit : 2)
    }
}
