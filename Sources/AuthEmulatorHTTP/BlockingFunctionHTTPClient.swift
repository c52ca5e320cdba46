import AsyncHTTPClient
import AuthEmulator
import Foundation
import NIOCore
import NIOSSL
import Synchronization

/// Calls blocking functions over HTTP or HTTPS with swift-server/async-http-client: a POST of the
/// JSON body, the whole answer read, all of it within the timeout. `https://` function URIs are
/// checked against the system's roots plus, when configured (`functions_ca_file`), the
/// certificates of a PEM file, for test servers with a self-signed CA. The client is made on the
/// first call, so a daemon without functions pays nothing for it.
public final class BlockingFunctionHTTPClient: BlockingFunctionTransport, Sendable {
    /// Answers larger than this are refused (a blocking function answers a small JSON object).
    static let maxReplyBytes = 1 << 20

    private let extraRoots: [NIOSSLCertificate]
    private let client = Mutex<HTTPClient?>(nil)

    /// - Parameter caFile: a PEM file of extra trusted certificates; a file that cannot be read
    ///   or holds no certificate is an error here, at start-up.
    public init(caFile: String? = nil) throws {
        extraRoots = try caFile.map(Self.certificates) ?? []
    }

    /// The daemon's client lives until it exits; one made for a shorter-lived emulator (a test)
    /// is shut down with it.
    deinit {
        client.withLock { $0 }?.shutdown { _ in }
    }

    static func certificates(_ path: String) throws -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw FunctionsCAFileError(path: path, reason: "cannot read PEM certificates (\(error))")
        }
        guard !certificates.isEmpty else { throw FunctionsCAFileError(path: path, reason: "holds no certificate") }
        return certificates
    }

    private func httpClient() -> HTTPClient {
        client.withLock { client in
            if let client { return client }
            var tls = TLSConfiguration.makeClientConfiguration()
            if !extraRoots.isEmpty { tls.additionalTrustRoots = [.certificates(extraRoots)] }
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.redirectConfiguration = .disallow
            // The client retries a refused connection or a failed TLS handshake until this runs
            // out: a function that is down, or whose certificate is not trusted, fails in 3 s.
            configuration.timeout.connect = .seconds(3)
            // Lives as long as the daemon: one pool for every function call.
            let made = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            client = made
            return made
        }
    }

    public func post(url: String, json body: [UInt8], timeout: Duration) async throws -> BlockingFunctionReply {
        guard let scheme = URLComponents(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { throw BlockingFunctionTransportError.unreachable("only http:// and https:// function URIs are called") }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let deadline = TimeAmount.nanoseconds(
            Int64(timeout.components.seconds) * 1_000_000_000 + Int64(timeout.components.attoseconds / 1_000_000_000))
        do {
            let response = try await httpClient().execute(request, timeout: deadline)
            let answer = try await response.body.collect(upTo: Self.maxReplyBytes)
            return BlockingFunctionReply(status: Int(response.status.code), body: Array(buffer: answer))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw BlockingFunctionTransportError.timedOut
        } catch {
            throw BlockingFunctionTransportError.unreachable("\(error)")
        }
    }
}

/// A `functions_ca_file` that cannot be used; start-up stops naming the key.
public struct FunctionsCAFileError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "key 'functions_ca_file': \(path) \(reason)" }
}
