import AuthEmulator
import Foundation

/// The versioned schema on PostgreSQL, in its own schema (`?schema=`, default `authemu`). Add
/// migrations at the end; never edit a shipped one. Text keys sort bytewise (`COLLATE "C"`), as in
/// SQLite, so listings page in the same order on both stores.
enum PostgresSchema {
    static let migrations: [(identifier: String, sql: String)] = [
        ("pg1-initial", initial),
        ("pg2-email-lookups-in-uid-order", emailLookupsInUidOrder),
        ("pg3-clock-freeze", "ALTER TABLE clock_offset ADD COLUMN frozen_at DOUBLE PRECISION"),
        ("pg4-sms-status-index", smsStatusIndex),
        ("pg5-listing-entries", listingEntries),
        ("pg6-deleted-tenants", deletedTenants),
        // The secret refresh tokens and MFA pending credentials are sealed with (`TokenSeal`).
        (
            "pg7-token-secret",
            "CREATE TABLE token_secret (id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL)"
        ),
    ]

    /// A tenant deleted through the API is not found until it is created again (production); one
    /// never created is still made on first use (firebase-tools).
    private static let deletedTenants = """
        CREATE TABLE deleted_tenants (
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (project_id, tenant_id)
        )
        """

    /// The code log's listings read entries kept ready as each message or code is written
    /// (`JSONListing`), joined by the server; rows written before this migration have none and
    /// are encoded on read. The pending codes come from a partial index in id order.
    private static let listingEntries = """
        ALTER TABLE sms_messages ADD COLUMN listing BYTEA, ADD COLUMN code_listing BYTEA,
            ADD COLUMN expires_at DOUBLE PRECISION;
        ALTER TABLE oob_codes ADD COLUMN listing BYTEA;
        CREATE INDEX sms_messages_pending_codes ON sms_messages (project_id, tenant_id, id)
            INCLUDE (expires_at, code_listing) WHERE status = 'PENDING'
        """

    /// A phone's pending codes are found in the index, not by reading every code it was ever sent.
    private static let smsStatusIndex = """
        CREATE INDEX sms_messages_scope_status ON sms_messages (project_id, tenant_id, phone_number, purpose, status, id);
        DROP INDEX sms_messages_scope
        """

    /// Email lookups answer in localId order: with the order in the index, the planner never
    /// walks every user of a scope through the primary key instead (it did on a table grown
    /// since its last ANALYZE: 1.8 ms a sign-in at 5,000 users).
    private static let emailLookupsInUidOrder = """
        CREATE INDEX users_email_uid ON users (project_id, tenant_id, email, local_id) WHERE email IS NOT NULL;
        DROP INDEX users_email;
        CREATE INDEX federated_ids_email_uid ON federated_ids (project_id, tenant_id, email, local_id)
            WHERE email IS NOT NULL;
        DROP INDEX federated_ids_email
        """

    private static let initial = """
        CREATE TABLE users (
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            local_id TEXT COLLATE "C" NOT NULL,
            email TEXT COLLATE "C",
            phone_number TEXT COLLATE "C",
            display_name TEXT COLLATE "C",
            data BYTEA NOT NULL,
            last_login_at TEXT,
            last_refresh_at TEXT,
            PRIMARY KEY (project_id, tenant_id, local_id)
        );
        CREATE INDEX users_email ON users (project_id, tenant_id, email) WHERE email IS NOT NULL;
        CREATE INDEX users_phone ON users (project_id, tenant_id, phone_number) WHERE phone_number IS NOT NULL;
        CREATE INDEX users_display_name ON users (project_id, tenant_id, display_name)
            WHERE display_name IS NOT NULL;
        CREATE TABLE federated_ids (
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            provider_id TEXT COLLATE "C" NOT NULL,
            raw_id TEXT COLLATE "C" NOT NULL,
            local_id TEXT COLLATE "C" NOT NULL,
            email TEXT COLLATE "C",
            PRIMARY KEY (project_id, tenant_id, provider_id, raw_id)
        );
        CREATE INDEX federated_ids_user ON federated_ids (project_id, tenant_id, local_id);
        CREATE INDEX federated_ids_email ON federated_ids (project_id, tenant_id, email) WHERE email IS NOT NULL;
        CREATE TABLE tenants (
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            data BYTEA NOT NULL,
            PRIMARY KEY (project_id, tenant_id)
        );
        CREATE TABLE project_configs (project_id TEXT COLLATE "C" NOT NULL PRIMARY KEY, data BYTEA NOT NULL);
        CREATE TABLE oob_codes (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            oob_code TEXT COLLATE "C" NOT NULL UNIQUE,
            data BYTEA NOT NULL
        );
        CREATE INDEX oob_codes_scope ON oob_codes (project_id, tenant_id, seq);
        CREATE TABLE idp_configs (
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            data BYTEA NOT NULL,
            PRIMARY KEY (project_id, tenant_id, kind, id)
        );
        CREATE TABLE sms_messages (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            session_info TEXT COLLATE "C" NOT NULL UNIQUE,
            phone_number TEXT COLLATE "C" NOT NULL,
            purpose TEXT NOT NULL,
            status TEXT NOT NULL,
            client_ip TEXT,
            sent_at DOUBLE PRECISION NOT NULL,
            data BYTEA NOT NULL
        );
        CREATE INDEX sms_messages_scope ON sms_messages (project_id, tenant_id, phone_number, purpose);
        CREATE INDEX sms_messages_phone_time ON sms_messages (phone_number, sent_at);
        CREATE INDEX sms_messages_ip_time ON sms_messages (client_ip, sent_at);
        CREATE TABLE temporary_proofs (proof TEXT COLLATE "C" NOT NULL PRIMARY KEY, data BYTEA NOT NULL);
        CREATE TABLE totp_sessions (session_info TEXT COLLATE "C" NOT NULL PRIMARY KEY, data BYTEA NOT NULL);
        CREATE TABLE app_credentials (token TEXT COLLATE "C" NOT NULL PRIMARY KEY, data BYTEA NOT NULL);
        CREATE TABLE apns_pushes (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            data BYTEA NOT NULL
        );
        CREATE TABLE injected_faults (
            project_id TEXT COLLATE "C" NOT NULL,
            tenant_id TEXT COLLATE "C" NOT NULL,
            fault TEXT NOT NULL,
            remaining INTEGER NOT NULL,
            PRIMARY KEY (project_id, tenant_id, fault)
        );
        CREATE TABLE signing_keys (
            kid TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            created_at BIGINT NOT NULL,
            data BYTEA NOT NULL
        );
        CREATE TABLE clock_offset (id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1), seconds DOUBLE PRECISION NOT NULL);
        """

    /// Creates the schema and applies what is missing, under a lock so that daemons starting
    /// together migrate once. A database with a migration this build does not know (written by a
    /// newer authemu) is refused and left as it is.
    static func migrate(_ session: PostgresSession, schema: String) async throws {
        try await session.execute("BEGIN")
        do {
            try await session.execute(
                "SELECT pg_advisory_xact_lock(hashtext($1))", [.text("authemu-migrate:\(schema)")])
            try await session.execute("CREATE SCHEMA IF NOT EXISTS \(schema)")
            try await session.execute(
                """
                CREATE TABLE IF NOT EXISTS \(schema).authemu_migrations (
                    identifier TEXT NOT NULL PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """)
            let applied = Set(
                try await session.values(String.self, "SELECT identifier FROM \(schema).authemu_migrations"))
            let known = Set(migrations.map(\.identifier))
            if let unknown = applied.subtracting(known).sorted().first {
                throw StoreOpenError(
                    "schema \(schema) was written by a newer authemu (migration \"\(unknown)\"); upgrade authemu or use another ?schema="
                )
            }
            try await session.execute("SET LOCAL search_path TO \(schema)")
            for migration in migrations where !applied.contains(migration.identifier) {
                // One statement per query (the extended protocol takes no scripts).
                let statements = migration.sql.components(separatedBy: ";\n").map {
                    $0.trimmingCharacters(in: CharacterSet(charactersIn: "; \n"))
                }
                for statement in statements where !statement.isEmpty { try await session.execute(statement) }
                try await session.execute(
                    "INSERT INTO authemu_migrations (identifier) VALUES ($1)", [.text(migration.identifier)])
            }
            try await session.execute("COMMIT")
        } catch {
            await session.rollback()
            throw error
        }
    }
}
