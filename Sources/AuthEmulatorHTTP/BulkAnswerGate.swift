import NIOCore
import Synchronization

/// The routes whose answers can run to megabytes (account downloads and queries, code listings,
/// tenant and IdP-config lists, the inspector's lists: `Route.Cost.bulk` in the route table) are
/// answered a few at a time, a core's worth less one, so a crowd of them leaves a core to every
/// other request. While the answers a listener's clients have not taken exceed
/// `ConnectionLimits.maxUnreadAnswerBytes`, no new one starts (for at most `budgetWait`): clients
/// that request and never read cannot make the daemon build answers faster than it closes them.
///
/// A long-poll sets its permit aside while it waits (`setAside`), so waiting for a message
/// never holds back another listing.
final class BulkAnswerGate: Sendable {
    private struct State {
        var free: Int
        var waiting = CircularBuffer<CheckedContinuation<Void, Never>>()
        var overBudget = 0
    }

    private let state: Mutex<State>
    private let open: OpenConnections
    private let budget: Int
    /// The longest a bulk answer waits for unread answers to fall under the budget; they are
    /// closed within about a second, so it is reached only if that fails.
    let budgetWait: Duration

    /// The gate a bulk route's task holds, for `setAside`.
    @TaskLocal static var held: BulkAnswerGate?

    init(
        permits: Int = max(1, System.coreCount - 1), open: OpenConnections, budget: Int,
        budgetWait: Duration = .seconds(5)
    ) {
        state = Mutex(State(free: permits))
        self.open = open
        self.budget = budget
        self.budgetWait = budgetWait
    }

    /// Runs `body` holding one of the gate's permits.
    func admit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        try await underBudget()
        return try await Self.$held.withValue(self) { try await body() }
    }

    /// Runs a long-poll's wait without the permit its task holds (if it holds one), and takes one
    /// again before the answer is built.
    static func setAside<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard let gate = held else { return try await body() }
        gate.release()
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await gate.acquire()
        return try result.get()
    }

    private func acquire() async {
        let admitted = state.withLock { state in
            guard state.free > 0 else { return false }
            state.free -= 1
            return true
        }
        if admitted { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Hands the permit to the longest waiter, or frees it.
    private func release() {
        let next = state.withLock { state in
            guard let next = state.waiting.popFirst() else {
                state.free += 1
                return nil as CheckedContinuation<Void, Never>?
            }
            return next
        }
        next?.resume()
    }

    private func underBudget() async throws {
        guard open.waitingAnswerBytes > budget else { return }
        state.withLock { $0.overBudget += 1 }
        defer { state.withLock { $0.overBudget -= 1 } }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: budgetWait)
        while open.waitingAnswerBytes > budget, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Free permits, answers waiting for one, and answers waiting for the budget (for tests).
    var counts: (free: Int, queued: Int, overBudget: Int) {
        state.withLock { ($0.free, $0.waiting.count, $0.overBudget) }
    }
}
