import AuthEmulator
import Foundation
import GRDB

/// The code log's listings (`verificationCodes`, `oobCodes` of a scope) as this store's own
/// writes changed them: a kept listing still holds, without a row read, while the store is alone
/// on its file (`OtherStores`) and none of its own commits touched that listing since.
///
/// Each statement that writes `sms_messages` or `oob_codes` marks its listing (`touch`) in the
/// running batch. Once the batch has committed or rolled back, and before any of its writes is
/// acknowledged, `settle` numbers it and records that number as each marked listing's last change.
/// A read takes the number of the last settled batch before its snapshot: a change settled by then
/// is in the snapshot, and one settled later gives the listing a later number than the read's
/// stamp. A change committed but not settled yet is not acknowledged yet either.
final class CodeListingStamps: @unchecked Sendable {
    /// A listing as its rows are stored: the default tenant is the empty string there.
    private struct Key: Hashable {
        let projectId: String
        let tenantId: String
        let listing: CodeListing

        init(_ scope: Scope, _ listing: CodeListing) {
            projectId = scope.projectId
            tenantId = scope.tenantId ?? ""
            self.listing = listing
        }
    }

    /// A listing's last settled change, and the last that did more than add rows.
    private struct Changes {
        var last: UInt64 = 0
        var lastNotJoining: UInt64 = 0

        mutating func record(_ change: UInt64, joining: Bool) {
            last = change
            if !joining { lastNotJoining = change }
        }
    }

    let otherStores: OtherStores
    private let lock = NSLock()
    private var settled: UInt64 = 0
    private var changes: [Key: Changes] = [:]
    /// What a listing not in `changes` last changed at, at the latest: when `changes` reaches
    /// `maxListings` (a client can name any number of projects) it starts over from the last
    /// settled batch, so a forgotten listing counts as changed then, never as unchanged.
    private var floor: UInt64 = 0
    static let maxListings = 10_000
    /// The listings the running batch writes, and whether it only adds rows to each. Only the
    /// batch's thread uses it (one batch runs at a time), so it needs no lock, nor a hash.
    private var touched: [(key: Key, joining: Bool)] = []

    init(_ otherStores: OtherStores) {
        self.otherStores = otherStores
    }

    /// A statement of the running batch writes `listing`'s rows: only adds new ones (`joining`:
    /// a row with a higher id than any before), or anything else.
    func touch(_ scope: Scope, _ listing: CodeListing, joining: Bool) {
        touched.append((Key(scope, listing), joining))
    }

    /// The running batch has committed or rolled back: its marks become changes.
    func settle() {
        guard !touched.isEmpty else { return }
        lock.withLock {
            settled += 1
            if changes.count >= Self.maxListings {
                changes.removeAll(keepingCapacity: true)
                floor = settled
            }
            let unknown = Changes(last: floor, lastNotJoining: floor)
            for (key, joining) in touched { changes[key, default: unknown].record(settled, joining: joining) }
        }
        touched.removeAll(keepingCapacity: true)
    }

    /// The stamp of `listing` for a read transaction that has not read anything yet (nil once it
    /// has, while the store is not alone, or when a change settled during this call).
    func stamp(_ scope: Scope, _ listing: CodeListing, in db: Database) throws -> CodeListingStamp? {
        let start = lock.withLock { settled }
        guard let epoch = try otherStores.aloneEpoch(db) else { return nil }
        let changes = lock.withLock { self.changes[Key(scope, listing)] ?? Changes(last: floor, lastNotJoining: floor) }
        guard changes.last <= start else { return nil }
        return CodeListingStamp(epoch: epoch, change: changes.last, lastNotJoining: changes.lastNotJoining)
    }
}
