import AuthEmulator
import Foundation
import Logging
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
/// event loop): each query waits for its result, so the domain's synchronous transaction bodies
/// run unchanged.
struct PostgresSession {
    let connection: PostgresConnection
    let logger: Logger

    /// The rows of a query.
    func rows(_ sql: String, _ binds: [Bind] = []) throws -> [PostgresRow] {
        try connection.query(Self.query(sql, binds), logger: logger).wait().rows
    }

    /// Runs a statement; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [Bind] = []) throws -> Int {
        try connection.query(Self.query(sql, binds), logger: logger).wait().metadata.rows ?? 0
    }

    /// Commits; a transaction the server had already aborted (it answers ROLLBACK) is an error,
    /// never an acknowledgement.
    func commit() throws {
        let result = try connection.query("COMMIT", logger: logger).wait()
        guard result.metadata.command == "COMMIT" else {
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
