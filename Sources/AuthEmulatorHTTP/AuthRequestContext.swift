import Hummingbird
import NIOCore

/// The request context: Hummingbird's basics plus the peer address (for per-address SMS quotas).
public struct AuthRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
