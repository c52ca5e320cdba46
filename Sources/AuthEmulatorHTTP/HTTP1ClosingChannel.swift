import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The executor a connection's handlers run on, made for the connection's event loop; without one
/// they run on Swift's global executor. The PostgreSQL store gives one: its statements run on NIO
/// event loops, and a handler already on its connection's loop saves two or three thread wake-ups
/// a request (`bench/README.md`, "handlers on their connection's event loop").
public typealias ConnectionExecutor = @Sendable (any EventLoop) -> any TaskExecutor

/// Hummingbird's HTTP/1 channel, plus the connection's guard (`ConnectionGuard`): timeouts, an
/// early 413, `100 Continue`, enveloped parser errors, and `Connection: close` on an HTTP/1.0
/// request without keep-alive (a bare Hummingbird server leaves that connection open).
struct HTTP1ClosingChannel: ServerChildChannel, HTTPChannelHandler {
    init(
        executor: ConnectionExecutor? = nil, limits: ConnectionLimits, maxBodyBytes: Int, open: OpenConnections,
        responder: @escaping HTTPChannelHandler.Responder
    ) {
        self.executor = executor
        self.limits = limits
        self.maxBodyBytes = maxBodyBytes
        self.open = open
        self.responder = responder
    }

    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let executor: ConnectionExecutor?
    let limits: ConnectionLimits
    let maxBodyBytes: Int
    let open: OpenConnections
    let responder: HTTPChannelHandler.Responder

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let connectionGuard = ConnectionGuard(limits: limits, maxBodyBytes: maxBodyBytes, open: open)
            try channel.pipeline.syncOperations.addHandler(ByteArrival(connectionGuard))
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false)
            try channel.pipeline.syncOperations.addHandler(connectionGuard)
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(logger: logger))
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        guard let executor else { return await handleHTTP(asyncChannel: asyncChannel, logger: logger) }
        await withTaskExecutorPreference(executor(asyncChannel.channel.eventLoop)) {
            await handleHTTP(asyncChannel: asyncChannel, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with HTTP/1.0 `Connection: close` semantics and the connection's guard, handlers
    /// on `executor` if given.
    static func http1ClosingHTTP10(
        executor: ConnectionExecutor?, limits: ConnectionLimits, maxBodyBytes: Int, open: OpenConnections
    ) -> HTTPServerBuilder {
        .init { responder in
            HTTP1ClosingChannel(
                executor: executor, limits: limits, maxBodyBytes: maxBodyBytes, open: open, responder: responder)
        }
    }
}
