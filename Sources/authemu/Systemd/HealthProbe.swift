import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal loopback check that the server answers `GET /healthz` (HTTP/1.0, so the server
/// closes the connection after answering); used by the watchdog.
enum HealthProbe {
    static func answers(host: String, port: Int, timeout: Duration) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var limit = timeval(
            tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return false }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return false }
        let request = Array("GET /healthz HTTP/1.0\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, 0) == request.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        let received = recv(descriptor, &buffer, buffer.count, 0)
        guard received > 0 else { return false }
        return String(decoding: buffer[0..<received], as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }
}
