import AuthEmulator
import Foundation
import NIOSSL
import PostgresNIO

/// `postgres://user:password@host:port/database?schema=NAME&sslmode=MODE&sslrootcert=FILE&pool=N`
/// `&synchronous_commit=on`, or a Unix socket: `postgres://user@/database?host=/run/postgresql`.
/// The password is never shown: `masked` replaces it with `***`.
public struct PostgresStoreURL: Sendable, CustomStringConvertible {
    public let configuration: PostgresClient.Configuration
    /// The PostgreSQL schema authemu's tables live in, so several set-ups can share one database.
    public let schema: String
    /// At most this many connections (default 16).
    public let poolSize: Int
    /// The sessions' `synchronous_commit`: `off` by default, so a commit is acknowledged once it
    /// is in the server's WAL buffers (the daemon's `kill -9` loses nothing; the server's crash
    /// may lose its last fraction of a second, as an OS crash may with SQLite's
    /// `synchronous = NORMAL`). `on` waits for the WAL flush (docs/postgres.md, "Durability").
    public let synchronousCommit: String
    public let masked: String
    /// The TLS settings of `configuration`, kept for the one-off start-up connection.
    let tls: TLSMode

    public var description: String { masked }

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
            ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "")
        else { throw StoreOpenError("store URL must be postgres://user:password@host:port/database") }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let known = ["schema", "sslmode", "sslrootcert", "pool", "host", "synchronous_commit"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw StoreOpenError(
                "store URL: unknown parameter \(unknown) (known: \(known.joined(separator: ", ")))")
        }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let database = String(components.path.drop(while: { $0 == "/" }))
        schema = query["schema"] ?? "authemu"
        guard Self.isIdentifier(schema) else {
            throw StoreOpenError("store URL: schema must be a lower-case SQL name ([a-z_][a-z0-9_]*), got \(schema)")
        }
        poolSize = try Self.pool(query["pool"])
        synchronousCommit = query["synchronous_commit"] ?? "off"
        let levels = ["off", "local", "remote_write", "on", "remote_apply"]
        guard levels.contains(synchronousCommit) else {
            throw StoreOpenError(
                "store URL: synchronous_commit must be \(levels.joined(separator: ", ")), got \(synchronousCommit)")
        }
        var configuration: PostgresClient.Configuration
        tls = try Self.tls(query["sslmode"], rootCertificates: query["sslrootcert"])
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
                database: database.isEmpty ? nil : database, tls: tls.forPool)
        }
        // No keep-alive pings: each one is a timer set and cancelled every time a connection is
        // handed back. The minimum stays 0: postgres-nio 1.33's pool stops the process on a
        // precondition when a lease comes while it holds fewer connections than a minimum above 0
        // (a server restart closes them all).
        configuration.options.maximumConnections = poolSize + 1
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.additionalStartupParameters = [
            ("search_path", schema), ("synchronous_commit", synchronousCommit), ("application_name", "authemu"),
        ]
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

    /// The same server, user and TLS for one connection outside the pool: the pool retries a
    /// failed connection until the request's deadline and keeps the reason, so start-up connects
    /// once on its own to name it (a refused certificate, a wrong password, no such database).
    func singleConnection() throws -> PostgresConnection.Configuration {
        var single: PostgresConnection.Configuration
        if let path = configuration.unixSocketPath {
            single = .init(
                unixSocketPath: path, username: configuration.username, password: configuration.password,
                database: configuration.database)
        } else {
            single = .init(
                host: configuration.host ?? "", port: configuration.port ?? 5432, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: try tls.forConnection())
        }
        single.options.connectTimeout = .seconds(3)
        single.options.additionalStartupParameters = configuration.options.additionalStartupParameters
        return single
    }

    private static func pool(_ text: String?) throws -> Int {
        guard let text else { return 16 }
        guard let size = Int(text), (1...256).contains(size) else {
            throw StoreOpenError("store URL: pool must be a number of connections from 1 to 256, got \(text)")
        }
        return size
    }

    /// As libpq: `prefer` and `require` encrypt without checking the certificate; `verify-ca`
    /// checks that it is signed by a trusted CA, `verify-full` also that it names the host. The
    /// trusted CAs are the system's, or those of `sslrootcert` (with which `require` checks the
    /// CA too, as libpq does).
    private static func tls(_ mode: String?, rootCertificates: String?) throws -> TLSMode {
        var checked = TLSConfiguration.makeClientConfiguration()
        if let rootCertificates {
            guard FileManager.default.isReadableFile(atPath: rootCertificates) else {
                throw StoreOpenError("store URL: sslrootcert \(rootCertificates) is not a readable file")
            }
            checked.trustRoots = .file(rootCertificates)
        }
        var caOnly = checked
        caOnly.certificateVerification = .noHostnameVerification
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        switch mode ?? "prefer" {
        case "disable" where rootCertificates == nil: return .disable
        case "prefer" where rootCertificates == nil: return .prefer(unverified)
        case "disable", "prefer":
            throw StoreOpenError("store URL: sslrootcert needs sslmode=require, verify-ca or verify-full")
        case "require": return .require(rootCertificates == nil ? unverified : caOnly)
        case "verify-ca": return .require(caOnly)
        case "verify-full": return .require(checked)
        default:
            throw StoreOpenError(
                "store URL: sslmode must be disable, prefer, require, verify-ca or verify-full, got \(mode ?? "")")
        }
    }
}

/// What `sslmode` asks of TLS, for the pool and for a single connection.
enum TLSMode: Sendable {
    case disable
    case prefer(TLSConfiguration)
    case require(TLSConfiguration)

    var forPool: PostgresClient.Configuration.TLS {
        switch self {
        case .disable: .disable
        case .prefer(let configuration): .prefer(configuration)
        case .require(let configuration): .require(configuration)
        }
    }

    func forConnection() throws -> PostgresConnection.Configuration.TLS {
        switch self {
        case .disable: .disable
        case .prefer(let configuration): .prefer(try NIOSSLContext(configuration: configuration))
        case .require(let configuration): .require(try NIOSSLContext(configuration: configuration))
        }
    }
}
