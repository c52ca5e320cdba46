import Hummingbird
import NIOCore

/// The request context: Hummingbird's basics plus the peer address (for per-address SMS quotas)
/// and the connection (a long-poll ends when its client leaves).
public struct AuthRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public let channel: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}
