import AuthEmulator
import Foundation

/// Decoded user records, each kept with the exact bytes it was decoded from: a hit needs the
/// stored row to be byte-for-byte the same, so no write ever has to invalidate anything.
/// Decoding a record with `JSONDecoder` was the largest single cost of a sign-in or lookup.
final class UserRecordCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (data: Data, record: UserRecord)] = [:]
    private let capacity: Int

    /// At most `capacity` records (a few hundred KB); when full it starts over.
    init(capacity: Int = 512) {
        self.capacity = capacity
    }

    func record(key: String, data: Data, decode: (Data) throws -> UserRecord) throws -> UserRecord {
        lock.lock()
        let hit = entries[key]
        lock.unlock()
        if let hit, hit.data == data { return hit.record }
        let record = try decode(data)
        store(key: key, data: data, record: record)
        return record
    }

    /// Records that `data` decodes to `record` (for a write that knows both).
    func store(key: String, data: Data, record: UserRecord) {
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = (data, record)
        lock.unlock()
    }
}
