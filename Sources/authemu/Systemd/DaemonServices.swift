import AuthEmulator
import CEarlySignals
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Pings the systemd watchdog at half its interval, but only while the server answers
/// `/healthz`: a hung server stops the pings and systemd restarts it.
struct WatchdogService: Service {
    let interval: Duration
    let address: ListeningAddress
    let logger: Logger

    func run() async throws {
        let period = interval / 2
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            guard let (bound, port) = address.value else {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(50)) }
                continue
            }
            let host = bound == "0.0.0.0" || bound == "::" ? "127.0.0.1" : bound
            let healthy = await Task.detached {
                LoopbackHTTP.get(host: host, port: port, path: "/healthz", timeout: period)?.status == 200
            }.value
            if healthy {
                Systemd.notify("WATCHDOG=1")
            } else {
                logger.warning("watchdog: the server did not answer on \(host):\(port); not pinging")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: period) }
        }
    }
}

/// Tells systemd the daemon is stopping as soon as a graceful shutdown starts.
struct StoppingNotifier: Service {
    func run() async throws {
        try? await gracefulShutdown()
        Systemd.notify("STOPPING=1")
    }
}

/// Stops the group at once when SIGTERM or SIGINT came before the group's own handlers (recorded
/// from the first instruction by early_signals.c). The group installs its handlers before any
/// service starts, so a signal is either recorded or the group's: none is lost in between.
struct EarlyStopService: Service {
    let logger: Logger

    func run() async throws {
        if let name = EarlyStop.signalName {
            logger.info("\(name) during start-up: stopping")
            return
        }
        try? await gracefulShutdown()
    }
}

/// The stop signal recorded before the service group ran, by name.
enum EarlyStop {
    static var signalName: String? {
        switch authemu_early_stop_signal() {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: nil
        }
    }
}

/// SIGHUP: re-reads the configuration file and applies what can change live (project and
/// tenant settings, test numbers, MFA and verification policies, log level). A bad file is
/// logged and the running configuration kept.
struct ReloadService: Service {
    let reload: @Sendable () async -> Void

    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            await reload()
        }
    }
}

/// Where the server actually listens (known once it runs: with `--port 0` or socket activation it
/// differs from the configuration).
final class ListeningAddress: @unchecked Sendable {
    private let lock = NSLock()
    private var current: (String, Int)?

    var value: (String, Int)? {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
