import Foundation

/// Users of one scope (project or tenant). Email and phone are matched case-insensitively and
/// exactly respectively; federated identities by (providerId, rawId).
public protocol UserRepository {
    func user(_ scope: Scope, localId: String) async throws -> UserRecord?
    func users(_ scope: Scope, email: String) async throws -> [UserRecord]
    func user(_ scope: Scope, phoneNumber: String) async throws -> UserRecord?
    func user(_ scope: Scope, providerId: String, rawId: String) async throws -> UserRecord?
    /// Users linked to `providerId`, by raw id, at most `limit` (the IdP widget's account list).
    func users(_ scope: Scope, providerId: String, limit: Int) async throws -> [UserRecord]
    /// Users with a linked IdP whose email (`providerUserInfo[].email`) is `providerEmail`, by localId.
    func users(_ scope: Scope, providerEmail: String) async throws -> [UserRecord]
    /// The owner of a passkey (`passkeyInfo[].credentialId`).
    func user(_ scope: Scope, passkeyCredentialId: String) async throws -> UserRecord?
    /// Inserts or replaces the record with the same localId, and its indexes. Stores
    /// `user.checkedStoredData()`: a record over `FieldLimits` is refused with its error.
    func save(_ scope: Scope, _ user: UserRecord) async throws
    /// Stores `user`'s `lastLoginAt` and `lastRefreshAt` without rewriting the whole record (the
    /// only write of a plain sign-in or a token refresh); `user` is otherwise as read in this
    /// transaction.
    func saveSessionTimes(_ scope: Scope, _ user: UserRecord) async throws
    func deleteUser(_ scope: Scope, localId: String) async throws -> Bool
    func deleteAllUsers(_ scope: Scope) async throws
    /// Users in localId order, strictly after `after`, at most `limit` (nil = all).
    func listUsers(_ scope: Scope, after: String?, limit: Int?, descending: Bool) async throws -> [UserRecord]
    func countUsers(_ scope: Scope) async throws -> Int
    /// Accounts in every project and tenant (for status lines).
    func countAllUsers() async throws -> Int
    /// Tenant ids (nil for the top level) that have users in a project.
    func tenantsWithUsers(projectId: String) async throws -> [String?]
}

/// Tenants of a project, stored in the Identity Toolkit v2 `Tenant` JSON shape.
public protocol TenantRepository {
    func tenant(projectId: String, tenantId: String) async throws -> JSONValue?
    func saveTenant(projectId: String, tenantId: String, _ tenant: JSONValue) async throws
    /// Removes the tenant and remembers that it was deleted, until it is saved again.
    func deleteTenant(projectId: String, tenantId: String) async throws -> Bool
    func listTenants(projectId: String, after: String?, limit: Int?) async throws -> [JSONValue]
    /// Whether the tenant was deleted and not saved since (it is then not made again on use).
    func tenantWasDeleted(projectId: String, tenantId: String) async throws -> Bool
    /// Removes every tenant of a project and forgets those deleted before: as if none had been.
    func deleteAllTenants(projectId: String) async throws
}

/// Project configurations, stored in the Identity Toolkit v2 `Config` JSON shape.
public protocol ConfigRepository {
    func projectConfig(projectId: String) async throws -> JSONValue?
    func saveProjectConfig(projectId: String, _ config: JSONValue) async throws
}

/// Out-of-band codes (email links), in creation order.
public protocol OobCodeRepository {
    func oobCode(_ scope: Scope, code: String) async throws -> OobCode?
    func saveOobCode(_ scope: Scope, _ code: OobCode) async throws
    func deleteOobCode(_ scope: Scope, code: String) async throws
    func listOobCodes(_ scope: Scope) async throws -> [OobCode]
    /// The `listingEntry` of each code of a scope, in creation order; an element may hold a run of
    /// entries already joined by commas (`JSONListing` joins the elements with commas too).
    func oobCodeEntries(_ scope: Scope) async throws -> [Data]
    func deleteAllOobCodes(_ scope: Scope) async throws
}

/// Identity-provider configurations (`oauthIdpConfigs`, `inboundSamlConfigs`,
/// `defaultSupportedIdpConfigs`), kept as the JSON the Admin SDKs send.
public protocol IdpConfigRepository {
    func idpConfig(_ scope: Scope, kind: String, id: String) async throws -> JSONValue?
    func saveIdpConfig(_ scope: Scope, kind: String, id: String, _ config: JSONValue) async throws
    func deleteIdpConfig(_ scope: Scope, kind: String, id: String) async throws -> Bool
    func listIdpConfigs(_ scope: Scope, kind: String) async throws -> [JSONValue]
}

/// The SMS outbox (every SMS any flow sends) and the temporary proofs of phone conflicts.
public protocol SmsOutboxRepository {
    /// Stores a new message and returns it with its assigned, increasing `id`.
    func insertSms(_ message: SmsMessage) async throws -> SmsMessage
    func updateSms(_ message: SmsMessage) async throws
    func sms(sessionInfo: String) async throws -> SmsMessage?
    /// Messages of a scope matching `query`, oldest first.
    func listSms(_ scope: Scope, _ query: SmsQuery) async throws -> [SmsMessage]
    /// The `listingEntry` of each message `listSms` would return, oldest first (elements may be
    /// runs of entries joined by commas, as `oobCodeEntries`).
    func smsEntries(_ scope: Scope, _ query: SmsQuery) async throws -> [Data]
    /// The `codeEntry` of each pending message of a scope that expires after `now`, oldest first
    /// (elements may be runs of entries joined by commas), and the earliest of their expiries.
    func pendingCodeEntries(_ scope: Scope, now: Date) async throws -> PendingCodeEntries
    func deleteAllSms(_ scope: Scope) async throws
    /// How many messages went to a number (or came from a client address) since a time.
    func countSms(phoneNumber: String, since: Date) async throws -> Int
    func countSms(clientIP: String, since: Date) async throws -> Int
    func saveTemporaryProof(_ proof: TemporaryProof) async throws
    func temporaryProof(_ proof: String) async throws -> TemporaryProof?
    func deleteTemporaryProof(_ proof: String) async throws
}

/// The pending codes of `verificationCodes`, and when the first of them expires (nil: none listed).
public struct PendingCodeEntries: Sendable, Equatable {
    public var entries: [Data]
    public var earliestExpiry: Date?

    public init(_ entries: [Data], earliestExpiry: Date?) {
        self.entries = entries
        self.earliestExpiry = earliestExpiry
    }

    /// What both stores do around their joined query: a row without its entry (written by an
    /// older authemu) is listed from its record if still unexpired, and the earliest expiry is
    /// the least of the query's (`min(expires_at)`) and of those records.
    public struct Assembly {
        let now: Date
        var earliestOfRecords: Date?

        public init(now: Date) { self.now = now }

        /// The entry of a stored record, nil once it has expired.
        public mutating func entry(ofRecord data: Data) throws -> Data? {
            let message = try SmsMessage(stored: JSONValue.parse(data))
            guard message.expiresAt > now else { return nil }
            earliestOfRecords = min(earliestOfRecords ?? message.expiresAt, message.expiresAt)
            return message.codeEntry
        }

        public func result(_ entries: [Data], earliestListed: Double?) -> PendingCodeEntries {
            let expiries = [earliestListed.map { Date(timeIntervalSince1970: $0) }, earliestOfRecords].compactMap { $0 }
            return PendingCodeEntries(entries, earliestExpiry: expiries.min())
        }
    }
}

/// The code log's two full listings.
public enum CodeListing: String, Sendable, CaseIterable {
    case verificationCodes, oobCodes
}

/// What changes whenever the rows of a scope's listing change: a code sent, used or deleted (a
/// code's entry never changes once written, and a used code never becomes pending again).
public struct CodeListingVersion: Sendable, Hashable {
    /// The newest listed row's id; ids only grow, and a row joins a listing only when it is new.
    public var newest: Int64
    /// How many rows are listed.
    public var count: Int64

    public init(newest: Int64, count: Int64) {
        self.newest = newest
        self.count = count
    }
}

/// A mark that a store can give a scope's listing without reading its rows: while two reads get
/// the same mark, nothing changed the listing between them. SQLite gives one while the daemon is
/// the only store writing its file (its own writes tell it what changed); nil otherwise.
public struct CodeListingStamp: Sendable, Hashable {
    /// Which stretch of being the file's only store the mark belongs to.
    public var epoch: UInt64
    /// The store's last committed change of this listing, by its own count.
    public var change: UInt64
    /// The last of those changes that did more than add rows to the listing (a code used, deleted
    /// or replaced): while it is not after a kept listing's `change`, only new rows joined since.
    public var lastNotJoining: UInt64

    public init(epoch: UInt64, change: UInt64, lastNotJoining: UInt64) {
        self.epoch = epoch
        self.change = change
        self.lastNotJoining = lastNotJoining
    }
}

/// The version of a scope's listing, read in the transaction that reads the listing, so that a
/// reader can tell whether the listing it keeps in memory still holds, and what joined it since.
public protocol CodeListingVersionRepository {
    /// The listing's stamp, asked first in the transaction (before any other read of it); nil
    /// when the store cannot give one (the version is then read).
    func codeListingStamp(_ scope: Scope, _ listing: CodeListing) async throws -> CodeListingStamp?
    /// nil when the store cannot tell (the listing is then read from the rows each time).
    func codeListingVersion(_ scope: Scope, _ listing: CodeListing) async throws -> CodeListingVersion?
    /// The listing's rows newer than `newest` (a version's), as a full read of the listing at
    /// `now` lists them; nil from a store without versions.
    func codeListingRows(_ scope: Scope, _ listing: CodeListing, after newest: Int64, now: Date) async throws
        -> ListedRows?
}

/// Rows of a listing: their entries (elements may be runs joined by commas), how many rows the
/// query found, the earliest expiry among them (nil: none expires, or none listed), and the
/// highest id among them (nil: none found).
public struct ListedRows: Sendable, Equatable {
    public var entries: [Data]
    public var rows: Int64
    public var earliestExpiry: Date?
    public var newest: Int64?

    public init(_ entries: [Data], rows: Int64, earliestExpiry: Date?, newest: Int64? = nil) {
        self.entries = entries
        self.rows = rows
        self.earliestExpiry = earliestExpiry
        self.newest = newest
    }
}

/// TOTP enrollments between start and finalize (the secret lives here until then).
public protocol TotpSessionRepository {
    func saveTotpSession(_ session: TotpEnrollmentSession) async throws
    func totpSession(_ sessionInfo: String) async throws -> TotpEnrollmentSession?
    func deleteTotpSession(_ sessionInfo: String) async throws
}

/// The auth events a write raises (a user created or deleted), sent once it commits.
public protocol AuthEventRecorder {
    /// Keeps `event` with this run of the body: the store hands it to `committedEvents` once the
    /// run commits, in commit order, and drops it when the run rolls back or is run again. An
    /// event recorded in a `read` is dropped.
    func record(_ event: AuthEvent)
}

/// Everything one transaction can touch.
public protocol StoreTransaction: UserRepository, TenantRepository, ConfigRepository, OobCodeRepository,
    IdpConfigRepository, SmsOutboxRepository, TotpSessionRepository, AppVerificationRepository,
    SigningKeyRepository, TokenSecretRepository, ClockSettingRepository, InspectorRepository,
    CodeListingVersionRepository, AuthEventRecorder
{}

/// What a committed write changed that other processes keep in memory: caches of settings, the
/// long-polls of the outboxes, the clock offset.
public enum StoreChange: String, Sendable, CaseIterable {
    case settings, sms, apns, clock
}

/// The durable state, and the contract every backend keeps (`runStoreConformance` in the tests
/// checks each point against SQLite and PostgreSQL):
///
/// - **Transactions.** `write` runs its body in one transaction: a thrown error rolls all of it
///   back; a return means it is committed. Two concurrent `write`s behave as if one ran entirely
///   before the other (serializable), also from different processes: neither sees a part of the
///   other, and each sees everything committed before it began. `read` sees one consistent
///   snapshot of committed data. Bodies must have no effects outside the transaction: a store may
///   run a body again (`sessionWrite`, blocking functions, PostgreSQL's one-`SELECT` first run,
///   a PostgreSQL write that lost a conflict to another).
/// - **Bodies await only the store.** Bodies and repository calls are `async` so that PostgreSQL
///   can run a transaction on its connection's event loop; SQLite runs the same body to its end
///   inside its database closure, so a body that awaited anything else (a network call, a sleep)
///   would stop the process. Such work goes before or after the transaction.
/// - **Bodies do only database work.** SQLite has one writer, so a body's time is every writer's
///   wait. Work whose cost a caller chooses runs before or after the transaction: an imported
///   password hash on `SlowCheckPool` (`PasswordVerdict` ends the run and the flow runs again
///   with the verdict), a SAML document or an IdP assertion parsed before the write, tokens
///   signed after it, blocking functions called between runs. What stays inside is of fixed,
///   small cost: the emulator's own salted SHA-256, a TOTP or SMS code, a JSON record of bounded
///   size (`FieldLimits`).
/// - **Session times.** A `sessionWrite` whose body only read and called `saveSessionTimes` may
///   store those two times after its snapshot, outside any lock: a full `save` by a concurrent
///   `write` may then carry the older times. Nothing is decided on them (they are shown only).
/// - **Acknowledged means durable.** When `write` returns, the transaction is committed: a
///   response sent after it survives `kill -9` of the daemon. SQLite: WAL with `synchronous =
///   NORMAL` on a committed frame (an OS crash may lose the last commits); PostgreSQL: the server's
///   commit with `synchronous_commit = off` by default (in its WAL buffers; the server's crash may
///   lose its last fraction of a second), or flushed with `?synchronous_commit=on`.
/// - **Writers do not wait for each other** (PostgreSQL, whichever daemon takes them): writes run
///   at `SERIALIZABLE`, and PostgreSQL ends one of two writes that conflict (each read what the
///   other wrote), which is then run again from the start and sees what the other committed. Two
///   writes of one account wait only for each other's row. SQLite runs one writer at a time.
/// - **Uniqueness per scope.** Email, phone number and federated id (providerId, rawId) are unique
///   within a project or tenant whenever the domain checks before it saves, also between writers
///   in different processes: SQLite serializes writers on the file lock (`BEGIN IMMEDIATE`);
///   on PostgreSQL the check and the save are one serializable write.
/// - **Outbox order.** The SMS, APNs and OOB outboxes assign increasing ids, and a reader of one
///   project sees its ids appear in commit order: a long-poll that read up to id N never later
///   finds a new id below N in that project (SQLite's writers run one at a time; PostgreSQL's take
///   a lock per project's outbox before an id is assigned). Across projects ids increase but may
///   commit out of order.
/// - **Changes.** `observeChanges` hears the `StoreChange`s committed by every process sharing the
///   database, so caches and long-polls follow writes made elsewhere (PostgreSQL: LISTEN/NOTIFY).
/// - **Events after commit.** The events a body records (`AuthEventRecorder`) reach
///   `committedEvents` exactly once per committed write, right after its commit and in commit
///   order (SQLite: by the batch's writer, in job order; PostgreSQL: as this daemon's commits
///   complete), never for a run that rolled back or was run again, and only in the process that
///   made the write.
/// - **Unavailability.** A database that cannot be reached or written answers
///   `AuthError.storeUnavailable` (503 `UNAVAILABLE`), within a bounded time, never a hang.
public protocol AuthStore: Sendable {
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws -> T
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws -> T
    /// A `write` whose body usually changes nothing but session times (`saveSessionTimes`): a
    /// plain sign-in or a token refresh. A store may run it outside a write transaction: the
    /// reads from one snapshot, then the times stored on their own, durably, before it returns.
    /// Should the body make any other change, it is run again as a `write`.
    func sessionWrite<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws
        -> T
    /// True when the store is open and answers a trivial query.
    func isReady() async -> Bool
    /// Where the events of this process's commits go.
    var committedEvents: CommittedEventOutlet { get }
    /// Calls `handler` for each change committed by any process sharing this database. A store
    /// that only one process can use calls it never: that process already knows its writes.
    func observeChanges(_ handler: @escaping @Sendable (StoreChange) -> Void)
}

extension AuthStore {
    public func observeChanges(_ handler: @escaping @Sendable (StoreChange) -> Void) {}

    /// A store with one writer and cheap writes (SQLite) runs it as any other `write`.
    public func sessionWrite<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T)
        async throws -> T
    {
        try await write(body)
    }
}

/// Why a store was refused at start-up (a file or schema that is not authemu's, or is newer).
public struct StoreOpenError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
