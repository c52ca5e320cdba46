import Foundation

/// The code log's full listings (`verificationCodes`, `oobCodes`) kept in memory between reads.
/// A suite that polls a listing, or reads it in every test, gets the bytes it got before while no
/// code of that scope changed, without the store joining thousands of entries again. A kept
/// listing holds while the store's version of it (`codeListingVersion`, read in the same
/// transaction) is the one it was read at, and until the first of its codes expires by the
/// emulator's clock. When codes only joined it since (the read after a send), the kept listing
/// grows by the new rows alone (`codeListingRows`) instead of being joined again.
/// Listings are kept up to `byteBudget` in all; past it the cache starts over.
final class CodeListingCache: @unchecked Sendable {
    private struct Key: Hashable {
        let scope: Scope
        let listing: CodeListing
    }

    private struct Kept {
        let version: CodeListingVersion
        let entries: [Data]
        let validUntil: Date?
        let bytes: Int
    }

    private let lock = NSLock()
    private var kept: [Key: Kept] = [:]
    private var bytes = 0
    let byteBudget: Int

    init(byteBudget: Int = 16 << 20) {
        self.byteBudget = byteBudget
    }

    /// The listing's entries: from memory when they still hold, else from `read` (which also says
    /// when the first listed code expires, nil if none does), kept for the next read.
    func entries(
        _ scope: Scope, _ listing: CodeListing, now: Date, in tx: any StoreTransaction,
        read: () async throws -> (entries: [Data], validUntil: Date?)
    ) async throws -> [Data] {
        guard let version = try await tx.codeListingVersion(scope, listing) else { return try await read().entries }
        let key = Key(scope: scope, listing: listing)
        if let hit = lock.withLock({ kept[key] }), hit.validUntil.map({ now < $0 }) ?? true {
            if hit.version == version { return hit.entries }
            if let grown = try await grown(hit, to: version, scope, listing, now: now, in: tx) {
                keep(grown, for: key)
                return grown.entries
            }
        }
        let fresh = try await read()
        keep(
            Kept(
                version: version, entries: fresh.entries, validUntil: fresh.validUntil,
                bytes: fresh.entries.reduce(0) { $0 + $1.count }), for: key)
        return fresh.entries
    }

    /// `hit` with the rows newer than its newest, if no row left the listing since: rows join a
    /// listing only with a higher id than any before (`CodeListingVersion`), so the rows it kept
    /// are all still there exactly when its count and the new rows' make the version's count.
    /// nil when a row left (the listing is then joined again) or none joined.
    private func grown(
        _ hit: Kept, to version: CodeListingVersion, _ scope: Scope, _ listing: CodeListing, now: Date,
        in tx: any StoreTransaction
    ) async throws -> Kept? {
        guard version.newest > hit.version.newest, version.count > hit.version.count,
            let added = try await tx.codeListingRows(scope, listing, after: hit.version.newest, now: now),
            hit.version.count + added.rows == version.count
        else { return nil }
        var entries = hit.entries + added.entries
        let bytes = hit.bytes + added.entries.reduce(0) { $0 + $1.count }
        // One run again now and then, so that a listing read after each of many sends stays a few elements.
        if entries.count > 32 { entries = [Self.run(of: entries, bytes: bytes)] }
        return Kept(
            version: version, entries: entries,
            validUntil: [hit.validUntil, added.earliestExpiry].compactMap { $0 }.min(), bytes: bytes)
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

    private func keep(_ listing: Kept, for key: Key) {
        guard listing.bytes <= byteBudget else { return }
        lock.withLock {
            if let old = kept.removeValue(forKey: key) { bytes -= old.bytes }
            if bytes + listing.bytes > byteBudget {
                kept.removeAll()
                bytes = 0
            }
            kept[key] = listing
            bytes += listing.bytes
        }
    }
}
