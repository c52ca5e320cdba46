import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The statements authemu's PostgreSQL store sends for a request, sent the cheapest way postgres-nio
/// offers and nothing around them: one pooled connection per request (the pool configured as
/// authemu's), the statements awaited on that connection's event loop, no deadline, no record
/// decoding. A sign-in reads the user by email outside a transaction, then stamps its session
/// times (2 round trips); a sign-up begins a serializable transaction, reads the email, inserts
/// the user and commits (4 statements, one round trip each: postgres-nio sends a connection's
/// statements one at a time). A conflict's rollback is left to the caller (none at one sign-up
/// per email, as here). Like
/// authemu's store (`PlannerStatistics`), it analyzes the table when its sign-ups reach 100, 1,000,
/// 10,000 and 100,000: until autovacuum did, the planner could read the sign-in's email lookup as a
/// scan of every account, and the floor's sign-in cost grew with the accounts its sign-up cell made.
struct PostgresFloor: FloorStore {
    let client: PostgresClient
    let logger = Logger(label: "authemu-bench-floor")
    let signUps = NIOLockedValueBox(0)

    init(url: String) async throws {
        guard let parts = URLComponents(string: url), let host = parts.host, let user = parts.user else {
            throw FloorError("not a postgres://USER:PASSWORD@HOST:PORT/DATABASE URL: \(url)")
        }
        let schema = "floor_\(floorLocalId())"
        var configuration = PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: user, password: parts.password,
            database: String(parts.path.dropFirst()), tls: .disable)
        configuration.options.maximumConnections = 17
        configuration.options.keepAliveBehavior = nil
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        client = PostgresClient(configuration: configuration)
        let client = client
        Task { await client.run() }
        try await client.withConnection { connection in
            for sql in [
                "CREATE SCHEMA \(schema)",
                """
                CREATE TABLE users (
                    project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, local_id TEXT NOT NULL, email TEXT,
                    phone_number TEXT, data BYTEA NOT NULL, last_login_at TEXT, last_refresh_at TEXT, display_name TEXT,
                    PRIMARY KEY (project_id, tenant_id, local_id))
                """,
                "CREATE INDEX users_email ON users(project_id, tenant_id, email) WHERE email IS NOT NULL",
                """
                INSERT INTO users (project_id, tenant_id, local_id, email, data)
                VALUES ('bench', '', 'signed-in', 'signed-in@bench.test', decode(repeat('78', 490), 'hex'))
                """,
            ] {
                _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            }
        }
    }

    /// Runs `work` with a pooled connection, on that connection's event loop.
    /// One serializable sign-up transaction: the email read, the insert, the commit.
    private static func insertUser(_ connection: PostgresConnection, localId: String, email: String, logger: Logger)
        async throws
    {
        try await connection.query("BEGIN ISOLATION LEVEL SERIALIZABLE", logger: logger)
        let owners = try await connection.query(
            "SELECT local_id FROM users WHERE project_id = 'bench' AND tenant_id = '' AND email = \(email)",
            logger: logger
        ).collect()
        guard owners.isEmpty else { throw FloorError("\(email) is taken") }
        try await connection.query(
            """
            INSERT INTO users (project_id, tenant_id, local_id, email, phone_number, data, last_login_at,
                last_refresh_at, display_name)
            VALUES ('bench', '', \(localId), \(email), NULL, \(ByteBuffer(bytes: floorRecord)), \("1795544059477"),
                \("2026-11-24T18:14:19.479Z"), NULL)
            """, logger: logger)
        try await connection.query("COMMIT", logger: logger)
    }

    private func leased(_ work: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        try await client.withConnection { connection in
            try await withTaskExecutorPreference(LoopExecutor(loop: connection.eventLoop)) {
                try await work(connection)
            }
        }
    }

    func signIn() async throws {
        let logger = logger
        try await leased { connection in
            let rows = try await connection.query(
                """
                SELECT local_id, data, last_login_at, last_refresh_at FROM users
                WHERE project_id = 'bench' AND tenant_id = '' AND email = \("signed-in@bench.test")
                ORDER BY local_id
                """, logger: logger
            ).collect()
            guard let row = rows.first else { throw FloorError("the signed-in user is gone") }
            let localId = try row.decode((String, ByteBuffer, String?, String?).self).0
            let now = String(Int(Date().timeIntervalSince1970 * 1000))
            try await connection.query(
                """
                UPDATE users SET last_login_at = \(now), last_refresh_at = \("2026-11-24T18:14:19.479Z")
                WHERE project_id = 'bench' AND tenant_id = '' AND local_id = \(localId)
                """, logger: logger)
        }
    }

    func signUp() async throws {
        let logger = logger
        try await leased { connection in
            let localId = floorLocalId()
            let email = "\(localId)@bench.test"
            // As authemu's store: a write that loses a serialization conflict is run again.
            while true {
                do {
                    return try await Self.insertUser(connection, localId: localId, email: email, logger: logger)
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "40001" {
                    try await connection.query("ROLLBACK", logger: logger)
                }
            }
        }
        let count = signUps.withLockedValue { count in
            count += 1
            return count
        }
        if [100, 1_000, 10_000, 100_000].contains(count) {
            let client = client
            Task { _ = try? await client.query("ANALYZE users", logger: logger) }
        }
    }
}

/// A task's jobs run on one event loop (as authemu's `EventLoopTaskExecutor`).
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

struct FloorError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
