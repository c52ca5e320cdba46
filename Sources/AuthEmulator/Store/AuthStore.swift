import Foundation

/// Users of one scope (project or tenant). Email and phone are matched case-insensitively and
/// exactly respectively; federated identities by (providerId, rawId).
public protocol UserRepository {
    func user(_ scope: Scope, localId: String) throws -> UserRecord?
    func users(_ scope: Scope, email: String) throws -> [UserRecord]
    func user(_ scope: Scope, phoneNumber: String) throws -> UserRecord?
    func user(_ scope: Scope, providerId: String, rawId: String) throws -> UserRecord?
    /// Users linked to `providerId`, by raw id, at most `limit` (the IdP widget's account list).
    func users(_ scope: Scope, providerId: String, limit: Int) throws -> [UserRecord]
    /// Users with a linked IdP whose email (`providerUserInfo[].email`) is `providerEmail`, by localId.
    func users(_ scope: Scope, providerEmail: String) throws -> [UserRecord]
    /// The owner of a passkey (`passkeyInfo[].credentialId`).
    func user(_ scope: Scope, passkeyCredentialId: String) throws -> UserRecord?
    /// Inserts or replaces the record with the same localId, and its indexes.
    func save(_ scope: Scope, _ user: UserRecord) throws
    /// Stores `user`'s `lastLoginAt` and `lastRefreshAt` without rewriting the whole record (the
    /// only write of a plain sign-in or a token refresh); `user` is otherwise as read in this
    /// transaction.
    func saveSessionTimes(_ scope: Scope, _ user: UserRecord) throws
    func deleteUser(_ scope: Scope, localId: String) throws -> Bool
    func deleteAllUsers(_ scope: Scope) throws
    /// Users in localId order, strictly after `after`, at most `limit` (nil = all).
    func listUsers(_ scope: Scope, after: String?, limit: Int?, descending: Bool) throws -> [UserRecord]
    func countUsers(_ scope: Scope) throws -> Int
    /// Accounts in every project and tenant (for status lines).
    func countAllUsers() throws -> Int
    /// Tenant ids (nil for the top level) that have users in a project.
    func tenantsWithUsers(projectId: String) throws -> [String?]
}

/// Tenants of a project, stored in the Identity Toolkit v2 `Tenant` JSON shape.
public protocol TenantRepository {
    func tenant(projectId: String, tenantId: String) throws -> JSONValue?
    func saveTenant(projectId: String, tenantId: String, _ tenant: JSONValue) throws
    func deleteTenant(projectId: String, tenantId: String) throws -> Bool
    func listTenants(projectId: String, after: String?, limit: Int?) throws -> [JSONValue]
}

/// Project configurations, stored in the Identity Toolkit v2 `Config` JSON shape.
public protocol ConfigRepository {
    func projectConfig(projectId: String) throws -> JSONValue?
    func saveProjectConfig(projectId: String, _ config: JSONValue) throws
}

/// Out-of-band codes (email links), in creation order.
public protocol OobCodeRepository {
    func oobCode(_ scope: Scope, code: String) throws -> OobCode?
    func saveOobCode(_ scope: Scope, _ code: OobCode) throws
    func deleteOobCode(_ scope: Scope, code: String) throws
    func listOobCodes(_ scope: Scope) throws -> [OobCode]
    func deleteAllOobCodes(_ scope: Scope) throws
}

/// Identity-provider configurations (`oauthIdpConfigs`, `inboundSamlConfigs`,
/// `defaultSupportedIdpConfigs`), kept as the JSON the Admin SDKs send.
public protocol IdpConfigRepository {
    func idpConfig(_ scope: Scope, kind: String, id: String) throws -> JSONValue?
    func saveIdpConfig(_ scope: Scope, kind: String, id: String, _ config: JSONValue) throws
    func deleteIdpConfig(_ scope: Scope, kind: String, id: String) throws -> Bool
    func listIdpConfigs(_ scope: Scope, kind: String) throws -> [JSONValue]
}

/// The SMS outbox (every SMS any flow sends) and the temporary proofs of phone conflicts.
public protocol SmsOutboxRepository {
    /// Stores a new message and returns it with its assigned, increasing `id`.
    func insertSms(_ message: SmsMessage) throws -> SmsMessage
    func updateSms(_ message: SmsMessage) throws
    func sms(sessionInfo: String) throws -> SmsMessage?
    /// Messages of a scope matching `query`, oldest first.
    func listSms(_ scope: Scope, _ query: SmsQuery) throws -> [SmsMessage]
    func deleteAllSms(_ scope: Scope) throws
    /// How many messages went to a number (or came from a client address) since a time.
    func countSms(phoneNumber: String, since: Date) throws -> Int
    func countSms(clientIP: String, since: Date) throws -> Int
    func saveTemporaryProof(_ proof: TemporaryProof) throws
    func temporaryProof(_ proof: String) throws -> TemporaryProof?
    func deleteTemporaryProof(_ proof: String) throws
}

/// TOTP enrollments between start and finalize (the secret lives here until then).
public protocol TotpSessionRepository {
    func saveTotpSession(_ session: TotpEnrollmentSession) throws
    func totpSession(_ sessionInfo: String) throws -> TotpEnrollmentSession?
    func deleteTotpSession(_ sessionInfo: String) throws
}

/// Everything one transaction can touch.
public protocol StoreTransaction: UserRepository, TenantRepository, ConfigRepository, OobCodeRepository,
    IdpConfigRepository, SmsOutboxRepository, TotpSessionRepository, AppVerificationRepository,
    SigningKeyRepository, ClockOffsetRepository, InspectorRepository
{}

/// The durable state. `write` runs its body in one transaction: a thrown error rolls it all back,
/// a return means it is committed.
public protocol AuthStore: Sendable {
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// True when the store is open and answers a trivial query.
    func isReady() async -> Bool
}
