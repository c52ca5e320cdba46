import AuthEmulator
import Foundation

/// The RS256 signing key of `token_signing: rs256`.
extension PostgresTransaction {
    func signingKey() async throws -> StoredSigningKey? {
        try await session.values(Data.self, "SELECT data FROM signing_keys ORDER BY created_at DESC, kid LIMIT 1").first
            .map { try decode(StoredSigningKey.self, $0) }
    }

    func saveSigningKey(_ key: StoredSigningKey) async throws {
        try await session.execute(
            """
            INSERT INTO signing_keys (kid, created_at, data) VALUES ($1, $2, $3)
            ON CONFLICT (kid) DO UPDATE SET created_at = EXCLUDED.created_at, data = EXCLUDED.data
            """, [.text(key.kid), .int(key.createdAt), encode(key)])
    }
}

/// The secret refresh tokens and MFA pending credentials are sealed with (`TokenSeal`).
extension PostgresTransaction {
    func tokenSecret() async throws -> Data? {
        try await session.values(Data.self, "SELECT secret FROM token_secret WHERE id = 1").first
    }

    func saveTokenSecret(_ secret: Data) async throws {
        try await session.execute(
            "INSERT INTO token_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING", [.bytes(secret)])
    }
}
