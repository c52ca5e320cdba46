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
