import AuthEmulator
import Foundation
import GRDB

/// The repositories over one open GRDB transaction. Records are kept as JSON in a `data` column,
/// with the fields that are searched (email, phone, federated ids) in indexed columns.
struct SQLiteTransaction: StoreTransaction {
    let db: Database
    let userCache: StoredRecordCache<UserRecord>
    let smsCache: StoredRecordCache<SmsMessage>
    let listingStamps: CodeListingStamps
    /// The events of this run of a write's body (nil in a read: they are dropped).
    let events: RecordedEvents?

    init(db: Database, store: SQLiteStore, events: RecordedEvents? = nil) {
        self.db = db
        userCache = store.userCache
        smsCache = store.smsCache
        listingStamps = store.listingStamps
        self.events = events
    }

    func record(_ event: AuthEvent) { events?.append(event) }

    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    private func encode(_ value: some Encodable) throws -> Data { try Self.encoder.encode(value) }
    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        try Self.decoder.decode(type, from: data)
    }
    func tenantKey(_ scope: Scope) -> String { scope.tenantId ?? "" }

    /// Runs a statement through the connection's statement cache, as every query here does:
    /// compiling the SQL cost more than running it (a phone sign-in compiled 570,000
    /// instructions of SQL per flow).
    func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// The columns a user is read from (see `userRecord`).
    static let userColumns = "local_id, data, last_login_at, last_refresh_at"
    // The hot queries' SQL, built once (interpolating it on every call cost a sign-in ~2,000
    // instructions).
    static let userByLocalId =
        "SELECT \(userColumns) FROM users WHERE project_id = ? AND tenant_id = ? AND local_id = ?"
    static let usersByEmail = "SELECT \(userColumns) FROM users WHERE project_id = ? AND tenant_id = ? AND email = ?"
    static let userByPhoneNumber =
        "SELECT \(userColumns) FROM users WHERE project_id = ? AND tenant_id = ? AND phone_number = ? LIMIT 1"

    /// A user row as a record: `data` decoded through the decoded-record cache, then the session
    /// times from their columns (NULL in rows written before they existed: `data` has them).
    private func userRecord(_ scope: Scope, _ row: Row, cached: Bool = true) throws -> UserRecord {
        let localId: String = row[0]
        var user = try row.withUnsafeData(atIndex: 1) { data in
            // `data` points into SQLite's row: compared to the cached bytes in place, copied only to keep.
            guard let data else { throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "user without data") }
            return cached
                ? try userCache.record(key: cacheKey(scope, localId), data: data) { try decode(UserRecord.self, $0) }
                : try decode(UserRecord.self, data)
        }
        if let lastLoginAt: String = row[2] { user.lastLoginAt = lastLoginAt }
        if let lastRefreshAt: String = row[3] { user.lastRefreshAt = lastRefreshAt }
        return user
    }

    /// The users a query finds, read from the statement's rows in place (`Row.fetchAll` copies
    /// every row first).
    func users(
        _ scope: Scope, _ statement: Statement, _ arguments: StatementArguments, cached: Bool = true
    ) throws -> [UserRecord] {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var users: [UserRecord] = []
        while let row = try rows.next() { users.append(try userRecord(scope, row, cached: cached)) }
        return users
    }

    private func cacheKey(_ scope: Scope, _ localId: String) -> String {
        StoredRecordCache<UserRecord>.userKey(scope, localId)
    }

    // MARK: users

    func user(_ scope: Scope, localId: String) throws -> UserRecord? {
        try users(
            scope,
            db.cachedStatement(
                sql: Self.userByLocalId),
            [scope.projectId, tenantKey(scope), localId]
        ).first
    }

    func users(_ scope: Scope, email: String) throws -> [UserRecord] {
        try users(
            scope,
            // No ORDER BY here: it would make SQLite walk the primary key instead of the email index.
            db.cachedStatement(
                sql: Self.usersByEmail),
            [scope.projectId, tenantKey(scope), email.lowercased()]
        ).sorted { $0.localId < $1.localId }
    }

    func user(_ scope: Scope, phoneNumber: String) throws -> UserRecord? {
        try users(
            scope,
            db.cachedStatement(
                sql: Self.userByPhoneNumber),
            [scope.projectId, tenantKey(scope), phoneNumber]
        ).first
    }

    func user(_ scope: Scope, providerId: String, rawId: String) throws -> UserRecord? {
        guard
            let localId = try String.fetchOne(
                db,
                sql: """
                    SELECT local_id FROM federated_ids
                    WHERE project_id = ? AND tenant_id = ? AND provider_id = ? AND raw_id = ?
                    """,
                arguments: [scope.projectId, tenantKey(scope), providerId, rawId])
        else { return nil }
        return try user(scope, localId: localId)
    }

    func users(_ scope: Scope, providerId: String, limit: Int) throws -> [UserRecord] {
        let localIds = try String.fetchAll(
            db,
            sql: """
                SELECT local_id FROM federated_ids
                WHERE project_id = ? AND tenant_id = ? AND provider_id = ? ORDER BY raw_id LIMIT ?
                """,
            arguments: [scope.projectId, tenantKey(scope), providerId, limit])
        return try localIds.compactMap { try user(scope, localId: $0) }
    }

    func users(_ scope: Scope, providerEmail: String) throws -> [UserRecord] {
        // Sorted here: ORDER BY or DISTINCT made SQLite prefer the local_id index over the email one.
        let localIds = try String.fetchAll(
            db,
            sql: "SELECT local_id FROM federated_ids WHERE project_id = ? AND tenant_id = ? AND email = ?",
            arguments: [scope.projectId, tenantKey(scope), providerEmail.lowercased()])
        return try Set(localIds).sorted().compactMap { try user(scope, localId: $0) }
    }

    func user(_ scope: Scope, passkeyCredentialId: String) throws -> UserRecord? {
        try user(scope, providerId: UserRecord.passkeyProvider, rawId: passkeyCredentialId)
    }

    func save(_ scope: Scope, _ user: UserRecord) throws {
        let tenant = tenantKey(scope)
        let data = try user.checkedStoredData()
        // Cached statements: these run on every sign-up, so compile them once per connection.
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO users
                    (project_id, tenant_id, local_id, email, phone_number, data, last_login_at, last_refresh_at,
                     display_name)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            scope.projectId, tenant, user.localId, user.email?.lowercased(), user.phoneNumber, data,
            user.lastLoginAt, user.lastRefreshAt, user.displayName?.lowercased(),
        ])
        // `storedValue` round-trips: these bytes decode to exactly `user`. (A rolled-back
        // transaction leaves an entry whose bytes match no stored row: it is never hit.)
        userCache.store(key: cacheKey(scope, user.localId), data: data, record: user)
        try db.cachedStatement(sql: "DELETE FROM federated_ids WHERE project_id = ? AND tenant_id = ? AND local_id = ?")
            .execute(arguments: [scope.projectId, tenant, user.localId])
        for identity in user.indexedIdentities {
            try execute(
                sql: """
                    INSERT OR REPLACE INTO federated_ids (project_id, tenant_id, provider_id, raw_id, local_id, email)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [scope.projectId, tenant, identity.providerId, identity.rawId, user.localId, identity.email])
        }
    }

    func saveSessionTimes(_ scope: Scope, _ user: UserRecord) throws {
        // `data` is left as it is (its decoded form stays cached); the columns win when read.
        try db.cachedStatement(
            sql: """
                UPDATE users SET last_login_at = ?, last_refresh_at = ?
                WHERE project_id = ? AND tenant_id = ? AND local_id = ?
                """
        ).execute(arguments: [user.lastLoginAt, user.lastRefreshAt, scope.projectId, tenantKey(scope), user.localId])
    }

    func deleteUser(_ scope: Scope, localId: String) throws -> Bool {
        let arguments: StatementArguments = [scope.projectId, tenantKey(scope), localId]
        try execute(
            sql: "DELETE FROM federated_ids WHERE project_id = ? AND tenant_id = ? AND local_id = ?",
            arguments: arguments)
        try execute(
            sql: "DELETE FROM users WHERE project_id = ? AND tenant_id = ? AND local_id = ?", arguments: arguments)
        return db.changesCount > 0
    }

    func deleteAllUsers(_ scope: Scope) throws {
        let arguments: StatementArguments = [scope.projectId, tenantKey(scope)]
        try execute(sql: "DELETE FROM federated_ids WHERE project_id = ? AND tenant_id = ?", arguments: arguments)
        try execute(sql: "DELETE FROM users WHERE project_id = ? AND tenant_id = ?", arguments: arguments)
    }

    func listUsers(_ scope: Scope, after: String?, limit: Int?, descending: Bool) throws -> [UserRecord] {
        var sql = "SELECT \(Self.userColumns) FROM users WHERE project_id = ? AND tenant_id = ?"
        var arguments: StatementArguments = [scope.projectId, tenantKey(scope)]
        if let after {
            sql += descending ? " AND local_id < ?" : " AND local_id > ?"
            arguments += [after]
        }
        sql += descending ? " ORDER BY local_id DESC" : " ORDER BY local_id"
        if let limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        // Listing pages through many users: decoded directly, not through (and out of) the cache.
        return try users(scope, db.cachedStatement(sql: sql), arguments, cached: false)
    }

    func countUsers(_ scope: Scope) throws -> Int {
        try Int.fetchOne(
            cached: db, sql: "SELECT COUNT(*) FROM users WHERE project_id = ? AND tenant_id = ?",
            arguments: [scope.projectId, tenantKey(scope)]) ?? 0
    }

    func countAllUsers() throws -> Int {
        try Int.fetchOne(cached: db, sql: "SELECT COUNT(*) FROM users") ?? 0
    }

    func tenantsWithUsers(projectId: String) throws -> [String?] {
        try String.fetchAll(
            cached: db, sql: "SELECT DISTINCT tenant_id FROM users WHERE project_id = ? ORDER BY tenant_id",
            arguments: [projectId]
        ).map { $0.isEmpty ? nil : $0 }
    }

    // MARK: tenants

    func tenant(projectId: String, tenantId: String) throws -> JSONValue? {
        try Data.fetchOne(
            cached: db, sql: "SELECT data FROM tenants WHERE project_id = ? AND tenant_id = ?",
            arguments: [projectId, tenantId]
        ).map { try JSONValue.parse($0) }
    }

    func saveTenant(projectId: String, tenantId: String, _ tenant: JSONValue) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO tenants (project_id, tenant_id, data) VALUES (?, ?, ?)",
            arguments: [projectId, tenantId, encode(tenant)])
        try execute(
            sql: "DELETE FROM deleted_tenants WHERE project_id = ? AND tenant_id = ?", arguments: [projectId, tenantId])
    }

    func deleteTenant(projectId: String, tenantId: String) throws -> Bool {
        try execute(
            sql: "DELETE FROM tenants WHERE project_id = ? AND tenant_id = ?", arguments: [projectId, tenantId])
        guard db.changesCount > 0 else { return false }
        try execute(
            sql: "INSERT OR IGNORE INTO deleted_tenants (project_id, tenant_id) VALUES (?, ?)",
            arguments: [projectId, tenantId])
        return true
    }

    func deleteAllTenants(projectId: String) throws {
        try execute(sql: "DELETE FROM tenants WHERE project_id = ?", arguments: [projectId])
        try execute(sql: "DELETE FROM deleted_tenants WHERE project_id = ?", arguments: [projectId])
    }

    func tenantWasDeleted(projectId: String, tenantId: String) throws -> Bool {
        try Bool.fetchOne(
            cached: db, sql: "SELECT 1 FROM deleted_tenants WHERE project_id = ? AND tenant_id = ?",
            arguments: [projectId, tenantId]) ?? false
    }

    func listTenants(projectId: String, after: String?, limit: Int?) throws -> [JSONValue] {
        var sql = "SELECT data FROM tenants WHERE project_id = ?"
        var arguments: StatementArguments = [projectId]
        if let after {
            sql += " AND tenant_id > ?"
            arguments += [after]
        }
        sql += " ORDER BY tenant_id"
        if let limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return try Data.fetchAll(cached: db, sql: sql, arguments: arguments).map { try JSONValue.parse($0) }
    }

    // MARK: project configs

    func projectConfig(projectId: String) throws -> JSONValue? {
        try Data.fetchOne(
            cached: db, sql: "SELECT data FROM project_configs WHERE project_id = ?", arguments: [projectId]
        )
        .map { try JSONValue.parse($0) }
    }

    func saveProjectConfig(projectId: String, _ config: JSONValue) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO project_configs (project_id, data) VALUES (?, ?)",
            arguments: [projectId, encode(config)])
    }

    // MARK: OOB codes

    func oobCode(_ scope: Scope, code: String) throws -> OobCode? {
        try Data.fetchOne(
            cached: db, sql: "SELECT data FROM oob_codes WHERE project_id = ? AND tenant_id = ? AND oob_code = ?",
            arguments: [scope.projectId, tenantKey(scope), code]
        ).map { try decode(OobCode.self, $0) }
    }

    func saveOobCode(_ scope: Scope, _ code: OobCode) throws {
        // A code is unique across scopes: one saved again replaces its row, maybe in another scope.
        let replaced = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT project_id, tenant_id FROM oob_codes WHERE oob_code = ?"),
            arguments: [code.oobCode])
        if let replaced {
            let tenantId: String = replaced[1]
            listingStamps.touch(
                Scope(projectId: replaced[0], tenantId: tenantId.isEmpty ? nil : tenantId), .oobCodes, joining: false)
        }
        try execute(
            sql: """
                INSERT OR REPLACE INTO oob_codes (project_id, tenant_id, oob_code, data, listing) VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [scope.projectId, tenantKey(scope), code.oobCode, encode(code), code.listingEntry])
        // AUTOINCREMENT: the new row has a higher `seq` than any before, so it joins the listing.
        listingStamps.touch(scope, .oobCodes, joining: true)
    }

    func deleteOobCode(_ scope: Scope, code: String) throws {
        try execute(
            sql: "DELETE FROM oob_codes WHERE project_id = ? AND tenant_id = ? AND oob_code = ?",
            arguments: [scope.projectId, tenantKey(scope), code])
        listingStamps.touch(scope, .oobCodes, joining: false)
    }

    func listOobCodes(_ scope: Scope) throws -> [OobCode] {
        try Data.fetchAll(
            cached: db, sql: "SELECT data FROM oob_codes WHERE project_id = ? AND tenant_id = ? ORDER BY seq",
            arguments: [scope.projectId, tenantKey(scope)]
        ).map { try decode(OobCode.self, $0) }
    }

    /// From the covering index `oob_codes_listing` alone, in its (creation) order.
    func oobCodeEntries(_ scope: Scope) throws -> [Data] { try oobCodeRows(scope, after: 0).entries }

    /// The email codes issued after `newest` (a `seq`), from the covering index `oob_codes_listing`.
    func oobCodeRows(_ scope: Scope, after newest: Int64) throws -> ListedRows {
        let (entries, _, rows, newest) = try joinedEntries(
            "listing",
            from: "FROM oob_codes INDEXED BY oob_codes_listing WHERE project_id = ? AND tenant_id = ? AND seq > ?",
            order: "seq", [scope.projectId, tenantKey(scope), newest]
        ) { try decode(OobCode.self, $0).listingEntry }
        return ListedRows(entries, rows: rows, earliestExpiry: nil, newest: newest)
    }

    func deleteAllOobCodes(_ scope: Scope) throws {
        try execute(
            sql: "DELETE FROM oob_codes WHERE project_id = ? AND tenant_id = ?",
            arguments: [scope.projectId, tenantKey(scope)])
        listingStamps.touch(scope, .oobCodes, joining: false)
    }

    // MARK: IdP configs

    func idpConfig(_ scope: Scope, kind: String, id: String) throws -> JSONValue? {
        try Data.fetchOne(
            cached: db,
            sql: "SELECT data FROM idp_configs WHERE project_id = ? AND tenant_id = ? AND kind = ? AND id = ?",
            arguments: [scope.projectId, tenantKey(scope), kind, id]
        ).map { try JSONValue.parse($0) }
    }

    func saveIdpConfig(_ scope: Scope, kind: String, id: String, _ config: JSONValue) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO idp_configs (project_id, tenant_id, kind, id, data) VALUES (?, ?, ?, ?, ?)",
            arguments: [scope.projectId, tenantKey(scope), kind, id, encode(config)])
    }

    func deleteIdpConfig(_ scope: Scope, kind: String, id: String) throws -> Bool {
        try execute(
            sql: "DELETE FROM idp_configs WHERE project_id = ? AND tenant_id = ? AND kind = ? AND id = ?",
            arguments: [scope.projectId, tenantKey(scope), kind, id])
        return db.changesCount > 0
    }

    func listIdpConfigs(_ scope: Scope, kind: String) throws -> [JSONValue] {
        try Data.fetchAll(
            cached: db,
            sql: "SELECT data FROM idp_configs WHERE project_id = ? AND tenant_id = ? AND kind = ? ORDER BY id",
            arguments: [scope.projectId, tenantKey(scope), kind]
        ).map { try JSONValue.parse($0) }
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// `fetchOne(db, sql:…)` through the connection's statement cache.
    static func fetchOne(
        cached db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// `fetchAll(db, sql:…)` through the connection's statement cache.
    static func fetchAll(
        cached db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }
}
