import AuthEmulator
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The time limit of one store call, kept without a task of its own. At the limit the calling
/// task is cancelled (a connection lease still waited for ends) and the leased connection is
/// closed (a statement still waited for fails at once, and the pool replaces the connection), so
/// the call answers 503 `UNAVAILABLE` instead of hanging on a server gone mid-query.
final class StoreDeadline: @unchecked Sendable {
    private let lock = NIOLock()
    private var finished = false
    private var expired = false
    /// Valid until `finished`: the timer uses it only under the lock, before the call returns.
    private var task: UnsafeCurrentTask?
    private var connection: PostgresConnection?

    /// `work`'s result, or 503 once `limit` has passed.
    static func run<T>(_ limit: Duration, _ work: (StoreDeadline) async throws -> T) async throws -> T {
        let deadline = StoreDeadline()
        withUnsafeCurrentTask { task in deadline.lock.withLock { deadline.task = task } }
        // An event loop's timer, not a sleeping task: on Linux every Task.sleep wakes libdispatch's
        // timer thread twice (set and cancelled), a cost on every request.
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(limit)) {
            deadline.expire()
        }
        defer {
            timer.cancel()
            deadline.lock.withLock {
                deadline.finished = true
                deadline.task = nil
            }
        }
        do {
            return try await work(deadline)
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

    private func expire() {
        let connection: PostgresConnection? = lock.withLock {
            guard !finished else { return nil }
            expired = true
            task?.cancel()
            return self.connection
        }
        connection?.close().whenComplete { _ in }
    }
}
