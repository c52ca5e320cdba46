import AuthEmulator
import Foundation
import GRDB

/// The durable state on SQLite (WAL) through GRDB; `inMemory` runs the same code on a private
/// in-memory database for `--ephemeral` and tests.
public final class SQLiteStore: AuthStore {
    let writer: any DatabaseWriter
    let userCache = StoredRecordCache<UserRecord>()
    public let committedEvents = CommittedEventOutlet()
    let smsCache = StoredRecordCache<SmsMessage>()
    let groupCommit = GroupCommit()
    /// The WAL's checkpoints, off the writer (nil in memory).
    let checkpoint: BackgroundCheckpoint?
    /// The connections reads run on (nil in memory, where reads use the one connection).
    let readers: ReaderConnections?
    /// What this store's own writes changed in the code log, and whether it is alone on the file.
    let listingStamps: CodeListingStamps

    /// Opens (creating if absent) the database at `path`. An existing file that is not an authemu
    /// database, is truncated or corrupt, or was written by a newer authemu is refused and left
    /// untouched.
    public convenience init(path: String) throws {
        try self.init(path: path, checkpoints: BackgroundCheckpoint.Thresholds())
    }

    /// A new database file in a group-writable directory (the image's volume, owned by group 0 for
    /// any uid run in it) is created group-writable too, whatever the umask: SQLite gives its
    /// `-wal` and `-shm` files the database file's mode, so a later container with another uid
    /// of the same group can write all three. Elsewhere SQLite creates it as usual.
    static func createSharedWithGroup(path: String) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard let mode = try? FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? NSNumber,
            mode.intValue & 0o020 != 0
        else { return }
        let shared = [FileAttributeKey.posixPermissions: NSNumber(value: 0o660 | (mode.intValue & 0o004))]
        // The umask applies at creation; the mode is set again after it.
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: shared) else { return }
        try? FileManager.default.setAttributes(shared, ofItemAtPath: path)
    }

    /// Opens the database at `path`, checkpointing its WAL at `checkpoints` (tests use small ones).
    init(path: String, checkpoints: BackgroundCheckpoint.Thresholds) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: path) {
            try SQLiteStore.inspectExisting(path: path)
        } else {
            SQLiteStore.createSharedWithGroup(path: path)
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA busy_timeout = 5000")
        }
        writer = try DatabasePool(path: path, configuration: configuration)
        listingStamps = CodeListingStamps(try OtherStores(path: path, writer: writer))
        try Schema.migrator.migrate(writer)
        readers = ReaderConnections(path: path, configuration: configuration)
        let checkpoint = try BackgroundCheckpoint(path: path, configuration: configuration, thresholds: checkpoints)
        writer.writeWithoutTransaction { db in checkpoint.install(on: db) }
        self.checkpoint = checkpoint
    }

    /// A private in-memory database with the same schema.
    public init(inMemory: Void = ()) throws {
        writer = try DatabaseQueue()
        checkpoint = nil
        readers = nil
        listingStamps = CodeListingStamps(OtherStores())
        try Schema.migrator.migrate(writer)
    }

    /// Checks a database file before anything writes to it (opening a pool would switch it to WAL).
    static func inspectExisting(path: String) throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 { return }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreOpenError("cannot read \(path)")
        }
        let header = handle.readData(ofLength: 100)
        try? handle.close()
        guard header.count == 100, header.starts(with: Array("SQLite format 3\u{0}".utf8)) else {
            throw StoreOpenError("\(path) is not a SQLite database (bad header); refusing to touch it")
        }
        let bytes = [UInt8](header)
        var pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        if pageSize == 1 { pageSize = 65536 }
        let pageCount = Int(bytes[28]) << 24 | Int(bytes[29]) << 16 | Int(bytes[30]) << 8 | Int(bytes[31])
        // SQLite trusts the header's page count only when the change counter (offset 24) equals the
        // version-valid-for number (offset 92). And a process killed during a WAL checkpoint leaves
        // page 1 (with the new count) written before the pages that grow the file: the WAL still
        // holds them all and SQLite recovers, so a non-empty WAL means "not truncated".
        let headerCountValid = bytes[24..<28].elementsEqual(bytes[92..<96])
        let walSize =
            (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?
            .intValue ?? 0
        if headerCountValid, walSize == 0, pageCount > 0, pageSize > 0, size < pageCount * pageSize {
            throw StoreOpenError(
                "\(path) is truncated (\(size) bytes, header says \(pageCount * pageSize)); refusing to touch it")
        }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let tables = try queue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if tables.isEmpty { return }
            guard tables.contains("grdb_migrations") else {
                throw StoreOpenError("\(path) is a SQLite database but not an authemu one; refusing to touch it")
            }
            let applied = try queue.read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
            let known = Set(Schema.migrator.migrations)
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw StoreOpenError(
                    "\(path) was written by a newer authemu (schema migration \"\(unknown)\"); upgrade authemu or use another --data path"
                )
            }
            try queue.close()
        } catch let error as StoreOpenError {
            throw error
        } catch {
            throw StoreOpenError("\(path) cannot be read as a database (\(error)); refusing to touch it")
        }
    }

    // Transactions are short (they await only the store, which never suspends here: `runToEnd`)
    // and run on the calling task's thread through GRDB's synchronous API: the asynchronous API's
    // hop to a dispatch queue and back costs two thread wake-ups per request. Reads have
    // connections of their own (`ReaderConnections`); a write that finds another one running waits
    // suspended, not blocking one of the few task-pool threads, and is committed with the others
    // that waited (`GroupCommit`).
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws
        -> T
    {
        try mapped {
            let transaction = { (db: Database) in
                try db.transaction("BEGIN DEFERRED TRANSACTION") {
                    try runToEnd(body, SQLiteTransaction(db: db, store: self))
                }
            }
            if let readers { return try readers.read(transaction) }
            return try writer.unsafeRead(transaction)
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws
        -> T
    {
        let job = WriteJob(body, store: self)
        let outcome = await groupCommit.submit(job) { jobs in
            self.writer.writeWithoutTransaction { db in
                defer { self.listingStamps.settle() }
                let results = db.runBatch(jobs)
                // Still the batch's writer: the next batch commits after these are handed on.
                for (job, result) in zip(jobs, results) where result.isSuccess {
                    self.committedEvents.deliver(job.events)
                }
                return results
            }
        }
        switch outcome {
        case .success: return job.value!
        case .failure(let error): throw Self.unavailable(error)
        }
    }

    public func isReady() async -> Bool {
        // A table's first page, not only the connection: a file truncated or replaced under the
        // daemon has none.
        (try? await writer.read { db in try db.execute(sql: "SELECT 1 FROM users LIMIT 1") }) != nil
    }

    /// Closes the database (checkpointing the WAL) on shutdown.
    public func close() throws {
        if let pool = writer as? DatabasePool {
            readers?.close()
            checkpoint?.close()
            try? pool.writeWithoutTransaction { db in
                checkpoint?.remove(from: db)
                _ = try db.checkpoint(.truncate)
            }
            try pool.close()
            listingStamps.otherStores.close()
        }
    }

    /// Storage failures (disk full, read-only, an I/O error, a file corrupted or replaced under
    /// the daemon) become 503s: every SQLite error is the database's, never the request's.
    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw Self.unavailable(error)
        }
    }

    private static func unavailable(_ error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        return AuthError.storeUnavailable(error.message ?? "\(error.resultCode)")
    }
}

/// A write's body and, once its batch has run it, the body's value.
final class WriteJob<T>: GroupCommit.Job, @unchecked Sendable {
    let body: @Sendable (any StoreTransaction) async throws -> T
    let store: SQLiteStore
    var value: T?

    init(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T, store: SQLiteStore) {
        self.body = body
        self.store = store
    }

    override func run(_ db: Database) throws {
        events = RecordedEvents()
        value = try runToEnd(body, SQLiteTransaction(db: db, store: store, events: events))
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

extension Database {
    /// `begin` … `COMMIT` (or a rollback on error) through cached statements: GRDB's own
    /// transactions parse both statements again on every call (~15,000 instructions a request).
    /// The schema is only migrated at start-up, so its cache needs no clearing here.
    fileprivate func transaction<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        try cachedStatement(sql: begin).execute()
        do {
            let result = try body()
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            // After SQLITE_FULL or an I/O error SQLite may have rolled back already.
            if isInsideTransaction { try? rollback() }
            throw error
        }
    }
}

extension SQLiteStore {
    /// Marks a database as migrated by an unknown (newer) version; for tests of the refusal.
    public static func recordMigrationForTesting(path: String, identifier: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
        }
        try queue.close()
    }
}
