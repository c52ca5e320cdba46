import GRDB

/// Versioned schema. Add migrations at the end; never edit a shipped one.
enum Schema {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        local_id TEXT NOT NULL,
                        email TEXT,
                        phone_number TEXT,
                        data BLOB NOT NULL,
                        PRIMARY KEY (project_id, tenant_id, local_id)
                    );
                    CREATE INDEX users_email ON users(project_id, tenant_id, email);
                    CREATE INDEX users_phone ON users(project_id, tenant_id, phone_number);
                    CREATE TABLE federated_ids (
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        provider_id TEXT NOT NULL,
                        raw_id TEXT NOT NULL,
                        local_id TEXT NOT NULL,
                        PRIMARY KEY (project_id, tenant_id, provider_id, raw_id)
                    );
                    CREATE INDEX federated_ids_user ON federated_ids(project_id, tenant_id, local_id);
                    CREATE TABLE tenants (
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        data BLOB NOT NULL,
                        PRIMARY KEY (project_id, tenant_id)
                    );
                    CREATE TABLE project_configs (
                        project_id TEXT NOT NULL PRIMARY KEY,
                        data BLOB NOT NULL
                    );
                    CREATE TABLE oob_codes (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        oob_code TEXT NOT NULL UNIQUE,
                        data BLOB NOT NULL
                    );
                    CREATE TABLE idp_configs (
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        id TEXT NOT NULL,
                        data BLOB NOT NULL,
                        PRIMARY KEY (project_id, tenant_id, kind, id)
                    );
                    """)
        }
        migrator.registerMigration("v2-sms-outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sms_messages (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        session_info TEXT NOT NULL UNIQUE,
                        phone_number TEXT NOT NULL,
                        purpose TEXT NOT NULL,
                        status TEXT NOT NULL,
                        client_ip TEXT,
                        sent_at REAL NOT NULL,
                        data BLOB NOT NULL
                    );
                    CREATE INDEX sms_messages_scope ON sms_messages(project_id, tenant_id, phone_number, purpose);
                    CREATE INDEX sms_messages_phone_time ON sms_messages(phone_number, sent_at);
                    CREATE INDEX sms_messages_ip_time ON sms_messages(client_ip, sent_at);
                    CREATE TABLE temporary_proofs (
                        proof TEXT NOT NULL PRIMARY KEY,
                        data BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v3-totp-sessions") { db in
            try db.execute(
                sql: "CREATE TABLE totp_sessions (session_info TEXT NOT NULL PRIMARY KEY, data BLOB NOT NULL)")
        }
        migrator.registerMigration("v4-app-verification") { db in
            try db.execute(
                sql: """
                    CREATE TABLE app_credentials (token TEXT NOT NULL PRIMARY KEY, data BLOB NOT NULL);
                    CREATE TABLE apns_pushes (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        data BLOB NOT NULL
                    );
                    CREATE TABLE injected_faults (
                        project_id TEXT NOT NULL,
                        tenant_id TEXT NOT NULL,
                        fault TEXT NOT NULL,
                        remaining INTEGER NOT NULL,
                        PRIMARY KEY (project_id, tenant_id, fault)
                    );
                    """)
        }
        // The two fields every sign-in and refresh changes, in columns of their own: stamping them
        // no longer rewrites the record's JSON (rows from v4 keep their values in `data`).
        migrator.registerMigration("v5-session-times") { db in
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN last_login_at TEXT;
                    ALTER TABLE users ADD COLUMN last_refresh_at TEXT;
                    """)
        }
        // Email-only users have no phone number and phone-only users no email: those rows no longer
        // get an index entry (all of them went to one hot leaf page, rewritten into the WAL on every
        // sign-up). Lookups (`email = ?`, `phone_number = ?`) imply NOT NULL, so they use these.
        migrator.registerMigration("v6-partial-contact-indexes") { db in
            try db.execute(
                sql: """
                    DROP INDEX users_email;
                    CREATE INDEX users_email ON users(project_id, tenant_id, email) WHERE email IS NOT NULL;
                    DROP INDEX users_phone;
                    CREATE INDEX users_phone ON users(project_id, tenant_id, phone_number)
                        WHERE phone_number IS NOT NULL;
                    """)
        }
        // IdP emails (`providerUserInfo[].email`) indexed, for createAuthUri's sign-in methods of an
        // address that is only a linked provider's. Existing links get theirs from the stored record.
        migrator.registerMigration("v7-provider-emails") { db in
            try db.execute(
                sql: """
                    ALTER TABLE federated_ids ADD COLUMN email TEXT;
                    UPDATE federated_ids SET email = (
                        SELECT lower(json_extract(p.value, '$.email'))
                        FROM users u, json_each(CAST(u.data AS TEXT), '$.providerUserInfo') p
                        WHERE u.project_id = federated_ids.project_id AND u.tenant_id = federated_ids.tenant_id
                            AND u.local_id = federated_ids.local_id
                            AND json_extract(p.value, '$.providerId') = federated_ids.provider_id
                            AND json_extract(p.value, '$.rawId') = federated_ids.raw_id
                        LIMIT 1)
                    WHERE provider_id != '#passkey';
                    CREATE INDEX federated_ids_email ON federated_ids(project_id, tenant_id, email)
                        WHERE email IS NOT NULL;
                    """)
        }
        // The RS256 key of `token_signing: rs256`, so signed tokens verify across restarts.
        migrator.registerMigration("v8-signing-keys") { db in
            try db.execute(
                sql: """
                    CREATE TABLE signing_keys (
                        kid TEXT NOT NULL PRIMARY KEY,
                        created_at INTEGER NOT NULL,
                        data BLOB NOT NULL
                    )
                    """)
        }
        // The offset of the emulator's movable clock, so a moved clock survives a restart.
        migrator.registerMigration("v9-clock-offset") { db in
            try db.execute(
                sql: """
                    CREATE TABLE clock_offset (
                        id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
                        seconds REAL NOT NULL
                    )
                    """)
        }
        // Display names, lower-cased and indexed (users without one get no entry), for the
        // inspector's prefix search at a million accounts. Existing users get theirs from the record.
        migrator.registerMigration("v10-display-names") { db in
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN display_name TEXT;
                    UPDATE users SET display_name = lower(json_extract(CAST(data AS TEXT), '$.displayName'))
                        WHERE json_extract(CAST(data AS TEXT), '$.displayName') IS NOT NULL;
                    CREATE INDEX users_display_name ON users(project_id, tenant_id, display_name)
                        WHERE display_name IS NOT NULL;
                    """)
        }
        // The instant a frozen clock stands at (`clock:set` with `freeze`); NULL while it runs.
        migrator.registerMigration("v11-clock-freeze") { db in
            try db.execute(sql: "ALTER TABLE clock_offset ADD COLUMN frozen_at REAL")
        }
        // A phone's pending codes are found in the index: the status was read from each row of
        // every code the number was ever sent, so an SMS MFA sign-in grew slower with each one.
        migrator.registerMigration("v12-sms-status-index") { db in
            try db.execute(
                sql: """
                    CREATE INDEX sms_messages_scope_status
                        ON sms_messages(project_id, tenant_id, phone_number, purpose, status);
                    DROP INDEX sms_messages_scope;
                    """)
        }
        // The code log's listings read entries kept ready as each message or code is written
        // (`JSONListing`), joined by SQLite itself; rows written before this migration have none
        // and are encoded on read. The pending codes and a scope's email codes are read from
        // covering indexes alone, in order (the email codes were a scan of every project's). The
        // partial index holds `status` too: without it SQLite 3.40 reads each row to check it.
        migrator.registerMigration("v13-listing-entries") { db in
            try db.execute(
                sql: """
                    ALTER TABLE sms_messages ADD COLUMN listing BLOB;
                    ALTER TABLE sms_messages ADD COLUMN code_listing BLOB;
                    ALTER TABLE sms_messages ADD COLUMN expires_at REAL;
                    ALTER TABLE oob_codes ADD COLUMN listing BLOB;
                    CREATE INDEX sms_messages_pending_codes
                        ON sms_messages(project_id, tenant_id, id, status, expires_at, code_listing)
                        WHERE status = 'PENDING';
                    CREATE INDEX oob_codes_listing ON oob_codes(project_id, tenant_id, seq, listing);
                    """)
        }
        // A tenant deleted through the API is not found until it is created again (production);
        // one never created is still made on first use (firebase-tools).
        migrator.registerMigration("v14-deleted-tenants") { db in
            try db.execute(
                sql: """
                    CREATE TABLE deleted_tenants (
                        project_id TEXT NOT NULL, tenant_id TEXT NOT NULL, PRIMARY KEY (project_id, tenant_id)
                    ) WITHOUT ROWID
                    """)
        }
        // The secret refresh tokens and MFA pending credentials are sealed with (`TokenSeal`), so
        // sessions outlive a restart.
        migrator.registerMigration("v15-token-secret") { db in
            try db.execute(
                sql: "CREATE TABLE token_secret (id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL)")
        }
        return migrator
    }()
}
