import Foundation
import GRDB
import Hummingbird

// The benchmark floor: the baseline server plus one durable SQLite commit per POST, shaped like
// authemu's (its users table and indexes, WAL with `synchronous = NORMAL`, cached statements,
// GRDB's writer queue): a sign-up inserts a user with a random key and a 490-byte record, a
// `…:signInWithPassword` path stamps one user's `last_login_at`. No JSON is parsed and no token
// made, so its throughput bounds what any design that commits once per request can reach on this
// HTTP stack and this machine.
// Usage: authemu-bench-floor PORT DATABASE-PATH
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let port = Int(arguments[0]) else {
    FileHandle.standardError.write(Data("usage: authemu-bench-floor PORT DATABASE-PATH\n".utf8))
    exit(64)
}
var configuration = Configuration()
configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
let pool = try DatabasePool(path: arguments[1], configuration: configuration)
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
let record = Data(repeating: UInt8(ascii: "x"), count: 490)

/// Commits one user row in its own `BEGIN IMMEDIATE` transaction (on GRDB's writer queue: the
/// request's task waits suspended, which measured a little faster here than running it in place).
@Sendable func storeOneUser(_ db: Database) throws {
    let localId = String(UInt64.random(in: 0 ... .max), radix: 36) + String(UInt64.random(in: 0 ... .max), radix: 36)
    try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
    try db.cachedStatement(
        sql: """
            INSERT OR REPLACE INTO users (project_id, tenant_id, local_id, email, phone_number, data,
                last_login_at, last_refresh_at)
            VALUES ('bench', '', ?, ?, NULL, ?, '1795544059477', '2026-11-24T18:14:19.479Z')
            """
    ).execute(arguments: [localId, "\(localId)@bench.test", record])
    try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
}

/// Commits a sign-in's one change: the user's `last_login_at`.
@Sendable func stampSignIn(_ db: Database) throws {
    try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
    try db.cachedStatement(
        sql: "UPDATE users SET last_login_at = ? WHERE project_id = 'bench' AND tenant_id = '' AND local_id = ?"
    ).execute(arguments: [String(Date().timeIntervalSince1970 * 1000), "signed-in"])
    try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
}

let router = Router()
let answer = ByteBuffer(string: #"{"kind":"identitytoolkit#SignupNewUserResponse","localId":"floor"}"#)
router.post("**") { request, _ -> Response in
    _ = try await request.body.collect(upTo: 1 << 20)
    let signIn = request.uri.path.hasSuffix(":signInWithPassword")
    try await pool.writeWithoutTransaction(signIn ? stampSignIn : storeOneUser)
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
