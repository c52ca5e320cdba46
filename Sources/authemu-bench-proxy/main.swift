// A TCP proxy that delays every byte by D ms in each direction, as a database one network hop
// away would: bench/postgres --latency-ms puts it between the daemons and the server.
//   authemu-bench-proxy LISTEN_PORT TARGET_PORT DELAY_MS    (loopback only; prints "ready")
// SwiftNIO's timers are precise to tens of microseconds (a timerfd); a Python proxy's threads
// or asyncio loop added up to 4 ms a hop under load.
import Foundation
import NIOCore
import NIOPosix

/// Forwards what one side reads to its peer, each chunk `delay` after it arrived, in order
/// (both sides run on one event loop, whose timers fire in deadline order).
final class DelayedForwarder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let delay: TimeAmount
    var peer: Channel?

    init(delay: TimeAmount) { self.delay = delay }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let peer = self.peer
        context.eventLoop.scheduleTask(in: delay) { peer?.writeAndFlush(buffer, promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let peer = self.peer
        context.eventLoop.scheduleTask(in: delay) { peer?.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let listenPort = Int(arguments[1]), let targetPort = Int(arguments[2]),
    let delayMs = Double(arguments[3])
else {
    FileHandle.standardError.write(Data("usage: authemu-bench-proxy LISTEN_PORT TARGET_PORT DELAY_MS\n".utf8))
    exit(2)
}
let delay = TimeAmount.nanoseconds(Int64(delayMs * 1_000_000))
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let server = try ServerBootstrap(group: group)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelOption(.autoRead, value: false)
    .childChannelInitializer { client in
        let toServer = DelayedForwarder(delay: delay)
        return ClientBootstrap(group: client.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { server in
                let toClient = DelayedForwarder(delay: delay)
                toClient.peer = client
                return server.pipeline.addHandler(toClient)
            }
            .connect(host: "127.0.0.1", port: targetPort)
            .flatMap { server in
                toServer.peer = server
                return client.pipeline.addHandler(toServer).flatMap { client.setOption(.autoRead, value: true) }
            }
    }
    .bind(host: "127.0.0.1", port: listenPort).wait()
FileHandle.standardOutput.write(Data("ready\n".utf8))
try server.closeFuture.wait()
