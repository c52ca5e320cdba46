import AuthEmulator

/// Runs a transaction body to its end on the calling thread, inside GRDB's closure.
///
/// Bodies are `async` because PostgreSQL's statements are (its store runs a whole transaction on
/// the connection's event loop, without a thread hop per statement). SQLite's repository calls
/// never suspend, and a body awaits nothing but them, so a task started with `Task.immediate`
/// runs the whole body before `Task.immediate` returns, on this thread, with GRDB's connection
/// where GRDB requires it. A body that did suspend would go on elsewhere with the connection: it
/// stops the process instead (a programming error, which every SQLite test would show at once).
func runToEnd<T>(
    _ body: @escaping @Sendable (any StoreTransaction) async throws -> T, _ transaction: SQLiteTransaction
) throws -> T {
    // The outcome lives in this stack frame (the task has ended when `Task.immediate` returns), in
    // a slot of `T` itself: a `Result<T, any Error>` would have its type built at run time on every
    // call, `T` being a generic parameter here.
    var end = BodyEnd()
    return try withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { slot in
        try withUnsafeMutablePointer(to: &end) { end in
            nonisolated(unsafe) let (transaction, value, end) = (transaction, slot.baseAddress!, end)
            Task.immediate {
                do { value.initialize(to: try await body(transaction)) } catch { end.pointee.error = error }
                end.pointee.finished = true
            }
            guard end.pointee.finished else {
                preconditionFailure("a SQLite transaction body suspended; bodies may await only the store")
            }
            if let error = end.pointee.error { throw error }
        }
        return slot.baseAddress!.move()
    }
}

/// How a body ended: written by the immediate task, read by its starter on the same thread.
private struct BodyEnd {
    var finished = false
    var error: (any Error)?
}
