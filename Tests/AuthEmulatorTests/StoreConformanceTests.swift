import AuthEmulator
import Foundation
import Testing

@testable import AuthEmulatorPostgres
@testable import AuthEmulatorSQLite

/// `runStoreConformance` against each backend, and what is particular to each.
@Suite("Store conformance")
struct StoreConformanceTests {
    /// Set by scripts/test to the throwaway server it starts (scripts/test-postgres).
    static let postgresURL = ProcessInfo.processInfo.environment["AUTHEMU_TEST_POSTGRES_URL"]

    /// A new directory for a test's database files; the test removes it when it ends.
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("authemu-\(UUID().uuidString)")
    }

    /// A new database path under `directory`.
    static func temporaryPath(in directory: URL) -> String {
        directory.appendingPathComponent("\(UUID().uuidString)/s.sqlite").path
    }

    /// A store on the test server, in a schema of its own (so every check starts empty).
    static func postgres(schema: String) async throws -> PostgresStore {
        let base = try #require(postgresURL)
        let separator = base.contains("?") ? "&" : "?"
        return try await PostgresStore(
            url: PostgresStoreURL("\(base)\(separator)schema=\(schema)&pool=4"), logger: .init(label: "test"))
    }

    @Test("SQLite in memory passes the store conformance suite")
    func sqliteInMemory() async throws {
        try await runStoreConformance(
            StoreBackend(
                name: "sqlite memory", make: { .init(store: try SQLiteStore(), openAgain: nil) },
                announcesChanges: false))
    }

    @Test("a SQLite file passes the store conformance suite, also through two stores on one file")
    func sqliteFile() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await runStoreConformance(
            StoreBackend(
                name: "sqlite file",
                make: {
                    let path = Self.temporaryPath(in: directory)
                    return .init(store: try SQLiteStore(path: path), openAgain: { try SQLiteStore(path: path) })
                }, announcesChanges: false))
    }

    @Test(
        "PostgreSQL passes the store conformance suite, through two stores on one database",
        .enabled(if: postgresURL != nil, "AUTHEMU_TEST_POSTGRES_URL is not set (scripts/test sets it)"))
    func postgresDatabase() async throws {
        try await runStoreConformance(
            StoreBackend(
                name: "postgres",
                make: {
                    let schema = "conformance_\(UInt32.random(in: 0...UInt32.max))"
                    return .init(
                        store: try await Self.postgres(schema: schema),
                        openAgain: { try await Self.postgres(schema: schema) })
                }, announcesChanges: true))
    }

    @Test("writes that queue behind a running one commit together; each gets its own result or error")
    func groupCommit() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try SQLiteStore(path: Self.temporaryPath(in: directory))
        for (name, store) in [("memory", try SQLiteStore()), ("file", file)] {
            let scope = Scope(projectId: "p")
            let started = Flag()
            let gate = DispatchSemaphore(value: 0)
            let first = Task {
                try await store.write { tx in
                    try await tx.save(scope, UserRecord(localId: "first"))
                    started.set()
                    gate.wait()
                    return -1
                }
            }
            while !started.isSet { await Task.yield() }
            let before = store.groupCommit.statistics
            let queued = (0..<20).map { index in
                Task {
                    try await store.write { tx in
                        try await tx.save(scope, UserRecord(localId: "u\(index)"))
                        if index % 4 == 0 { throw AuthError.emailExists }
                        return index
                    }
                }
            }
            while store.groupCommit.waitingCount < 20 { await Task.yield() }
            gate.signal()
            #expect(try await first.value == -1, "\(name)")
            for (index, task) in queued.enumerated() {
                if index % 4 == 0 {
                    await #expect(throws: AuthError.emailExists) { try await task.value }
                } else {
                    #expect(try await task.value == index, "\(name)")
                }
            }
            let after = store.groupCommit.statistics
            #expect(after.batches - before.batches == 2, "\(name)")
            #expect(after.writes - before.writes == 21, "\(name)")
            let stored = try await store.read { tx in
                try await tx.listUsers(scope, after: nil, limit: nil, descending: false).map(\.localId)
            }
            let expected = ["first"] + (0..<20).filter { $0 % 4 != 0 }.map { "u\($0)" }
            #expect(stored == expected.sorted(), "\(name)")
        }
    }

    @Test("a file from a newer authemu is refused and not modified")
    func newerSchemaRefused() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = Self.temporaryPath(in: directory)
        let store = try SQLiteStore(path: path)
        try await store.write { tx in try await tx.saveProjectConfig(projectId: "p", .object([:])) }
        try store.close()
        try SQLiteStore.recordMigrationForTesting(path: path, identifier: "v999-from-the-future")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreOpenError.self) { try SQLiteStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(
        "PostgreSQL analyzes a new schema's growing account table and finds a user by email through its index",
        .enabled(if: postgresURL != nil, "AUTHEMU_TEST_POSTGRES_URL is not set (scripts/test sets it)"))
    func postgresEmailLookupUsesIndex() async throws {
        let schema = "grown_\(UInt32.random(in: 0...UInt32.max))"
        let store = try await Self.postgres(schema: schema)
        let scope = Scope(projectId: "p")
        // Grown by many writes, as sign-ups grow it: the store analyzes the new table itself (at 100
        // and 1,000 accounts), so the planner knows that one project's key range is every row.
        for batch in 0..<40 {
            try await store.write { tx in
                for index in batch * 50..<(batch + 1) * 50 {
                    var user = UserRecord(localId: String(format: "u%05d", index))
                    user.email = "user\(index)@example.com"
                    try await tx.save(scope, user)
                }
            }
        }
        let analyzed = {
            try await store.session { session in
                try await session.value(
                    Int64.self,
                    """
                    SELECT COUNT(*) FROM pg_stats
                    WHERE schemaname = '\(schema)' AND tablename = 'users' AND attname = 'project_id'
                    """)
            }
        }
        let waitedUntil = ContinuousClock.now + .seconds(10)
        while try await analyzed() != 1, ContinuousClock.now < waitedUntil {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await analyzed() == 1, "the store did not analyze its grown table")
        let plan = try await store.session { session in
            try await session.value(
                String.self,
                """
                EXPLAIN (FORMAT JSON) SELECT local_id FROM \(schema).users
                WHERE project_id = 'p' AND tenant_id = '' AND email = 'user1999@example.com' ORDER BY local_id
                """)
        }
        #expect(plan?.contains(#""Index Name": "users_email_uid""#) == true, "\(plan ?? "")")
        let found = try await store.read { tx in try await tx.users(scope, email: "USER1999@example.com").map(\.localId)
        }
        #expect(found == ["u01999"])
        await store.close()
    }

    @Test(
        "a statement on a PostgreSQL connection that has closed fails at once with UNAVAILABLE, and the pool replaces it",
        .enabled(if: postgresURL != nil, "AUTHEMU_TEST_POSTGRES_URL is not set (scripts/test sets it)"))
    func postgresClosedConnection() async throws {
        let store = try await Self.postgres(schema: "closed_\(UInt32.random(in: 0...UInt32.max))")
        // A task of its own, not awaited: without the check, postgres-nio never answers a query
        // written to a closed channel, and the ROLLBACK below waited forever (past the deadline).
        let answered = Flag()
        let call = Task {
            defer { answered.set() }
            try await store.session { session in
                try await session.connection.close()
                await session.rollback()
                try await session.execute("SELECT 1")
            }
        }
        let waitedUntil = ContinuousClock.now + .seconds(30)
        while !answered.isSet, ContinuousClock.now < waitedUntil { try await Task.sleep(for: .milliseconds(10)) }
        guard answered.isSet else {
            Issue.record("a statement on a closed connection never answered")
            return
        }
        do {
            try await call.value
            Issue.record("a statement on a closed connection succeeded")
        } catch let error as AuthError {
            #expect(error.code == "UNAVAILABLE")
            #expect(error.detail == "The emulator's database cannot be used: PostgreSQL: I/O on closed channel")
        }
        // The pool drops the connection once it hears of the close, and leases a new one.
        let selected = { try? await store.session { try await $0.value(Int32.self, "SELECT 1") } }
        while await selected() != 1, ContinuousClock.now < waitedUntil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await selected() == 1, "the pool did not replace the closed connection")
        await store.close()
    }

    @Test(
        "a PostgreSQL schema from a newer authemu is refused and not modified; URLs are checked and masked",
        .enabled(if: postgresURL != nil, "AUTHEMU_TEST_POSTGRES_URL is not set (scripts/test sets it)"))
    func postgresNewerSchemaRefused() async throws {
        let schema = "newer_\(UInt32.random(in: 0...UInt32.max))"
        let store = try await Self.postgres(schema: schema)
        try await store.write { tx in try await tx.save(Scope(projectId: "p"), UserRecord(localId: "kept")) }
        try await store.session { session in
            try await session.execute(
                "INSERT INTO \(schema).authemu_migrations (identifier) VALUES ('pg999-from-the-future')")
        }
        await store.close()
        do {
            _ = try await Self.postgres(schema: schema)
            Issue.record("a newer schema was opened")
        } catch let error as StoreOpenError {
            #expect(error.description.contains("written by a newer authemu (migration \"pg999-from-the-future\")"))
        }
        let again = try await Self.postgres(schema: "\(schema)_other")
        let kept = try await again.session { session in
            try await session.value(Int64.self, "SELECT COUNT(*) FROM \(schema).users")
        }
        #expect(kept == 1)
        await again.close()
        let url = try PostgresStoreURL("postgres://u:s3cret@db.example:6543/auth?schema=ci_a&sslmode=require&pool=8")
        #expect(url.masked == "postgres://u:***@db.example:6543/auth?schema=ci_a&sslmode=require&pool=8")
        #expect(url.schema == "ci_a" && url.poolSize == 8)
        #expect(throws: StoreOpenError.self) { try PostgresStoreURL("postgres://h/db?schema=Bad-Name") }
        #expect(throws: StoreOpenError.self) { try PostgresStoreURL("postgres://h/db?sslmode=sometimes") }
        #expect(throws: StoreOpenError.self) {
            try PostgresStoreURL("postgres://h/db?sslmode=verify-ca&sslrootcert=/nope")
        }
        #expect(throws: StoreOpenError.self) { try PostgresStoreURL("postgres://h/db?sslrootcert=/etc/passwd") }
        #expect(throws: StoreOpenError.self) { try PostgresStoreURL("postgres://h/db?sslcert=/etc/passwd") }
        #expect(try PostgresStoreURL("postgres://h/db?sslmode=verify-ca&sslrootcert=/etc/passwd").schema == "authemu")
        #expect(throws: StoreOpenError.self) { try PostgresStoreURL("mysql://h/db") }
    }
}

/// A flag one task sets and another polls.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
