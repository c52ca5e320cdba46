import Foundation
import GRDB

/// The connections the store's reads run on: read-only `DatabaseQueue`s on the store's file, each
/// lent to one read at a time and kept for the next.
///
/// GRDB's `DatabasePool` readers do more per read than these reads need: a search of the pool for
/// a reader already on this thread, a barrier queue, a semaphore and a group around the lending,
/// and `PRAGMA schema_version` (a statement, and a read transaction of its own) to know whether to
/// drop its schema cache. The store reads through its own SQL only: its schema is migrated before
/// the first read, and SQLite re-prepares a statement whose schema changed. A lookup cost 41,000
/// instructions less (bench/README, "Reads on connections of their own").
final class ReaderConnections: @unchecked Sendable {
    private let path: String
    private let configuration: Configuration
    private let lock = NSLock()
    private var idle: [DatabaseQueue] = []

    /// Readers of `path` with the writer's `configuration` (whose `busy_timeout` waits out the
    /// rare cases where a WAL read is busy: another process's recovery or last close), read-only.
    init(path: String, configuration: Configuration) {
        var configuration = configuration
        configuration.readonly = true
        self.path = path
        self.configuration = configuration
    }

    /// Runs `body` on an idle connection (one is opened when none is idle). A connection that a
    /// body left inside a transaction is rolled back; one that cannot be is closed, not kept.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try lock.withLock { idle.popLast() } ?? DatabaseQueue(path: path, configuration: configuration)
        var reusable = true
        defer {
            if reusable { lock.withLock { idle.append(reader) } } else { try? reader.close() }
        }
        return try reader.inDatabase { db in
            defer {
                if db.isInsideTransaction { reusable = (try? db.rollback()) != nil }
            }
            return try body(db)
        }
    }

    /// Closes the idle connections (at the store's close, when no read runs).
    func close() {
        let readers = lock.withLock {
            defer { idle.removeAll() }
            return idle
        }
        for reader in readers { try? reader.close() }
    }
}
