import Crypto
import Foundation

/// The daemon's secret for what it alone issues and must know again: refresh tokens and MFA
/// pending credentials carry `seal`, an HMAC-SHA256 of their content under it, so one the daemon
/// did not issue, or one edited since, is refused in every signing mode (a forged refresh token
/// would otherwise mint a properly signed ID token with the forger's claims). The secret lives in
/// the store (`TokenSecretRepository`): sessions outlive a restart, and daemons sharing a
/// PostgreSQL database accept each other's. Until `Emulator.loadTokenSecret` runs, a random one
/// of this process is used.
public final class TokenSeal: @unchecked Sendable {
    private let lock = NSLock()
    private var key = SymmetricKey(size: .bits256)

    public init() {}

    /// Seals with `secret` from now on.
    func use(_ secret: Data) { lock.withLock { key = SymmetricKey(data: secret) } }

    /// The seal of `content`: base64url of its HMAC-SHA256.
    func seal(_ content: [UInt8]) -> String {
        let key = lock.withLock { self.key }
        return Base64.url(Data(HMAC<SHA256>.authenticationCode(for: content, using: key)))
    }

    /// Whether `seal` is the seal of `content` (compared in constant time).
    func isValid(_ seal: String, for content: [UInt8]) -> Bool {
        guard let code = Base64.decodeAny(seal) else { return false }
        let key = lock.withLock { self.key }
        return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: content, using: key)
    }
}

/// Where the token secret lives: one row, made once.
public protocol TokenSecretRepository {
    func tokenSecret() async throws -> Data?
    /// Stores `secret` unless one is stored already.
    func saveTokenSecret(_ secret: Data) async throws
}

extension Emulator {
    /// Seals refresh tokens and MFA pending credentials with the store's secret, making and storing
    /// one the first time (daemons starting together on one database agree on the first stored).
    public func loadTokenSecret() async throws {
        var secret = try await store.read { tx in try await tx.tokenSecret() }
        if secret == nil {
            let fresh = Data(random.bytes(32))
            secret = try await store.write { tx in
                if let stored = try await tx.tokenSecret() { return stored }
                try await tx.saveTokenSecret(fresh)
                return fresh
            }
        }
        tokens.seal.use(secret!)
    }
}
