import Foundation

/// Wakes long-polling readers of the SMS outbox when a message is written, so tests wait for a
/// code instead of polling in a loop. Readers take `version` before they query, and wait only if
/// nothing was sent since, so a message written between the query and the wait is never missed.
public actor OutboxSignal {
    public private(set) var version = 0
    private var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]

    public init() {}

    private var cancelled: Set<UUID> = []

    /// Returns once something was sent after `version` was read, after `seconds`, or when the
    /// waiting task is cancelled (a stopping daemon does not wait out its long-polls).
    public func wait(seconds: Double, since seen: Int) async {
        if version != seen || seconds <= 0 || Task.isCancelled { return }
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if cancelled.remove(id) != nil { return continuation.resume() }
                waiters[id] = continuation
                Task { [weak self] in
                    try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                    await self?.resume(id)
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func resume(_ id: UUID) {
        waiters.removeValue(forKey: id)?.resume()
    }

    /// Cancellation may come before the waiter is registered: then it is remembered.
    private func cancel(_ id: UUID) {
        if let waiter = waiters.removeValue(forKey: id) { waiter.resume() } else { cancelled.insert(id) }
    }

    /// Wakes every waiter.
    public func notify() {
        version += 1
        let current = waiters
        waiters = [:]
        for continuation in current.values { continuation.resume() }
    }
}
