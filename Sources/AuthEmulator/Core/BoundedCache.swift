import Foundation

/// A small thread-safe memo of values that are expensive to compute and cheap to key (decoded
/// tokens, decoded stored records). When full it starts over: no bookkeeping per hit.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Key: Value] = [:]
    private let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
    }

    public subscript(key: Key) -> Value? {
        get { lock.withLock { entries[key] } }
        set {
            lock.withLock {
                if newValue != nil, entries.count >= capacity, entries[key] == nil {
                    entries.removeAll(keepingCapacity: true)
                }
                entries[key] = newValue
            }
        }
    }
}
