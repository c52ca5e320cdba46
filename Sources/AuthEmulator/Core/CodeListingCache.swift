import Foundation

/// The code log's full listings (`verificationCodes`, `oobCodes`) kept in memory between reads.
/// A suite that polls a listing, or reads it in every test, gets the bytes it got before while no
/// code of that scope changed, without the store joining thousands of entries again. A kept
/// listing holds while the store's version of it (`codeListingVersion`, read in the same
/// transaction) is the one it was read at, and until the first of its codes expires by the
/// emulator's clock.
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
        if let hit = lock.withLock({ kept[key] }), hit.version == version, hit.validUntil.map({ now < $0 }) ?? true {
            return hit.entries
        }
        let fresh = try await read()
        keep(
            Kept(
                version: version, entries: fresh.entries, validUntil: fresh.validUntil,
                bytes: fresh.entries.reduce(0) { $0 + $1.count }), for: key)
        return fresh.entries
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
