import AuthEmulator
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Serves the router on a listening socket handed over by systemd (socket activation) instead
/// of binding one. Hummingbird's `Application` only binds addresses, so this runs the same
/// responder and HTTP/1 channel on the inherited descriptor.
public struct ActivatedSocketServer: Service {
    let descriptor: Int32
    let responder: ExactPathRouter<AuthRequestContext>.Responder
    let logger: Logger
    let connectionExecutor: ConnectionExecutor?
    let limits: ConnectionLimits
    let maxBodyBytes: Int
    let open: OpenConnections
    let onServerRunning: @Sendable (any Channel) async -> Void

    public init(
        descriptor: Int32, emulator: Emulator, config: AppConfig, logger: Logger,
        connectionExecutor: ConnectionExecutor? = nil, onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) {
        self.descriptor = descriptor
        self.open = OpenConnections(maximum: config.connections.maxConnections)
        self.responder = buildRouter(emulator: emulator, config: config, open: open).buildResponder()
        self.logger = logger
        self.connectionExecutor = connectionExecutor
        self.limits = config.connections
        self.maxBodyBytes = config.maxBodyBytes
        self.onServerRunning = onServerRunning
    }

    public func run() async throws {
        let responder = self.responder

        let logger = self.logger
        let open = self.open
        let childChannel = HTTP1ClosingChannel(
            executor: connectionExecutor, limits: limits, maxBodyBytes: maxBodyBytes, open: open
        ) { request, responseWriter, channel in
            let context = AuthRequestContext(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch {
                response = Response(status: .internalServerError)
            }
            response.headers[.server] = "authemu/\(BuildVersion.number)"
            try await responseWriter.write(response: response.head, body: response.body)
        }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AvailableConnectionsChannelHandler(delegate: ConnectionGate(open: open)))
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(NIOBSDSocket.Handle(descriptor)) { channel in childChannel.setup(channel: channel, logger: logger) }
        await onServerRunning(server.channel)
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await childChannel.handle(value: connection, logger: logger) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }
}
