import AuthEmulator
import Foundation
import PostgresNIO

/// The repositories over one open PostgreSQL transaction, with the same tables and JSON `data`
/// columns as the SQLite store. It notes what it changed that other daemons cache (`changes`).
///
/// A write runs at `SERIALIZABLE` (see `PostgresStore.write`): PostgreSQL itself detects two
/// writes that could not have run one after the other, and one of them is run again. The one
/// explicit lock is the outbox's (`outboxLock`), so that a project's SMS, APNs and email-code ids
/// commit in the order they were assigned.
final class PostgresTransaction: StoreTransaction {
    let session: PostgresSession
    private(set) var changes: Set<StoreChange> = []
    /// In a `sessionWrite`, the session times to store after the body's snapshot (nil: stored at once).
    private(set) var deferredSessionTimes: [[Bind]]?
    /// How many accounts this transaction saved (`PlannerStatistics` counts them).
    private(set) var savedAccounts = 0
    /// The events this run recorded; `PostgresStore.writeOnce` hands them on after its commit.
    let events = RecordedEvents()
    init(session: PostgresSession) {
        self.session = session
        if session.readsOnly { deferredSessionTimes = [] }
    }

    func record(_ event: AuthEvent) { events.append(event) }

    func changed(_ change: StoreChange) { changes.insert(change) }

    /// The head of an outbox insert, `… INSERT INTO t (…) SELECT … FROM outbox_lock`: the project
    /// (bind `$project`) outbox lock is taken before the row and its id are made, and held to commit,
    /// so a project's ids commit in increasing order (a long-poll that has read up to id N never
    /// later finds a new one below N). The lock travels in the insert: no round trip of its own.
    /// Outboxes of other projects, and every other write, never wait for it.
    static func outboxLock(project: Int) -> String {
        """
        WITH outbox_lock AS MATERIALIZED (
            SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':outbox:' || $\(project), 0)))
        """
    }

    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    func encode(_ value: some Encodable) throws -> Bind { .bytes(try Self.encoder.encode(value)) }
    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T { try Self.decoder.decode(type, from: data) }
    func tenantKey(_ scope: Scope) -> String { scope.tenantId ?? "" }

    func scoped(_ scope: Scope) -> [Bind] { [.text(scope.projectId), .text(tenantKey(scope))] }

    /// A listing in `key` order, after a key and up to a limit when given.
    static func page(_ sql: String, _ binds: [Bind], key: String, after: Bind?, limit: Int?) -> (String, [Bind]) {
        var (sql, binds) = (sql, binds)
        if let after {
            binds.append(after)
            sql += " AND \(key) > $\(binds.count)"
        }
        sql += " ORDER BY \(key)"
        if let limit {
            binds.append(.int(limit))
            sql += " LIMIT $\(binds.count)"
        }
        return (sql, binds)
    }

    // MARK: tables of one JSON record per key

    /// A table of `(key column, data)`: temporary proofs, TOTP sessions, app credentials.
    struct RecordTable {
        let name: String
        let key: String

        static let temporaryProofs = RecordTable(name: "temporary_proofs", key: "proof")
        static let totpSessions = RecordTable(name: "totp_sessions", key: "session_info")
        static let appCredentials = RecordTable(name: "app_credentials", key: "token")
    }

    func save(_ table: RecordTable, _ key: String, _ value: some Encodable) async throws {
        try await session.execute(
            """
            INSERT INTO \(table.name) (\(table.key), data) VALUES ($1, $2)
            ON CONFLICT (\(table.key)) DO UPDATE SET data = EXCLUDED.data
            """, [.text(key), encode(value)])
    }

    func record<T: Decodable>(_ type: T.Type, _ table: RecordTable, _ key: String) async throws -> T? {
        try await session.values(
            Data.self, "SELECT data FROM \(table.name) WHERE \(table.key) = $1", [.text(key)]
        ).first
            .map { try decode(T.self, $0) }
    }

    func delete(_ table: RecordTable, _ key: String) async throws {
        try await session.execute("DELETE FROM \(table.name) WHERE \(table.key) = $1", [.text(key)])
    }

    // MARK: users

    static let userColumns = "local_id, data, last_login_at, last_refresh_at"

    /// The users a query of `userColumns` finds, decoded through the store's cache.
    func users(_ scope: Scope, _ sql: String, _ binds: [Bind]) async throws -> [UserRecord] {
        try await session.rows(sql, binds).map { row in
            let columns = row.makeRandomAccess()
            let key = StoredRecordCache<UserRecord>.userKey(scope, try columns[0].decode(String.self))
            var user = try session.userCache.record(key: key, data: try columns[1].decode(Data.self)) {
                try decode(UserRecord.self, $0)
            }
            if let lastLoginAt = try columns[2].decode(String?.self) { user.lastLoginAt = lastLoginAt }
            if let lastRefreshAt = try columns[3].decode(String?.self) { user.lastRefreshAt = lastRefreshAt }
            return user
        }
    }

    func user(_ scope: Scope, localId: String) async throws -> UserRecord? {
        try await users(
            scope, "SELECT \(Self.userColumns) FROM users WHERE project_id = $1 AND tenant_id = $2 AND local_id = $3",
            scoped(scope) + [.text(localId)]
        ).first
    }

    func users(_ scope: Scope, email: String) async throws -> [UserRecord] {
        try await users(
            scope,
            """
            SELECT \(Self.userColumns) FROM users WHERE project_id = $1 AND tenant_id = $2 AND email = $3
            ORDER BY local_id
            """, scoped(scope) + [.text(email.lowercased())])
    }

    func user(_ scope: Scope, phoneNumber: String) async throws -> UserRecord? {
        try await users(
            scope,
            """
            SELECT \(Self.userColumns) FROM users WHERE project_id = $1 AND tenant_id = $2 AND phone_number = $3
            LIMIT 1
            """, scoped(scope) + [.text(phoneNumber)]
        ).first
    }

    func user(_ scope: Scope, providerId: String, rawId: String) async throws -> UserRecord? {
        guard
            let localId = try await session.value(
                String.self,
                """
                SELECT local_id FROM federated_ids
                WHERE project_id = $1 AND tenant_id = $2 AND provider_id = $3 AND raw_id = $4
                """, scoped(scope) + [.text(providerId), .text(rawId)])
        else { return nil }
        return try await user(scope, localId: localId)
    }

    func users(_ scope: Scope, providerId: String, limit: Int) async throws -> [UserRecord] {
        try await session.values(
            String.self,
            """
            SELECT local_id FROM federated_ids
            WHERE project_id = $1 AND tenant_id = $2 AND provider_id = $3 ORDER BY raw_id LIMIT $4
            """, scoped(scope) + [.text(providerId), .int(limit)]
        ).asyncCompactMap { try await user(scope, localId: $0) }
    }

    func users(_ scope: Scope, providerEmail: String) async throws -> [UserRecord] {
        try await session.values(
            String.self,
            """
            SELECT DISTINCT local_id FROM federated_ids WHERE project_id = $1 AND tenant_id = $2 AND email = $3
            ORDER BY local_id
            """, scoped(scope) + [.text(providerEmail.lowercased())]
        ).asyncCompactMap { try await user(scope, localId: $0) }
    }

    func user(_ scope: Scope, passkeyCredentialId: String) async throws -> UserRecord? {
        try await user(scope, providerId: UserRecord.passkeyProvider, rawId: passkeyCredentialId)
    }

    /// One statement replaces the user and clears its links (a round trip each costs more than the
    /// work); the links it has now are inserted after.
    func save(_ scope: Scope, _ user: UserRecord) async throws {
        savedAccounts += 1
        let data = try user.checkedStoredData()
        try await session.execute(
            """
            WITH cleared AS (
                DELETE FROM federated_ids WHERE project_id = $1 AND tenant_id = $2 AND local_id = $3)
            INSERT INTO users (project_id, tenant_id, local_id, email, phone_number, data, last_login_at,
                last_refresh_at, display_name)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (project_id, tenant_id, local_id) DO UPDATE SET email = EXCLUDED.email,
                phone_number = EXCLUDED.phone_number, data = EXCLUDED.data, last_login_at = EXCLUDED.last_login_at,
                last_refresh_at = EXCLUDED.last_refresh_at, display_name = EXCLUDED.display_name
            """,
            scoped(scope) + [
                .text(user.localId), .text(user.email?.lowercased()), .text(user.phoneNumber),
                .bytes(data), .text(user.lastLoginAt), .text(user.lastRefreshAt),
                .text(user.displayName?.lowercased()),
            ])
        // `storedValue` round-trips: these bytes decode to exactly `user`.
        session.userCache.store(
            key: StoredRecordCache<UserRecord>.userKey(scope, user.localId), data: data, record: user)
        for link in user.indexedIdentities {
            try await session.execute(
                """
                INSERT INTO federated_ids (project_id, tenant_id, provider_id, raw_id, local_id, email)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (project_id, tenant_id, provider_id, raw_id) DO UPDATE
                    SET local_id = EXCLUDED.local_id, email = EXCLUDED.email
                """,
                scoped(scope) + [.text(link.providerId), .text(link.rawId), .text(user.localId), .text(link.email)])
        }
    }

    static let saveSessionTimesSQL = """
        UPDATE users SET last_login_at = $4, last_refresh_at = $5
        WHERE project_id = $1 AND tenant_id = $2 AND local_id = $3
        """

    func saveSessionTimes(_ scope: Scope, _ user: UserRecord) async throws {
        let binds = scoped(scope) + [.text(user.localId), .text(user.lastLoginAt), .text(user.lastRefreshAt)]
        if deferredSessionTimes != nil {
            deferredSessionTimes?.append(binds)
        } else {
            try await session.execute(Self.saveSessionTimesSQL, binds)
        }
    }

    func deleteUser(_ scope: Scope, localId: String) async throws -> Bool {
        let binds = scoped(scope) + [.text(localId)]
        try await session.execute(
            "DELETE FROM federated_ids WHERE project_id = $1 AND tenant_id = $2 AND local_id = $3", binds)
        return try await session.execute(
            "DELETE FROM users WHERE project_id = $1 AND tenant_id = $2 AND local_id = $3", binds)
            > 0
    }

    func deleteAllUsers(_ scope: Scope) async throws {
        try await session.execute("DELETE FROM federated_ids WHERE project_id = $1 AND tenant_id = $2", scoped(scope))
        try await session.execute("DELETE FROM users WHERE project_id = $1 AND tenant_id = $2", scoped(scope))
    }

    func listUsers(_ scope: Scope, after: String?, limit: Int?, descending: Bool) async throws -> [UserRecord] {
        var sql = "SELECT \(Self.userColumns) FROM users WHERE project_id = $1 AND tenant_id = $2"
        var binds = scoped(scope)
        if let after {
            binds.append(.text(after))
            sql += descending ? " AND local_id < $\(binds.count)" : " AND local_id > $\(binds.count)"
        }
        sql += descending ? " ORDER BY local_id DESC" : " ORDER BY local_id"
        if let limit {
            binds.append(.int(limit))
            sql += " LIMIT $\(binds.count)"
        }
        return try await users(scope, sql, binds)
    }

    func countUsers(_ scope: Scope) async throws -> Int {
        Int(
            try await session.value(
                Int64.self, "SELECT COUNT(*) FROM users WHERE project_id = $1 AND tenant_id = $2", scoped(scope))
                ?? 0)
    }

    func countAllUsers() async throws -> Int {
        Int(try await session.value(Int64.self, "SELECT COUNT(*) FROM users") ?? 0)
    }

    func tenantsWithUsers(projectId: String) async throws -> [String?] {
        try await session.values(
            String.self, "SELECT DISTINCT tenant_id FROM users WHERE project_id = $1 ORDER BY tenant_id",
            [.text(projectId)]
        ).map { $0.isEmpty ? nil : $0 }
    }
}
