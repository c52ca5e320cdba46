import AuthEmulator
import Foundation
import Testing

@testable import AuthEmulatorPostgres

/// What the PostgreSQL store's serializable writes promise, seen from two stores on one schema.
@Suite("PostgreSQL concurrent writes")
struct PostgresConcurrentWriteTests {
    @Test(
        "writes to other accounts, in the project or another, do not wait for an open write; two to one account lose no update",
        .enabled(if: StoreConformanceTests.postgresURL != nil, "AUTHEMU_TEST_POSTGRES_URL is not set"))
    func otherAccountsDoNotWait() async throws {
        let schema = "locks_\(UInt32.random(in: 0...UInt32.max))"
        let holder = try await StoreConformanceTests.postgres(schema: schema)
        let other = try await StoreConformanceTests.postgres(schema: schema)
        let (projectA, projectB) = (Scope(projectId: "a"), Scope(projectId: "b"))
        @Sendable func named(_ localId: String, _ name: String) -> UserRecord {
            var user = UserRecord(localId: localId)
            user.displayName = name
            return user
        }
        let holding = Flag()
        // Keeps a write of account a/first open for 3 s on its first run: pg_sleep holds its
        // transaction on the server. Should PostgreSQL end it as a conflict, it runs again at once.
        let held = Task {
            try await holder.write { tx in
                let seen = try await tx.user(projectA, localId: "first")?.displayName ?? ""
                try await tx.save(projectA, named("first", seen + "h"))
                guard !holding.isSet else { return }
                holding.set()
                try await (tx as! PostgresTransaction).session.execute("SELECT pg_sleep(3)")
            }
        }
        while !holding.isSet { try await Task.sleep(for: .milliseconds(5)) }
        try await other.write { tx in try await tx.save(projectB, named("b1", "b")) }
        try await other.write { tx in
            _ = try await tx.users(projectA, email: "nobody@example.com")
            try await tx.save(projectA, named("second", "a"))
        }
        // The holder has not committed yet: neither write waited for it.
        let visibleMeanwhile = try await other.read { tx in try await tx.user(projectA, localId: "first") != nil }
        #expect(!visibleMeanwhile, "a write to another account waited for the open write to commit")
        // A read-modify-write of the holder's account: one of the two runs after the other and
        // sees what it committed (its insert waits on the holder's row, then one is run again).
        try await other.write { tx in
            let seen = try await tx.user(projectA, localId: "first")?.displayName ?? ""
            try await tx.save(projectA, named("first", seen + "o"))
        }
        try await held.value
        let stored = try await holder.read { tx in
            try await tx.listUsers(projectA, after: nil, limit: nil, descending: false).map {
                "\($0.localId)=\($0.displayName ?? "")"
            }
        }
        #expect(stored == ["first=ho", "second=a"] || stored == ["first=oh", "second=a"], "\(stored)")
        await holder.close()
        await other.close()
    }

    @Test(
        "sessions commit with synchronous_commit off unless the URL asks for on; a bad level is refused",
        .enabled(if: StoreConformanceTests.postgresURL != nil, "AUTHEMU_TEST_POSTGRES_URL is not set"))
    func synchronousCommit() async throws {
        let schema = "sync_\(UInt32.random(in: 0...UInt32.max))"
        let relaxed = try await StoreConformanceTests.postgres(schema: schema)
        let level = { (store: PostgresStore) in
            try await store.session { try await $0.value(String.self, "SHOW synchronous_commit") }
        }
        #expect(try await level(relaxed) == "off")
        await relaxed.close()
        let base = try #require(StoreConformanceTests.postgresURL)
        let separator = base.contains("?") ? "&" : "?"
        let flushed = try await PostgresStore(
            url: PostgresStoreURL("\(base)\(separator)schema=\(schema)&synchronous_commit=on"),
            logger: .init(label: "test"))
        #expect(try await level(flushed) == "on")
        await flushed.close()
        do {
            _ = try PostgresStoreURL("postgres://h/db?synchronous_commit=sometimes")
            Issue.record("a bad synchronous_commit was accepted")
        } catch let error as StoreOpenError {
            #expect(
                error.description
                    == "store URL: synchronous_commit must be off, local, remote_write, on, remote_apply, got sometimes"
            )
        }
    }
}
