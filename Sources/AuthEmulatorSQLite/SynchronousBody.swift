import AuthEmulator

/// Runs a transaction body to its end on the calling thread, inside GRDB's closure.
///
/// Bodies are `async` because PostgreSQL's statements are (its store runs a whole transaction on
/// the connection's event loop, without a thread hop per statement). SQLite's repository calls
/// never suspend, and a body awaits nothing but them, so a task started with `Task.immediate`
/// runs the whole body before `Task.immediate` returns, on this thread, with GRDB's connection
/// where GRDB requires it. A body that did suspend would go on elsewhere with the connection: it
/// stops the process instead (a programming error, which every SQLite test would show at once).
func runToEnd<T>(_ body: @escaping (SQLiteTransaction) async throws -> T, _ transaction: SQLiteTransaction) throws
    -> T
{
    let outcome = BodyOutcome<T>()
    nonisolated(unsafe) let (body, transaction) = (body, transaction)
    Task.immediate { outcome.result = await Result { try await body(transaction) } }
    guard let result = outcome.result else {
        preconditionFailure("a SQLite transaction body suspended; bodies may await only the store")
    }
    return try result.get()
}

/// Written by the immediate task, read by its starter on the same thread once the task has run.
private final class BodyOutcome<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

extension Result where Failure == any Error {
    fileprivate init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
