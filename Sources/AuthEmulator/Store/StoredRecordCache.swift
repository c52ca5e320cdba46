import Foundation

/// Decoded stored records (users, SMS sessions), each kept with the exact bytes it was decoded
/// from: a hit needs the stored row to be byte-for-byte the same, so no write ever has to
/// invalidate anything. Decoding a record's JSON was the largest single cost of a sign-in, a
/// lookup, and of each step of a phone sign-in. Both stores keep one; on PostgreSQL a row another
/// daemon changed has other bytes, so it is decoded again.
public struct StoredRecordCache<Record: Sendable>: Sendable {
    /// At most 512 records (a few hundred KB).
    private let entries = BoundedCache<String, (data: Data, record: Record)>(capacity: 512)

    /// The record `data` decodes to. `data` may borrow memory it does not own (a row still in
    /// SQLite): it is copied before it is kept.
    public func record(key: String, data: Data, decode: (Data) throws -> Record) throws -> Record {
        if let hit = entries[key], hit.data == data { return hit.record }
        let owned = data.withUnsafeBytes { Data($0) }
        let record = try decode(owned)
        store(key: key, data: owned, record: record)
        return record
    }

    public init() {}

    /// The key of a user record.
    public static func userKey(_ scope: Scope, _ localId: String) -> String {
        "\(scope.projectId)\u{0}\(scope.tenantId ?? "")\u{0}\(localId)"
    }

    /// Records that `data` decodes to `record` (for a write that knows both).
    public func store(key: String, data: Data, record: Record) {
        entries[key] = (data, record)
    }
}
