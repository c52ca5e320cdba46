import AuthEmulator
import Foundation
import Testing

@testable import AuthEmulatorSQLite

/// The WAL checkpoints of a SQLite file (`BackgroundCheckpoint`), with small thresholds.
@Suite("SQLite checkpoints")
struct SQLiteCheckpointTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authemu-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("s.sqlite").path }

    /// One commit of a user with a 2,000-character name and a 1,000-character photo URL (a few WAL pages).
    func write(_ store: SQLiteStore, _ index: Int) async throws {
        try await store.write { tx in
            var user = UserRecord(localId: "u\(index)")
            user.displayName = String(repeating: "x", count: 2000)
            user.photoUrl = "https://example.com/" + String(repeating: "p", count: 1000)
            try await tx.save(Scope(projectId: "p"), user)
        }
    }

    func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("writes leave the WAL's copy to a background checkpoint, which starts the WAL over once caught up")
    func background() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, checkpoints: .init(background: 50, writer: 1_000_000))
        let checkpoint = try #require(store.checkpoint)
        let sizeBefore = try fileSize(path)
        for index in 0..<40 { try await write(store, index) }
        checkpoint.drain()
        let burst = checkpoint.statistics
        #expect(burst.completed >= 1)
        #expect(try fileSize(path) > sizeBefore, "no pages were copied into the database file")
        // One write at a time, each waiting for the checkpoint it starts: the next checkpoint
        // copies the whole WAL, and the write after it starts the WAL over.
        var pages = burst.walPages
        var startedOver = false
        var written = 40
        while !startedOver, written < 140 {
            try await write(store, written)
            written += 1
            checkpoint.drain()
            startedOver = checkpoint.statistics.walPages < pages
            pages = checkpoint.statistics.walPages
        }
        #expect(startedOver, "the WAL grew to \(pages) pages")
        #expect(checkpoint.statistics.walPages < 50)
        let count = try await store.read { tx in
            try await tx.listUsers(Scope(projectId: "p"), after: nil, limit: nil, descending: false).count
        }
        #expect(count == written)
        try store.close()
    }

    @Test("with the background checkpoint stopped, the writer checkpoints itself at its threshold")
    func writerFallback() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, checkpoints: .init(background: 50, writer: 120))
        let checkpoint = try #require(store.checkpoint)
        checkpoint.close()
        var largest: Int32 = 0
        for index in 0..<100 {
            try await write(store, index)
            largest = max(largest, checkpoint.statistics.walPages)
        }
        #expect(checkpoint.statistics.completed == 0)
        #expect(largest >= 120)
        // One commit past the threshold (a user's few pages, more when a B-tree page splits), not more.
        #expect(largest < 200, "the WAL grew past the writer's threshold to \(largest) pages")
        try store.close()
        let reopened = try SQLiteStore(path: path)
        let count = try await reopened.read { tx in
            try await tx.listUsers(Scope(projectId: "p"), after: nil, limit: nil, descending: false).count
        }
        #expect(count == 100)
        try reopened.close()
    }
}
