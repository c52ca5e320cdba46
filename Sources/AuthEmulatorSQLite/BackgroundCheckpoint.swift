import Foundation
import GRDB
import GRDBSQLite

/// Copies the WAL back into the database file on a connection and a thread of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages, on
/// the writer. Every write queued behind that commit waits for the copy and its two `fdatasync`s,
/// several milliseconds on a disk. An SMS MFA flow writes ~22 WAL pages, so at 4 connections that
/// came every ~45 flows, and the flow answered ~30% fewer requests a second than with no checkpoint
/// at all.
///
/// This replaces the automatic checkpoint with a WAL hook on the writer. Once the WAL has grown by
/// `background` pages since the last checkpoint started, a `PASSIVE` checkpoint runs on a utility
/// queue while the writer goes on appending. When the writer is idle the checkpoint catches up
/// and the next write starts the WAL over, so the file stays as small as before. Under sustained
/// writes it may never catch up; at `writer` pages the writer checkpoints in its commit, as
/// SQLite would (by then most pages are already copied), and the WAL starts over.
///
/// Durability is unchanged: a commit is in the WAL before it is acknowledged, and a checkpoint
/// killed halfway is finished by SQLite's recovery from that WAL. The bench floor
/// (`authemu-bench-floor`) checkpoints its SQLite the same way, so that it stays a floor.
public final class BackgroundCheckpoint: @unchecked Sendable {
    /// WAL sizes, in pages, that trigger a checkpoint.
    public struct Thresholds: Sendable {
        /// Growth since the last checkpoint started that starts one in the background (SQLite's
        /// own automatic threshold).
        public var background: Int32
        /// The size past which the writer checkpoints in its commit: 64 MB of 4 KiB pages.
        public var writer: Int32

        public init(background: Int32 = 1000, writer: Int32 = 16_000) {
            self.background = background
            self.writer = writer
        }
    }

    public let thresholds: Thresholds
    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "authemu.sqlite.checkpoint", qos: .utility)
    private let lock = NSLock()
    /// Whether a checkpoint is queued or running.
    private var running = false
    /// The WAL's size when the last checkpoint started (0 once the writer starts the WAL over).
    private var startedAt: Int32 = 0
    private var closed = false
    private var completed = 0
    private var walPages: Int32 = 0

    /// Opens the checkpointing connection on the database at `path` (already in WAL mode), with
    /// the writer's `configuration` (its `synchronous` level decides the checkpoint's syncs).
    public init(path: String, configuration: Configuration, thresholds: Thresholds = Thresholds()) throws {
        self.thresholds = thresholds
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Background checkpoints run so far, and the WAL's size after the last commit.
    var statistics: (completed: Int, walPages: Int32) { lock.withLock { (completed, walPages) } }

    /// Makes `db` (the writer) ask for checkpoints in the background instead of running them.
    public func install(on db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, walCommitted, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Gives `db` SQLite's automatic checkpoint back.
    public func remove(from db: Database) {
        sqlite3_wal_autocheckpoint(db.sqliteConnection, 1000)
    }

    /// Waits until no checkpoint is queued or running.
    func drain() {
        queue.sync {}
    }

    /// Waits for a running checkpoint and closes the connection; later commits start none.
    public func close() {
        lock.withLock { closed = true }
        drain()
        try? connection.close()
    }

    /// After a commit left `pages` in the WAL: starts a background checkpoint if it is due, and
    /// answers whether the writer must checkpoint itself.
    fileprivate func committed(pages: Int32) -> Bool {
        let start: Bool = lock.withLock {
            walPages = pages
            if pages < startedAt { startedAt = 0 }  // the writer started the WAL over
            if closed || running || pages - startedAt < thresholds.background { return false }
            running = true
            startedAt = pages
            return true
        }
        if start { queue.async { self.run() } }
        return pages >= thresholds.writer
    }

    private func run() {
        _ = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        lock.withLock {
            completed += 1
            running = false
        }
    }
}

/// The writer's WAL hook, called after each commit with the WAL's size in pages.
private func walCommitted(
    context: UnsafeMutableRawPointer?, db: OpaquePointer?, name: UnsafePointer<CChar>?, pages: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    if Unmanaged<BackgroundCheckpoint>.fromOpaque(context).takeUnretainedValue().committed(pages: pages) {
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
    return SQLITE_OK
}
