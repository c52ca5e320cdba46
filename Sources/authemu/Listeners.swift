import AuthEmulator
import AuthEmulatorHTTP
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The sockets `serve` answers on. `localhost`, the default, is both 127.0.0.1 and ::1 on one
/// port (many systems resolve `localhost` to ::1 first, and some clients never fall back to IPv4);
/// any other host is bound exactly as given. Under socket activation, every descriptor systemd
/// hands over is served. The first listener is the primary: its start makes the daemon ready.
enum Listeners {
    static func addresses(for host: String) -> [String] {
        host.lowercased() == "localhost" ? ["127.0.0.1", "::1"] : [host]
    }

    /// With several addresses and port 0, one free port for all of them, picked up front.
    static func port(_ port: Int, addresses: [String]) -> Int {
        guard port == 0, addresses.count > 1,
            let probe = try? ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: addresses[0], port: 0).wait()
        else { return port }
        defer { try? probe.close().wait() }
        return probe.localAddress?.port ?? port
    }

    /// One service per listener; a secondary listener that cannot bind (no IPv6 on this host)
    /// logs a warning and the daemon goes on with the others.
    static func services(
        config: AppConfig, emulator: Emulator, logger: Logger, activated: [Int32],
        connectionExecutor: ConnectionExecutor? = nil, onPrimaryRunning: @escaping @Sendable (any Channel) async -> Void
    ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        let onSecondaryRunning: @Sendable (any Channel) async -> Void = { channel in
            let address = channel.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
            logger.info("authemu also listening on \(address)")
        }
        var servers: [any Service] = []
        if !activated.isEmpty {
            for (index, descriptor) in activated.enumerated() {
                servers.append(
                    ActivatedSocketServer(
                        descriptor: descriptor, emulator: emulator, config: config, logger: logger,
                        connectionExecutor: connectionExecutor,
                        onServerRunning: index == 0 ? onPrimaryRunning : onSecondaryRunning))
            }
        } else {
            let addresses = addresses(for: config.host)
            let port = port(config.port, addresses: addresses)
            for (index, address) in addresses.enumerated() {
                var listener = config
                listener.host = address
                listener.port = port
                servers.append(
                    buildApplication(
                        config: listener, emulator: emulator, logger: logger, connectionExecutor: connectionExecutor,
                        onServerRunning: index == 0 ? onPrimaryRunning : onSecondaryRunning))
            }
        }
        return servers.enumerated().map { index, server in
            index == 0
                ? .init(service: server)
                : .init(
                    service: SecondaryListener(server: server, logger: logger), successTerminationBehavior: .ignore,
                    failureTerminationBehavior: .ignore)
        }
    }
}

/// A listener the daemon can do without: a bind failure is a warning, not a stop.
struct SecondaryListener: Service {
    let server: any Service
    let logger: Logger

    func run() async throws {
        do {
            try await server.run()
        } catch {
            logger.warning("authemu could not open a second listener (\(error)); the others serve on")
        }
    }
}
