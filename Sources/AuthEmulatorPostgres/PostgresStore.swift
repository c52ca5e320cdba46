import AuthEmulator
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The durable state on PostgreSQL, shared by every daemon pointed at the same database and
/// schema. Each transaction body runs with one pooled connection on that connection's event loop
/// (`EventLoopTaskExecutor`), awaiting each statement there (postgres-nio sends a connection's
/// statements one at a time, each a round trip). Writes run at `SERIALIZABLE`: PostgreSQL finds
/// the conflicts, and a write that loses one is run again; so writes from every daemon run side by
/// side, in different projects and in one, and none holds a lock another waits for (the outboxes'
/// ids excepted: `PostgresTransaction.outboxLock`). Reads run in parallel on snapshots. Committed
/// changes are announced with NOTIFY. docs/postgres.md, "Concurrency", has the reasons.
public final class PostgresStore: AuthStore {
    let url: PostgresStoreURL
    let client: PostgresClient
    let logger: Logger
    let userCache = StoredRecordCache<UserRecord>()
    private let clientTask: Task<Void, Never>
    private let listener = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let handlers = NIOLockedValueBox<[@Sendable (StoreChange) -> Void]>([])
    public let committedEvents = CommittedEventOutlet()
    private let statistics: PlannerStatistics

    /// How long a request waits for a connection and its transaction before answering 503.
    static let deadline: Duration = .seconds(5)
    /// How long `/readyz` waits for `SELECT 1`.
    static let readinessDeadline: Duration = .seconds(2)

    var channel: String { "authemu_\(url.schema)" }

    /// Connects, migrates the schema (refusing one written by a newer authemu) and starts
    /// listening for other daemons' changes.
    public init(url: PostgresStoreURL, logger: Logger) async throws {
        self.url = url
        self.logger = logger
        let client = PostgresClient(configuration: url.configuration, backgroundLogger: logger)
        self.client = client
        clientTask = Task { await client.run() }
        statistics = PlannerStatistics(logger: logger) {
            try await client.withConnection { connection in
                _ = try await connection.query("ANALYZE users, federated_ids", logger: logger)
            }
        }
        do {
            try await Self.connectOnce(url, logger: logger)
            try await session { try await PostgresSchema.migrate($0, schema: url.schema) }
        } catch let error as StoreOpenError {
            await close()
            throw error
        } catch {
            await close()
            throw StoreOpenError("cannot open the PostgreSQL store \(url.masked): \(Self.describe(error))")
        }
        listener.withLockedValue { $0 = listen() }
    }

    /// One connection outside the pool, closed at once: its failure names the reason (the pool's
    /// would only say that no connection came within the deadline). A server that cannot be
    /// reached yet, or is starting up, is tried again until the deadline (a daemon started with
    /// its database, or just before it); a refusal (password, database, certificate) is final.
    private static func connectOnce(_ url: PostgresStoreURL, logger: Logger) async throws {
        let giveUp = ContinuousClock.now + deadline
        var warned = false
        while true {
            do {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: try url.singleConnection(),
                    id: 0, logger: logger)
                try await connection.close()
                return
            } catch {
                guard isTransient(error), ContinuousClock.now < giveUp else { throw error }
                if !warned {
                    logger.warning(
                        "PostgreSQL cannot be reached yet (\(describe(error))); trying again for \(deadline)")
                    warned = true
                }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws
        -> T
    {
        try await session { session in
            do {
                return try await body(PostgresTransaction(session: session.singleSelect(readsOnly: false)))
            } catch is PostgresSession.NeedsSnapshot {
                return try await Self.snapshotRead(session, body)
            }
        }
    }

    /// A read of several statements, from one snapshot.
    private static func snapshotRead<T>(
        _ session: PostgresSession, _ body: @Sendable (any StoreTransaction) async throws -> T
    ) async throws -> T {
        // Not waited for: should it fail, the body's reads ran outside a transaction and their
        // result is thrown away below.
        let begin = session.send("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let value = try await body(PostgresTransaction(session: session))
            try await begin.check()
            // A snapshot that only read has nothing to flush: its end is not waited for (the
            // connection runs it before the next lease's statements).
            _ = session.send("COMMIT")
            return value
        } catch {
            await session.rollback()
            throw error
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws
        -> T
    {
        let channel = self.channel
        return try await session { [statistics, committedEvents] session in
            var attempt = 1
            while true {
                do {
                    return try await Self.writeOnce(
                        session, channel: channel, statistics: statistics, events: committedEvents, body)
                } catch  where attempt < Self.conflictAttempts && Self.isConflict(error) {
                    attempt += 1
                }
            }
        }
    }

    /// How many times a write is run while PostgreSQL ends it as a conflict (each time from the
    /// start, its body too). Each retry sees what the write it lost to committed, so a body that
    /// checks before it saves fails as the domain says (`EMAIL_EXISTS`) instead of retrying; 16
    /// sign-ups of one address at once settle in two runs. Only a loop of such losses, within the
    /// request's deadline, gives up with 503.
    static let conflictAttempts = 50

    /// One run of a write, at `SERIALIZABLE`: it sees one snapshot, and PostgreSQL ends it with a
    /// serialization failure (40001) should it conflict with a concurrent write in a way no
    /// one-after-the-other order allows (a read of what the other wrote, both ways). Writes that
    /// touch different accounts, projects or settings never wait for each other.
    private static func writeOnce<T>(
        _ session: PostgresSession, channel: String, statistics: PlannerStatistics, events: CommittedEventOutlet,
        _ body: @Sendable (any StoreTransaction) async throws -> T
    ) async throws -> T {
        try await session.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        let transaction = PostgresTransaction(session: session)
        do {
            let value = try await body(transaction)
            let notices = transaction.changes.sorted { $0.rawValue < $1.rawValue }.map { change in
                session.send("SELECT pg_notify($1, $2)", [.text(channel), .text(change.rawValue)])
            }
            for notice in notices { try await notice.check() }
            try await session.commit()
            events.deliver(transaction.events)
            statistics.saved(transaction.savedAccounts)
            return value
        } catch {
            await session.rollback()
            throw error
        }
    }

    /// A serialization failure (40001) or a deadlock (40P01): the write is run again.
    static func isConflict(_ error: any Error) -> Bool {
        ["40001", "40P01"].contains(sqlState(error) ?? "")
    }

    /// Reads from one snapshot outside a write transaction, then stores the session times in their own
    /// statement (no other writer waits for a sign-in). A body that changes anything else runs
    /// again as a `write`.
    public func sessionWrite<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T)
        async throws -> T
    {
        do {
            return try await session { session in
                var transaction = PostgresTransaction(session: session.singleSelect(readsOnly: true))
                let value: T
                do {
                    value = try await body(transaction)
                } catch is PostgresSession.NeedsSnapshot {
                    (value, transaction) = try await Self.snapshotSessionRead(session, body)
                }
                for binds in transaction.deferredSessionTimes ?? [] {
                    try await session.execute(PostgresTransaction.saveSessionTimesSQL, binds)
                }
                return value
            }
        } catch is PostgresSession.NeedsWriteLock {
            return try await write(body)
        }
    }

    /// The reads of a `sessionWrite` of several statements, from one snapshot.
    private static func snapshotSessionRead<T>(
        _ session: PostgresSession, _ body: @Sendable (any StoreTransaction) async throws -> T
    ) async throws -> (T, PostgresTransaction) {
        let begin = session.send("BEGIN ISOLATION LEVEL REPEATABLE READ")
        var reading = session
        reading.readsOnly = true
        let transaction = PostgresTransaction(session: reading)
        do {
            let value = try await body(transaction)
            try await begin.check()
            // Only reads so far: the snapshot's end is not waited for.
            _ = session.send("COMMIT")
            return (value, transaction)
        } catch {
            await session.rollback()
            throw error
        }
    }

    public func isReady() async -> Bool {
        (try? await session(deadline: Self.readinessDeadline) { try await $0.value(Int32.self, "SELECT 1") }) == 1
    }

    public func observeChanges(_ handler: @escaping @Sendable (StoreChange) -> Void) {
        handlers.withLockedValue { $0.append(handler) }
    }

    /// Stops listening and closes the connections.
    public func close() async {
        listener.withLockedValue { $0?.cancel() }
        clientTask.cancel()
    }

    /// Runs `work` with a pooled connection on that connection's event loop, within `deadline`;
    /// failures to reach the database become 503 `UNAVAILABLE`.
    @discardableResult
    func session<T: Sendable>(
        deadline: Duration = PostgresStore.deadline, _ work: @escaping @Sendable (PostgresSession) async throws -> T
    ) async throws -> T {
        let (client, logger, userCache) = (self.client, self.logger, self.userCache)
        do {
            return try await StoreDeadline.run(deadline) { limit in
                try await client.withConnection { connection in
                    limit.leased(connection)
                    defer { limit.leased(nil) }
                    return try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) {
                        try await work(PostgresSession(connection: connection, logger: logger, userCache: userCache))
                    }
                }
            }
        } catch {
            throw Self.mapped(error)
        }
    }

    private func listen() -> Task<Void, Never> {
        Task { [client, channel, handlers, logger] in
            var reconnected = false
            while !Task.isCancelled {
                do {
                    let wasReconnected = reconnected
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            // Whatever changed while the connection was down was not heard: assume all.
                            if wasReconnected { Self.dispatch(StoreChange.allCases, handlers) }
                            for try await notification in notifications {
                                if let change = StoreChange(rawValue: notification.payload) {
                                    Self.dispatch([change], handlers)
                                }
                            }
                        }
                    }
                } catch {
                    if !Task.isCancelled { logger.warning("PostgreSQL change listener: \(Self.describe(error))") }
                }
                reconnected = true
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    private static func dispatch(
        _ changes: [StoreChange], _ handlers: NIOLockedValueBox<[@Sendable (StoreChange) -> Void]>
    ) {
        let current = handlers.withLockedValue { $0 }
        for change in changes { for handler in current { handler(change) } }
    }
}
