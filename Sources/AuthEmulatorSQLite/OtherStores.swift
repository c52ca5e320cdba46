import AuthEmulator
import Foundation
import GRDB
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Whether another store (another daemon, an offline `authemu reset --data`, a second store in
/// this process) may have written the database file, so that what this store's own writes changed
/// (`CodeListingStamps`) is all that changed. Every store of a file makes itself known twice:
/// - while it is open, it holds a read lock on the first byte of `<path>-lock`, an open file
///   description lock: released when the store closes or its process dies, and seen by the other
///   stores of its own process too;
/// - when it opens, it adds one to the file's count of openings (`PRAGMA user_version`), in a write
///   transaction of its own, before it writes anything else.
///
/// A store is *alone* from a read that finds no other holder of the lock (`F_OFD_GETLK` tests,
/// takes nothing) before its snapshot, and the count in its snapshot equal to the one an earlier
/// read saw; until a read's snapshot shows another count. A store that opened before that test
/// held the lock at it, or had closed, and then everything it wrote is in the snapshot; one that
/// opened after it changes the count before it writes. Each stretch of being alone has an epoch:
/// a mark from an earlier stretch never matches a later one's.
final class OtherStores: @unchecked Sendable {
    /// The lock file, or -1 for a database in memory (no other store can open it).
    private let lockFile: Int32
    private let lock = NSLock()
    /// The count of openings while alone; nil while not known to be alone.
    private var aloneAt: Int32?
    /// The count of openings the last read (or the opening) saw.
    private var lastSeen: Int32?
    private var epoch: UInt64 = 0

    /// For a database in memory: always alone.
    init() {
        lockFile = -1
        aloneAt = 0
        epoch = 1
    }

    /// Takes the lock on `<path>-lock` (creating it) and counts this opening on `writer`.
    init(path: String, writer: any DatabaseWriter) throws {
        let lockPath = path + "-lock"
        let file = open(lockPath, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard file >= 0 else {
            throw StoreOpenError("cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        lockFile = file
        var request = Self.firstByte(F_RDLCK)
        guard fcntl(file, Self.setLock, &request) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(file)
            throw StoreOpenError("cannot lock \(lockPath): \(reason)")
        }
        do {
            lastSeen = try writer.write { db in
                let count = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                try db.execute(sql: "PRAGMA user_version = \(count &+ 1)")
                return count &+ 1
            }
        } catch {
            Glibc.close(file)
            throw error
        }
    }

    /// The epoch of the stretch of being alone that a read belongs to, or nil. Asked first in a
    /// read transaction: it reads the count, which takes the transaction's snapshot (after the
    /// lock test). nil when the snapshot was taken already.
    func aloneEpoch(_ db: Database) throws -> UInt64? {
        guard sqlite3_txn_state(db.sqliteConnection, "main") == SQLITE_TXN_NONE else { return nil }
        let before = lock.withLock { (aloneAt, lastSeen, epoch) }
        let noOtherHolder = before.0 == nil && noOtherLockHolder()
        let count = try Int32.fetchOne(db.cachedStatement(sql: "PRAGMA user_version")) ?? 0
        return lock.withLock { () -> UInt64? in
            if let aloneAt, before.0 != nil {
                if aloneAt == count { return epoch == before.2 ? epoch : nil }
                self.aloneAt = nil
            } else if noOtherHolder, before.1 == count, aloneAt == nil {
                aloneAt = count
                epoch += 1
                lastSeen = count
                return epoch
            }
            lastSeen = count
            return nil
        }
    }

    /// Whether no other open file description holds a lock on the lock file's first byte.
    private func noOtherLockHolder() -> Bool {
        guard lockFile >= 0 else { return true }
        var probe = Self.firstByte(F_WRLCK)
        guard fcntl(lockFile, Self.getLock, &probe) == 0 else { return false }
        return probe.l_type == Int16(F_UNLCK)
    }

    /// A lock request of `type` on the lock file's first byte.
    private static func firstByte(_ type: Int32) -> flock {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 1
        return request
    }

    // Linux's open file description lock commands (<fcntl.h> with _GNU_SOURCE).
    private static let getLock: Int32 = 36
    private static let setLock: Int32 = 37

    /// Gives the lock up (the store closes).
    func close() {
        if lockFile >= 0 { Glibc.close(lockFile) }
    }
}
