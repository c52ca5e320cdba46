import AuthEmulator
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Pings the systemd watchdog at half its interval, but only while the server answers
/// `/healthz`: a hung server stops the pings and systemd restarts it.
struct WatchdogService: Service {
    let interval: Duration
    let host: String
    let port: Int
    let logger: Logger

    func run() async throws {
        let period = interval / 2
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let (host, port) = (self.host, self.port)
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
