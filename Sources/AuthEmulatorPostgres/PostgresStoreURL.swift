import AuthEmulator
import Foundation
import NIOSSL
import PostgresNIO

/// `postgres://user:password@host:port/database?schema=NAME&sslmode=disable|prefer|require|verify-full&pool=N`,
/// or a Unix socket: `postgres://user@/database?host=/run/postgresql`. The password is never shown:
/// `masked` replaces it with `***`.
public struct PostgresStoreURL: Sendable, CustomStringConvertible {
    public let configuration: PostgresClient.Configuration
    /// The PostgreSQL schema authemu's tables live in, so several set-ups can share one database.
    public let schema: String
    /// At most this many connections (default 16).
    public let poolSize: Int
    public let masked: String

    public var description: String { masked }

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
            ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "")
        else { throw StoreOpenError("store URL must be postgres://user:password@host:port/database") }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        if let unknown = query.keys.sorted().first(where: { !["schema", "sslmode", "pool", "host"].contains($0) }) {
            throw StoreOpenError("store URL: unknown parameter \(unknown) (known: schema, sslmode, pool, host)")
        }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let database = String(components.path.drop(while: { $0 == "/" }))
        schema = query["schema"] ?? "authemu"
        guard Self.isIdentifier(schema) else {
            throw StoreOpenError("store URL: schema must be a lower-case SQL name ([a-z_][a-z0-9_]*), got \(schema)")
        }
        poolSize = try Self.pool(query["pool"])
        var configuration: PostgresClient.Configuration
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            let port = components.port ?? 5432
            configuration = .init(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password,
                database: database.isEmpty ? nil : database)
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw StoreOpenError("store URL: a host is required (or ?host=/socket/directory)")
            }
            configuration = .init(
                host: host, port: components.port ?? 5432, username: user, password: password,
                database: database.isEmpty ? nil : database, tls: try Self.tls(query["sslmode"]))
        }
        configuration.options.maximumConnections = poolSize + 1
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        self.configuration = configuration
        var shown = components
        if password != nil { shown.percentEncodedPassword = "***" }
        masked = shown.string ?? "postgres://…"
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.first, first == "_" || ("a"..."z").contains(first), text.count <= 63 else {
            return false
        }
        return text.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
    }

    private static func pool(_ text: String?) throws -> Int {
        guard let text else { return 16 }
        guard let size = Int(text), (1...256).contains(size) else {
            throw StoreOpenError("store URL: pool must be a number of connections from 1 to 256, got \(text)")
        }
        return size
    }

    /// As libpq: `prefer` and `require` encrypt without checking the certificate; `verify-full`
    /// checks it and the host name against the system's trusted CAs.
    private static func tls(_ mode: String?) throws -> PostgresClient.Configuration.TLS {
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        switch mode ?? "prefer" {
        case "disable": return .disable
        case "prefer": return .prefer(unverified)
        case "require": return .require(unverified)
        case "verify-full": return .require(.makeClientConfiguration())
        default:
            throw StoreOpenError(
                "store URL: sslmode must be disable, prefer, require or verify-full, got \(mode ?? "")")
        }
    }
}
