import AuthEmulator
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Calls blocking functions over plain HTTP/1.1 with SwiftNIO's client pipeline: one connection
/// per call (`Connection: close`), the whole answer read, all of it within the timeout. HTTPS
/// URIs fail as unreachable (the Functions emulator, what functions run on locally, speaks HTTP).
public struct BlockingFunctionHTTPClient: BlockingFunctionTransport {
    /// Answers larger than this are refused (a blocking function answers a small JSON object).
    static let maxReplyBytes = 1 << 20

    public init() {}

    public func post(url: String, json body: [UInt8], timeout: Duration) async throws -> BlockingFunctionReply {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "http",
            let host = components.host, !host.isEmpty
        else { throw BlockingFunctionTransportError.unreachable("only http:// function URIs are supported") }
        let port = components.port ?? 80
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let target = components.percentEncodedQuery.map { path + "?" + $0 } ?? path
        return try await withThrowingTaskGroup(of: BlockingFunctionReply.self) { group in
            group.addTask {
                try await Self.exchange(host: host, port: port, target: target, body: body, timeout: timeout)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw BlockingFunctionTransportError.timedOut
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private static func exchange(host: String, port: Int, target: String, body: [UInt8], timeout: Duration)
        async throws -> BlockingFunctionReply
    {
        let seconds = timeout.components.seconds
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(seconds))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: target)
            head.headers.add(name: "Host", value: port == 80 ? host : "\(host):\(port)")
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.count))
            head.headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(head))
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
            try await outbound.write(.end(nil))
            var status: Int?
            var received: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = Int(response.status.code)
                case .body(let buffer):
                    guard received.count + buffer.readableBytes <= maxReplyBytes else {
                        throw BlockingFunctionTransportError.unreachable("answer larger than \(maxReplyBytes) bytes")
                    }
                    received.append(contentsOf: buffer.readableBytesView)
                case .end:
                    guard let status else { throw BlockingFunctionTransportError.unreachable("no status line") }
                    return BlockingFunctionReply(status: status, body: received)
                }
            }
            throw BlockingFunctionTransportError.unreachable("connection closed before the answer ended")
        }
    }
}
