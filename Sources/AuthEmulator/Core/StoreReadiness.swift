import Synchronization

/// Whether the store answered the last readiness check, so that a fault and the recovery from it
/// are each logged once, not at every probe.
final class StoreReadiness: Sendable {
    private let ready = Mutex(true)

    /// The previous state, replaced by `now`.
    func swap(_ now: Bool) -> Bool {
        ready.withLock { previous in
            defer { previous = now }
            return previous
        }
    }
}

extension Emulator {
    /// Logs a change of the store's readiness: a warning when it stops answering, a notice when it
    /// answers again.
    public func noteStoreReadiness(_ ready: Bool) {
        guard storeReadiness.swap(ready) != ready else { return }
        if ready {
            logger.notice("the store answers again: ready")
        } else {
            logger.warning("the store does not answer: not ready (requests get 503 UNAVAILABLE)")
        }
    }
}
