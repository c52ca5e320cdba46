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

/// One pooled connection, used synchronously from a thread of the store's thread pool (never an
/// event loop): each query waits for its result (at most `queryTimeout`), so the domain's
/// synchronous transaction bodies run unchanged.
struct PostgresSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Set for the body of a `sessionWrite`: a statement that is not a `SELECT` throws
    /// `NeedsWriteLock`, and the body runs again as a `write`.
    var readsOnly = false

    /// Thrown by a change inside a `sessionWrite` body.
    struct NeedsWriteLock: Error {}

    /// How long one query may take. A connection that does not answer in time (a server gone
    /// mid-query) is closed, so that neither this thread nor the pool waits on it for ever.
    static let queryTimeout: TimeInterval = 5

    /// The rows of a query.
    func rows(_ sql: String, _ binds: [Bind] = []) throws -> [PostgresRow] {
        try result(sql, binds).rows
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [Bind] = []) throws -> Int {
        try result(sql, binds).metadata.rows ?? 0
    }

    /// A statement sent without waiting for its answer; `check` waits for it. The connection runs
    /// statements in order, so the next query goes out as soon as this one is answered, without
    /// waking this thread in between.
    struct Pending {
        let session: PostgresSession
        let future: EventLoopFuture<PostgresQueryResult>

        func check() throws { _ = try session.wait(for: future) }
    }

    func send(_ sql: String, _ binds: [Bind] = []) -> Pending {
        Pending(session: self, future: connection.query(Self.query(sql, binds), logger: logger))
    }

    private func result(_ sql: String, _ binds: [Bind]) throws -> PostgresQueryResult {
        if readsOnly, !sql.hasPrefix("SELECT ") { throw NeedsWriteLock() }
        return try wait(for: connection.query(Self.query(sql, binds), logger: logger))
    }

    private func wait(for future: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        let answered = DispatchSemaphore(value: 0)
        let outcome = NIOLockedValueBox<Result<PostgresQueryResult, any Error>?>(nil)
        future.whenComplete { result in
            outcome.withLockedValue { $0 = result }
            answered.signal()
        }
        guard answered.wait(timeout: .now() + Self.queryTimeout) == .success,
            let result = outcome.withLockedValue({ $0 })
        else {
            connection.close().whenComplete { _ in }
            throw AuthError.storeUnavailable("PostgreSQL did not answer within \(Int(Self.queryTimeout)) s")
        }
        return try result.get()
    }

    /// Commits; a transaction the server had already aborted (it answers ROLLBACK) is an error,
    /// never an acknowledgement.
    func commit() throws {
        guard try result("COMMIT", []).metadata.command == "COMMIT" else {
            throw AuthError.storeUnavailable("PostgreSQL rolled the transaction back")
        }
    }

    /// Ends a failed transaction. Its own failure is not reported: the transaction is lost either
    /// way, and a broken connection is replaced by the pool.
    func rollback() {
        do { try execute("ROLLBACK") } catch {}
    }

    /// The first column of the first row.
    func value<T: PostgresDecodable>(_ type: T.Type, _ sql: String, _ binds: [Bind] = []) throws -> T? {
        try rows(sql, binds).first.map { try $0.makeRandomAccess()[0].decode(T.self) }
    }

    /// The first column of every row.
    func values<T: PostgresDecodable>(_ type: T.Type, _ sql: String, _ binds: [Bind] = []) throws -> [T] {
        try rows(sql, binds).map { try $0.makeRandomAccess()[0].decode(T.self) }
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
