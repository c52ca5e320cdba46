import AuthEmulator
import Foundation
import GRDB

/// The RS256 signing key of `token_signing: rs256`.
extension SQLiteTransaction {
    func signingKey() throws -> StoredSigningKey? {
        try Data.fetchOne(
            cached: db, sql: "SELECT data FROM signing_keys ORDER BY created_at DESC, kid LIMIT 1", arguments: []
        )
        .map { try JSONDecoder().decode(StoredSigningKey.self, from: $0) }
    }

    func saveSigningKey(_ key: StoredSigningKey) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO signing_keys (kid, created_at, data) VALUES (?, ?, ?)",
            arguments: [key.kid, key.createdAt, JSONEncoder().encode(key)])
    }
}

/// The secret refresh tokens and MFA pending credentials are sealed with (`TokenSeal`).
extension SQLiteTransaction {
    func tokenSecret() throws -> Data? {
        try Data.fetchOne(cached: db, sql: "SELECT secret FROM token_secret WHERE id = 1", arguments: [])
    }

    func saveTokenSecret(_ secret: Data) throws {
        try execute(sql: "INSERT OR IGNORE INTO token_secret (id, secret) VALUES (1, ?)", arguments: [secret])
    }
}
