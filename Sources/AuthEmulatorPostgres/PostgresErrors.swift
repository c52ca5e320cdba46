import AuthEmulator
import NIOCore
import NIOSSL
import PostgresNIO

extension PostgresStore {
    /// Connection failures, a server shutting down or out of resources, a transaction rollback
    /// (class 40) and a full disk become `storeUnavailable` (503); a value the database cannot hold
    /// (class 22, such as a NUL character in text) is the request's fault (400 `INVALID_ARGUMENT`);
    /// other SQL errors stay as they are.
    static func mapped(_ error: any Error) -> any Error {
        if error is AuthError { return error }
        if let state = sqlState(error), state.hasPrefix("22") {
            // A data exception: text PostgreSQL cannot hold (a NUL character), a number out of range.
            return AuthError("INVALID_ARGUMENT", "The database cannot store this value: \(describe(error))")
        }
        if let state = sqlState(error) {
            let transient = ["08", "53", "57", "58", "40"].contains(String(state.prefix(2)))
            return transient ? AuthError.storeUnavailable("PostgreSQL: \(describe(error))") : error
        }
        if error is PSQLError || error is ChannelError || error is IOError {
            return AuthError.storeUnavailable("PostgreSQL: \(describe(error))")
        }
        return error
    }

    /// A connection that may succeed if tried again: nothing listens yet, or the server is starting
    /// up or full. Not a refused password, a missing database or an untrusted certificate.
    static func isTransient(_ error: any Error) -> Bool {
        if let state = sqlState(error) { return ["57P03", "53300"].contains(state) }
        guard let psql = error as? PSQLError, psql.code == .connectionError else { return false }
        return !(psql.underlying is NIOSSLError || psql.underlying is BoringSSLError)
    }

    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// The server's message when there is one (PSQLError's description hides it).
    static func describe(_ error: any Error) -> String {
        guard let psql = error as? PSQLError else { return "\(error)" }
        if let message = psql.serverInfo?[.message] {
            return "\(message) (\(psql.serverInfo?[.sqlState] ?? "?"))"
        }
        return "\(psql.code)\(psql.underlying.map { ": \($0)" } ?? "")"
    }
}
