import CryptoExtras
import Foundation
import JWTKit
import X509

/// How ID tokens and session cookies are signed: unsigned (`alg: none`, as firebase-tools; what the
/// Admin SDKs accept in emulator mode) or RS256 with the daemon's own key, for verifiers that check
/// signatures against a JWKS or X.509 certificate URL.
public enum TokenSigning: String, Sendable, CaseIterable {
    case none
    case rs256
}

/// The RSA key RS256 tokens are signed with and its self-signed certificate, kept in the store so
/// tokens stay verifiable across restarts.
public struct StoredSigningKey: Codable, Sendable, Equatable {
    public var kid: String
    public var privateKeyPEM: String
    public var certificatePEM: String
    public var createdAt: Int64

    /// A new 2048-bit key (what Google's securetoken keys are) with a ten-year certificate.
    static func generate(kid: String, now: Date) throws -> StoredSigningKey {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let name = try DistinguishedName { CommonName("securetoken.system.gserviceaccount.com") }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(3_650 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions(), issuerPrivateKey: Certificate.PrivateKey(key))
        return StoredSigningKey(
            kid: kid, privateKeyPEM: key.pemRepresentation, certificatePEM: try certificate.serializeAsPEM().pemString,
            createdAt: now.epochSeconds)
    }

    /// The public key as a JWK (`kty`, `alg`, `use`, `kid`, `n`, `e`), as Google's JWKS lists it.
    func jwk() throws -> JSONValue {
        let (modulus, exponent) = try Insecure.RSA.PrivateKey(pem: privateKeyPEM).publicKey.getKeyPrimitives()
        return .object([
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": .string(kid),
            "n": .string(Base64.url(modulus)), "e": .string(Base64.url(exponent)),
        ])
    }
}

/// Where the signing key lives.
public protocol SigningKeyRepository {
    func signingKey() async throws -> StoredSigningKey?
    func saveSigningKey(_ key: StoredSigningKey) async throws
}

/// The key tokens are signed with right now (nil: unsigned), and what verifies them.
final class SigningState: @unchecked Sendable {
    private let lock = NSLock()
    private var current: StoredSigningKey?
    private var currentVerifier: SigningVerifier?

    var key: StoredSigningKey? { lock.withLock { current } }
    var kid: JWKIdentifier? { key.map { JWKIdentifier(string: $0.kid) } }
    /// Set while tokens are signed: every ID token received must verify with it.
    var verifier: SigningVerifier? { lock.withLock { currentVerifier } }

    func use(_ key: StoredSigningKey, verifier: SigningVerifier) {
        lock.withLock {
            current = key
            currentVerifier = verifier
        }
    }
}

/// The public half of the signing key, and its `kid`.
struct SigningVerifier: @unchecked Sendable {
    let kid: String
    let publicKey: _RSA.Signing.PublicKey
}

extension TokenService {
    /// Signs ID tokens and session cookies with `stored` from now on.
    func useSigningKey(_ stored: StoredSigningKey) async throws {
        let key = try Insecure.RSA.PrivateKey(pem: stored.privateKeyPEM)
        await keys.add(
            rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: stored.kid), parser: Self.parser,
            serializer: DefaultJWTSerializer(jsonEncoder: ClaimsEncoder()))
        let verifier = SigningVerifier(
            kid: stored.kid, publicKey: try _RSA.Signing.PrivateKey(pemRepresentation: stored.privateKeyPEM).publicKey)
        signing.use(stored, verifier: verifier)
    }

    /// The signing key in use, if tokens are signed.
    public var signingKey: StoredSigningKey? { signing.key }
}

extension Emulator {
    /// Signs tokens with the store's RS256 key, making and storing one the first time.
    public func enableSignedTokens() async throws {
        let existing = try await store.read { tx in try await tx.signingKey() }
        var key = existing
        if key == nil {
            let fresh = try StoredSigningKey.generate(
                kid: random.bytes(20).map { String(format: "%02x", $0) }.joined(), now: clock.now())
            key = try await store.write { tx in
                if let stored = try await tx.signingKey() { return stored }
                try await tx.saveSigningKey(fresh)
                return fresh
            }
            logger.info("made an RS256 token signing key, kid \(fresh.kid)", metadata: ["event": "signingKey"])
        }
        try await tokens.useSigningKey(key!)
    }

    /// `{"keys":[…]}`, the JWKS of the signing key (empty when tokens are unsigned).
    public func signingJWKS() throws -> JSONValue {
        .object(["keys": .array(try tokens.signingKey.map { [try $0.jwk()] } ?? [])])
    }

    /// `{kid: certificate PEM}`, as Google's X.509 key URLs answer (empty when tokens are unsigned).
    public func signingCertificates() -> JSONValue {
        .object(tokens.signingKey.map { [$0.kid: .string($0.certificatePEM)] } ?? [:])
    }
}
