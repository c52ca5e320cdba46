import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one error of this library: the daemon's `CODE` and message (`EMAIL_EXISTS`, …), or, with
/// status 0, a helper that waited in vain, found nothing (`USER_NOT_FOUND` of a lookup), or could
/// not reach the daemon.
public struct AuthEmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (0 when the daemon answered no error: see above).
    public let status: Int
    public let code: String
    public let message: String

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(code) (\(status)): \(message)" }
}

/// A JSON request body, built without `Any` so the library stays `Sendable`.
indirect enum JSONBody: Sendable, Encodable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSONBody])
    case object([String: JSONBody])

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension AuthEmulator {
    var emulatorScope: String {
        "/emulator/v1/\(adminScope)"
    }

    var adminScope: String {
        var path = "projects/\(Self.segment(projectId))"
        if let tenantId { path += "/tenants/\(Self.segment(tenantId))" }
        return path
    }

    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? text
    }

    func get<T: Decodable>(
        _ path: String, query: [String: String] = [:], admin: Bool = false, timeout: TimeInterval = 10
    )
        async throws -> T
    {
        try JSONDecoder().decode(
            T.self, from: try await exchange("GET", path, query: query, admin: admin, timeout: timeout))
    }

    func post<T: Decodable>(_ path: String, _ body: JSONBody, admin: Bool = false) async throws -> T {
        try JSONDecoder().decode(T.self, from: try await exchange("POST", path, body: body, admin: admin))
    }

    func send(_ method: String, _ path: String, body: JSONBody? = nil) async throws {
        _ = try await exchange(method, path, body: body, admin: true)
    }

    func patchConfig(_ fields: [String: JSONBody], mask: String) async throws {
        let path =
            tenantId == nil
            ? "/identitytoolkit.googleapis.com/v2/projects/\(Self.segment(projectId))/config"
            : "/identitytoolkit.googleapis.com/v2/\(adminScope)"
        _ = try await exchange("PATCH", path, query: ["updateMask": mask], body: .object(fields), admin: true)
    }

    func clock(_ operation: String, _ body: JSONBody) async throws -> Date {
        let answer: ClockAnswer = try await post("/emulator/v1/\(operation)", body, admin: true)
        return try Self.date(answer.now)
    }

    func exchange(
        _ method: String, _ path: String, query: [String: String] = [:], body: JSONBody? = nil, admin: Bool = false,
        timeout: TimeInterval = 10, rawBody: Data? = nil
    ) async throws -> Data {
        var components = URLComponents()
        components.scheme = "http"
        components.percentEncodedHost = host.split(separator: ":").dropLast().joined(separator: ":")
        components.port = host.split(separator: ":").last.flatMap { Int($0) }
        components.percentEncodedPath = path
        if !query.isEmpty {
            components.queryItems = query.keys.sorted().map { URLQueryItem(name: $0, value: query[$0]) }
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        guard let url = components.url else {
            throw AuthEmulatorError(status: 0, code: "INVALID_HOST", message: "cannot make a URL of \(host)\(path)")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        // The emulator API takes the token too: off loopback, a daemon with a token of its own needs it.
        if admin || path.hasPrefix("/emulator/v1/") {
            request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        }
        if let bytes = try rawBody ?? body.map({ try JSONEncoder().encode($0) }) {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = bytes
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw AuthEmulatorError(status: 0, code: "UNREACHABLE", message: "\(method) \(url): \(error)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw Self.error(status: status, body: data) }
        return data
    }

    /// `{"error":{"message":"CODE : detail"}}` as code and message.
    static func error(status: Int, body: Data) -> AuthEmulatorError {
        struct Envelope: Decodable {
            struct Inner: Decodable { let message: String? }
            let error: Inner?
        }
        let text =
            (try? JSONDecoder().decode(Envelope.self, from: body))?.error?.message
            ?? String(decoding: body, as: UTF8.self)
        let parts = text.components(separatedBy: " : ")
        let isCode = parts[0].allSatisfy { $0.isUppercase || $0 == "_" || $0.isNumber } && !parts[0].isEmpty
        return AuthEmulatorError(
            status: status, code: isCode ? parts[0] : "HTTP_\(status)",
            message: isCode ? parts.dropFirst().joined(separator: " : ") : text)
    }

    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func date(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = formatter.date(from: text) else {
            throw AuthEmulatorError(status: 0, code: "INVALID_TIME", message: "not RFC 3339: \(text)")
        }
        return date
    }
}
