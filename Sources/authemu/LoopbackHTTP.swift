import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.0 client for the CLI's own daemon (`health`, `codes`, `clock`, the watchdog). The daemon
/// closes HTTP/1.0 connections after answering, so reading to the end gives the whole response.
/// (FoundationNetworking would drag libcurl into the statically linked binary.)
enum LoopbackHTTP {
    struct Reply {
        let status: Int
        let body: Data
    }

    /// Splits `http://host:port` into its parts.
    static func endpoint(_ url: String) -> (host: String, port: Int)? {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host
        else { return nil }
        return (host, components.port ?? 80)
    }

    static func get(host: String, port: Int, path: String, timeout: Duration) -> Reply? {
        request("GET", host: host, port: port, path: path, timeout: timeout)
    }

    /// One request with an optional JSON body and extra header lines (`Authorization: …`).
    static func request(
        _ method: String, host: String, port: Int, path: String, json body: Data? = nil, headers: [String] = [],
        timeout: Duration
    ) -> Reply? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return nil }
        defer { freeaddrinfo(results) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var limit = timeval(
            tv_sec: Int(timeout.components.seconds),
            tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else { return nil }
        var head = "\(method) \(path) HTTP/1.0\r\nHost: \(host)\r\n"
        for line in headers { head += line + "\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + Array(body ?? Data())
        guard send(descriptor, request, request.count, 0) == request.count else { return nil }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let received = recv(descriptor, &buffer, buffer.count, 0)
            if received <= 0 { break }
            response.append(contentsOf: buffer[0..<received])
        }
        guard let headerEnd = response.range(of: Data("\r\n\r\n".utf8)),
            let statusLine = String(data: response[..<headerEnd.lowerBound], encoding: .utf8)?.split(separator: " "),
            statusLine.count >= 2, let status = Int(statusLine[1])
        else { return nil }
        return Reply(status: status, body: response[headerEnd.upperBound...])
    }
}
