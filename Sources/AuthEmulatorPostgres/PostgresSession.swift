import AuthEmulator
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// A value bound to a query parameter.
enum Bind {
    case text(String?)
    case int(Int64?)
    case double(Double?)
    case bytes(Data?)

    static func int(_ value: Int) -> Bind { .int(Int64(value)) }
}

/// One pooled connection for one transaction. Its statements are awaited on the connection's own
/// event loop (`PostgresStore.session` runs the whole transaction there): a statement is written
/// and its answer read by the thread that runs the body, with no hand-over between threads.
struct PostgresSession {
    let connection: PostgresConnection
    let logger: Logger
    /// The store's decoded users, shared by its transactions (see `StoredRecordCache`).
    let userCache: StoredRecordCache<UserRecord>
    /// Set for the body of a `sessionWrite`: a statement that is not a `SELECT` throws
    /// `NeedsWriteLock`, and the body runs again as a `write`.
    var readsOnly = false

    /// Thrown by a change inside a `sessionWrite` body.
    struct NeedsWriteLock: Error {}

    /// Set for a body's first run outside any transaction: a single `SELECT` is a consistent
    /// snapshot of its own, so a body that reads once (a lookup, a sign-in, a token refresh) needs
    /// no `BEGIN` and `COMMIT`, each a round trip to the server. A second statement, or one that is
    /// not a `SELECT`, throws `NeedsSnapshot`, and the body runs again in a transaction.
    var single: SingleSelect?

    /// Whether the one statement allowed outside a transaction has been sent.
    final class SingleSelect {
        var spent = false
    }

    /// Thrown by a second statement (or a change) of a body run outside a transaction.
    struct NeedsSnapshot: Error {}

    /// This session for a body's first run: one `SELECT`, outside any transaction.
    func singleSelect(readsOnly: Bool) -> PostgresSession {
        var session = self
        session.single = SingleSelect()
        session.readsOnly = readsOnly
        return session
    }

    /// The rows of a query.
    func rows(_ sql: String, _ binds: [Bind] = []) async throws -> [PostgresRow] {
        try await result(sql, binds).rows
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [Bind] = []) async throws -> Int {
        try await result(sql, binds).metadata.rows ?? 0
    }

    /// A statement sent without waiting for its answer; `check` waits for it. postgres-nio 1.33
    /// queues it and writes the next statement only once this one has answered (one query in
    /// flight per connection), so this saves the body a turn on the event loop, not a round trip.
    struct Pending {
        let future: EventLoopFuture<PostgresQueryResult>

        func check() async throws { _ = try await future.get() }
    }

    func send(_ sql: String, _ binds: [Bind] = []) -> Pending {
        Pending(future: start(sql, binds))
    }

    private func result(_ sql: String, _ binds: [Bind]) async throws -> PostgresQueryResult {
        if readsOnly, !sql.hasPrefix("SELECT ") { throw NeedsWriteLock() }
        if let single {
            guard !single.spent, sql.hasPrefix("SELECT ") else { throw NeedsSnapshot() }
            single.spent = true
        }
        return try await start(sql, binds).get()
    }

    /// The query as postgres-nio's future: all rows and the command tag in one value.
    ///
    /// postgres-nio 1.33 writes a query to a closed channel without failing its future, which
    /// would then never complete (a `ROLLBACK` after the server went away waited forever). This
    /// runs on the connection's event loop, where the channel cannot close between the check and
    /// the write: a query written to an open channel is always answered or failed.
    private func start(_ sql: String, _ binds: [Bind]) -> EventLoopFuture<PostgresQueryResult> {
        connection.eventLoop.preconditionInEventLoop()
        guard !connection.isClosed else {
            return connection.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        return connection.query(Self.query(sql, binds), logger: logger)
    }

    /// Commits; a transaction the server had already aborted (it answers ROLLBACK) is an error,
    /// never an acknowledgement.
    func commit() async throws {
        guard try await result("COMMIT", []).metadata.command == "COMMIT" else {
            throw AuthError.storeUnavailable("PostgreSQL rolled the transaction back")
        }
    }

    /// Ends a failed transaction. Its own failure is not reported: the transaction is lost either
    /// way, and a broken connection is replaced by the pool.
    func rollback() async {
        do { try await execute("ROLLBACK") } catch {}
    }

    /// The first column of the first row.
    func value<T: PostgresDecodable>(_ type: T.Type, _ sql: String, _ binds: [Bind] = []) async throws -> T? {
        try await rows(sql, binds).first.map { try $0.makeRandomAccess()[0].decode(T.self) }
    }

    /// The first column of every row.
    func values<T: PostgresDecodable>(_ type: T.Type, _ sql: String, _ binds: [Bind] = []) async throws -> [T] {
        try await rows(sql, binds).map { try $0.makeRandomAccess()[0].decode(T.self) }
    }

    private static func query(_ sql: String, _ binds: [Bind]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .text(let value): bindings.append(value)
            case .int(let value): bindings.append(value)
            case .double(let value): bindings.append(value)
            case .bytes(let value):
                if let value { bindings.append(ByteBuffer(bytes: value)) } else { bindings.appendNull() }
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}
