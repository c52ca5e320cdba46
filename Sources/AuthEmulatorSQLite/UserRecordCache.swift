import AuthEmulator
import Foundation

/// Decoded user records, each kept with the exact bytes it was decoded from: a hit needs the
/// stored row to be byte-for-byte the same, so no write ever has to invalidate anything.
/// Decoding a record with `JSONDecoder` was the largest single cost of a sign-in or lookup.
struct UserRecordCache: Sendable {
    /// At most 512 records (a few hundred KB).
    private let entries = BoundedCache<String, (data: Data, record: UserRecord)>(capacity: 512)

    /// The record `data` decodes to. `data` may borrow memory it does not own (a row still in
    /// SQLite): it is copied before it is kept.
    func record(key: String, data: Data, decode: (Data) throws -> UserRecord) throws -> UserRecord {
        if let hit = entries[key], hit.data == data { return hit.record }
        let owned = data.withUnsafeBytes { Data($0) }
        let record = try decode(owned)
        store(key: key, data: owned, record: record)
        return record
    }

    /// Records that `data` decodes to `record` (for a write that knows both).
    func store(key: String, data: Data, record: UserRecord) {
        entries[key] = (data, record)
    }
}
