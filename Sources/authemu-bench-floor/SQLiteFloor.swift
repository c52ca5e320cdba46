import AuthEmulatorSQLite
import Foundation
import GRDB

/// One durable SQLite commit per request, shaped like authemu's (its users table and indexes, WAL
/// with `synchronous = NORMAL` checkpointed in the background, cached statements, GRDB's writer
/// queue): a sign-up inserts a user with a random key and a 490-byte record, a sign-in stamps one
/// user's `last_login_at`.
struct SQLiteFloor: FloorStore {
    let pool: DatabasePool
    let checkpoint: BackgroundCheckpoint

    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS users (
                        project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, local_id TEXT NOT NULL, email TEXT,
                        phone_number TEXT, data BLOB NOT NULL, last_login_at TEXT, last_refresh_at TEXT,
                        PRIMARY KEY (project_id, tenant_id, local_id));
                    CREATE INDEX IF NOT EXISTS users_email ON users(project_id, tenant_id, email) WHERE email IS NOT NULL;
                    CREATE INDEX IF NOT EXISTS users_phone ON users(project_id, tenant_id, phone_number)
                        WHERE phone_number IS NOT NULL;
                    INSERT OR REPLACE INTO users (project_id, tenant_id, local_id, email, data)
                        VALUES ('bench', '', 'signed-in', 'signed-in@bench.test', zeroblob(490));
                    """)
        }
        let checkpoint = try BackgroundCheckpoint(path: path, configuration: configuration)
        pool.writeWithoutTransaction { db in checkpoint.install(on: db) }
        self.checkpoint = checkpoint
    }

    /// Commits one user row in its own `BEGIN IMMEDIATE` transaction (on GRDB's writer queue: the
    /// request's task waits suspended, which measured a little faster here than running it in place).
    func signUp() async throws {
        try await pool.writeWithoutTransaction { db in
            let localId = floorLocalId()
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO users (project_id, tenant_id, local_id, email, phone_number, data,
                        last_login_at, last_refresh_at)
                    VALUES ('bench', '', ?, ?, NULL, ?, '1795544059477', '2026-11-24T18:14:19.479Z')
                    """
            ).execute(arguments: [localId, "\(localId)@bench.test", floorRecord])
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        }
    }

    /// Commits a sign-in's one change: the user's `last_login_at`.
    func signIn() async throws {
        try await pool.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            try db.cachedStatement(
                sql: "UPDATE users SET last_login_at = ? WHERE project_id = 'bench' AND tenant_id = '' AND local_id = ?"
            ).execute(arguments: [String(Date().timeIntervalSince1970 * 1000), "signed-in"])
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        }
    }
}
