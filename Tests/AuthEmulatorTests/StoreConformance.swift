import Foundation
import Testing

@testable import AuthEmulator

/// A store backend as the conformance suite sees it.
struct StoreBackend: Sendable {
    /// A fresh store on a new, empty database.
    struct Fresh: Sendable {
        let store: any AuthStore
        /// Opens a second store on the same database, as another daemon would (nil: impossible).
        let openAgain: (@Sendable () async throws -> any AuthStore)?
    }

    let name: String
    let make: @Sendable () async throws -> Fresh
    /// Whether a write through one store is announced to the others (`observeChanges`).
    let announcesChanges: Bool
}

/// The one suite every store passes (Dex-style): every repository method, and the contract of
/// `AuthStore` (rollback, serializable writers across store instances, outbox commit order,
/// announced changes).
func runStoreConformance(_ backend: StoreBackend) async throws {
    let checks: [(String, @Sendable (any AuthStore, Comment) async throws -> Void)] = [
        ("users", StoreChecks.users), ("sign-in stamp", StoreChecks.signInStampAndRereads),
        ("rollback", StoreChecks.rollback), ("concurrent writes", StoreChecks.concurrentWrites),
        ("resources", StoreChecks.resources), ("inspector reads", StoreChecks.inspectorReads),
        ("clock setting", StoreChecks.clockSetting), ("SMS outbox", StoreChecks.smsOutbox),
        ("code listing versions", StoreChecks.codeListingVersions),
        ("code listing rows", StoreChecks.codeListingRows),
        ("proofs and TOTP sessions", StoreChecks.proofsAndTotpSessions),
        ("app verification", StoreChecks.appVerification), ("signing keys", StoreChecks.signingKeys),
        ("counts and passkeys", StoreChecks.countsAndPasskeys), ("session writes", StoreChecks.sessionWrites),
        ("events after commit", StoreChecks.eventsAfterCommit),
    ]
    for (name, check) in checks {
        try await check(try await backend.make().store, Comment(rawValue: "\(backend.name): \(name)"))
    }
    let pairs: [(String, @Sendable (any AuthStore, any AuthStore, Comment) async throws -> Void)] = [
        ("same email through two stores", StoreChecks.sameEmailAcrossInstances),
        ("outbox commit order across two stores", StoreChecks.outboxCommitOrder),
        ("writers in four projects through two stores", StoreChecks.writersAcrossProjects),
        ("events once, from the committing store", StoreChecks.eventsOnceAcrossInstances),
    ]
    for (name, check) in pairs
        + (backend.announcesChanges
            ? [
                ("changes heard", StoreChecks.changesHeard),
                ("one snapshot while another store commits", StoreChecks.readSnapshotAcrossInstances),
            ] : [])
    {
        let fresh = try await backend.make()
        guard let openAgain = fresh.openAgain else { return }
        try await check(fresh.store, try await openAgain(), Comment(rawValue: "\(backend.name): \(name)"))
    }
}
