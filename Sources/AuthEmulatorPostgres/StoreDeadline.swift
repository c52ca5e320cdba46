import AuthEmulator
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The time limit of one store call. The call runs in a child task; at the limit that task is
/// cancelled (a connection lease still waited for ends) and the leased connection is closed (a
/// statement still waited for fails at once, and the pool replaces the connection), so the call
/// answers 503 `UNAVAILABLE` instead of hanging on a server gone mid-query. The caller's own task
/// is never cancelled: it is the HTTP connection's, which still has to write the 503.
final class StoreDeadline: @unchecked Sendable {
    private let lock = NIOLock()
    private var expired = false
    /// The child task running the call, set and cleared by that task itself under the lock.
    private var task: UnsafeCurrentTask?
    private var connection: PostgresConnection?

    /// `work`'s result, or 503 once `limit` has passed.
    static func run<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable (StoreDeadline) async throws -> T)
        async throws -> T
    {
        let deadline = StoreDeadline()
        // An event loop's timer, not a sleeping task: on Linux every Task.sleep wakes libdispatch's
        // timer thread twice (set and cancelled), a cost on every request.
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(limit)) {
            deadline.expire()
        }
        defer { timer.cancel() }
        do {
            return try await withThrowingTaskGroup(of: T.self) { group in
                // Started on this thread (no hop to another before the lease): it runs until it
                // first waits, for a connection or for the event loop.
                group.addImmediateTask { try await deadline.running { try await work(deadline) } }
                return try await group.next()!
            }
        } catch {
            if deadline.lock.withLock({ deadline.expired }) {
                throw AuthError.storeUnavailable("PostgreSQL did not answer within \(limit)")
            }
            throw error
        }
    }

    /// The connection to close should the limit pass while it is in use (nil: none any more).
    func leased(_ connection: PostgresConnection?) {
        lock.withLock { self.connection = connection }
    }

    /// Runs `work` in the current (child) task, which the timer may cancel while it runs.
    private func running<T>(_ work: () async throws -> T) async throws -> T {
        let alreadyExpired = withUnsafeCurrentTask { task in
            lock.withLock {
                self.task = task
                return expired
            }
        }
        defer { lock.withLock { task = nil } }
        if alreadyExpired { throw CancellationError() }
        return try await work()
    }

    private func expire() {
        let connection: PostgresConnection? = lock.withLock {
            expired = true
            task?.cancel()
            return self.connection
        }
        connection?.close().whenComplete { _ in }
    }
}
