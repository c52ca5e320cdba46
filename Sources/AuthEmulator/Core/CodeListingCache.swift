import Foundation

/// The code log's full listings (`verificationCodes`, `oobCodes`) kept in memory between reads.
/// A suite that polls a listing, or reads it in every test, gets the bytes it got before while no
/// code of that scope changed, without the store joining thousands of entries again. A kept
/// listing holds until the first of its codes expires by the emulator's clock, and while the
/// store's stamp of it (`codeListingStamp`: nothing read) or else its version
/// (`codeListingVersion`: counted from an index, in the same transaction) is the one it was read
/// at. When codes only joined it since (the read after a send: the stamp says so, or the version's
/// count), the kept listing grows by the new rows alone (`codeListingRows`) instead of being
/// joined again.
/// Listings are kept up to `byteBudget` in all; past it the cache starts over.
final class CodeListingCache: @unchecked Sendable {
    private struct Key: Hashable {
        let scope: Scope
        let listing: CodeListing
    }

    private struct Kept {
        /// The version it was read at; nil when it grew by its stamp alone (no count was read).
        let version: CodeListingVersion?
        /// Rows with a higher id than this are not in it.
        let newest: Int64
        var stamp: CodeListingStamp?
        let entries: [Data]
        let validUntil: Date?
        let bytes: Int
    }

    /// How the reads were answered, by count (tests check which way a read went).
    struct Answers: Equatable {
        var byStamp = 0
        var grownByStamp = 0
        var byVersion = 0
        var grownByVersion = 0
        var read = 0
    }

    private let lock = NSLock()
    private var kept: [Key: Kept] = [:]
    private var bytes = 0
    private var answered = Answers()
    let byteBudget: Int

    var answers: Answers { lock.withLock { answered } }

    init(byteBudget: Int = 16 << 20) {
        self.byteBudget = byteBudget
    }

    /// The listing's entries: from memory when they still hold, else from `read` (which also says
    /// when the first listed code expires, nil if none does), kept for the next read.
    func entries(
        _ scope: Scope, _ listing: CodeListing, now: Date, in tx: any StoreTransaction,
        read: () async throws -> (entries: [Data], validUntil: Date?)
    ) async throws -> [Data] {
        let key = Key(scope: scope, listing: listing)
        let stamp = try await tx.codeListingStamp(scope, listing)
        let hit = lock.withLock { kept[key] }.flatMap { kept in kept.validUntil.map { now < $0 } ?? true ? kept : nil }
        if let stamp, let hit, let keptStamp = hit.stamp, keptStamp.epoch == stamp.epoch {
            if keptStamp == stamp {
                count(\.byStamp)
                return hit.entries
            }
            // Only rows joined since: the kept entries and the new ones, without a count.
            if stamp.lastNotJoining <= keptStamp.change,
                let added = try await tx.codeListingRows(scope, listing, after: hit.newest, now: now)
            {
                count(\.grownByStamp)
                return keep(Self.grown(hit, by: added, version: nil, stamp: stamp), for: key).entries
            }
        }
        guard let version = try await tx.codeListingVersion(scope, listing) else { return try await read().entries }
        if var hit {
            if hit.version == version {
                if hit.stamp != stamp {
                    hit.stamp = stamp
                    keep(hit, for: key)
                }
                count(\.byVersion)
                return hit.entries
            }
            if let added = try await joinedOnly(hit, to: version, scope, listing, now: now, in: tx) {
                count(\.grownByVersion)
                return keep(Self.grown(hit, by: added, version: version, stamp: stamp), for: key).entries
            }
        }
        let fresh = try await read()
        count(\.read)
        keep(
            Kept(
                version: version, newest: version.newest, stamp: stamp, entries: fresh.entries,
                validUntil: fresh.validUntil, bytes: fresh.entries.reduce(0) { $0 + $1.count }), for: key)
        return fresh.entries
    }

    /// The rows newer than `hit`'s newest, if no row left the listing since: rows join a listing
    /// only with a higher id than any before (`CodeListingVersion`), so the rows it kept are all
    /// still there exactly when its count and the new rows' make the version's count. nil when a
    /// row left (the listing is then joined again) or none joined.
    private func joinedOnly(
        _ hit: Kept, to version: CodeListingVersion, _ scope: Scope, _ listing: CodeListing, now: Date,
        in tx: any StoreTransaction
    ) async throws -> ListedRows? {
        guard let kept = hit.version, version.newest > kept.newest, version.count > kept.count,
            let added = try await tx.codeListingRows(scope, listing, after: hit.newest, now: now),
            kept.count + added.rows == version.count
        else { return nil }
        return added
    }

    /// `hit` and the rows `added` after it.
    private static func grown(
        _ hit: Kept, by added: ListedRows, version: CodeListingVersion?, stamp: CodeListingStamp?
    ) -> Kept {
        var entries = hit.entries + added.entries
        let bytes = hit.bytes + added.entries.reduce(0) { $0 + $1.count }
        // One run again now and then, so that a listing read after each of many sends stays a few elements.
        if entries.count > 32 { entries = [run(of: entries, bytes: bytes)] }
        return Kept(
            version: version, newest: max(hit.newest, version?.newest ?? added.newest ?? hit.newest), stamp: stamp,
            entries: entries, validUntil: [hit.validUntil, added.earliestExpiry].compactMap { $0 }.min(), bytes: bytes)
    }

    /// The runs of entries as one, joined by commas, copied run by run (`joined(separator:)` goes
    /// byte by byte: ~24 ms for a megabyte).
    private static func run(of runs: [Data], bytes: Int) -> Data {
        var joined = Data(capacity: bytes + runs.count)
        for (index, run) in runs.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: ",")) }
            joined.append(run)
        }
        return joined
    }

    private func count(_ answer: WritableKeyPath<Answers, Int>) {
        lock.withLock { answered[keyPath: answer] += 1 }
    }

    /// What one kept listing costs besides its entries' bytes (its key, scope strings, the
    /// table's slot and the array): counted, so many small listings of many projects (one code
    /// each) stay within the budget too.
    static let overheadPerListing = 512

    @discardableResult
    private func keep(_ listing: Kept, for key: Key) -> Kept {
        let cost = listing.bytes + Self.overheadPerListing
        guard cost <= byteBudget else { return listing }
        lock.withLock {
            if let old = kept.removeValue(forKey: key) { bytes -= old.bytes + Self.overheadPerListing }
            if bytes + cost > byteBudget {
                kept.removeAll()
                bytes = 0
            }
            kept[key] = listing
            bytes += cost
        }
        return listing
    }
}
