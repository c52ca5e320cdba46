import Foundation
import JWTKit
import Testing

@testable import AuthEmulator

/// `token_signing: rs256`: tokens signed with the stored key, verifiable with the published keys.
@Suite("Signed tokens (RS256) and their public keys")
struct TokenSigningTests {
    static let jwksPath = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
    static let certificatesPath =
        "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    static func header(_ token: String) -> JSONValue {
        ("x." + token.split(separator: ".")[0]).jwtPayload
    }

    /// Verifies `token`'s signature and returns its claims (throws if it does not verify).
    static func verified(_ token: String, with key: Insecure.RSA.PublicKey, kid: String) async throws -> JSONValue {
        let keys = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return .object(try await keys.verify(token, as: JSONClaims.self).claims)
    }

    static func publicKey(jwk: JSONValue) throws -> Insecure.RSA.PublicKey {
        try Insecure.RSA.PublicKey(modulus: jwk["n"]?.stringValue ?? "", exponent: jwk["e"]?.stringValue ?? "")
    }

    @Test("unsigned by default: alg none, and the key URLs list no keys")
    func unsignedByDefault() async throws {
        try await Harness().run { client in
            let signedUp = try await client.signUp("plain@example.com")
            #expect(Self.header(signedUp.string("idToken"))["alg"] == "none")
            #expect(try await client.call(.get, Self.jwksPath, key: false).json == .object(["keys": .array([])]))
            #expect(try await client.call(.get, Self.certificatesPath, key: false).json == .object([:]))
        }
    }

    @Test("rs256: ID tokens, refreshed tokens and session cookies verify with the JWKS and the certificate")
    func signedTokensVerify() async throws {
        let harness = try Harness()
        try await harness.run(signedTokens: true) { client in
            let signedUp = try await client.signUp("signed@example.com")
            let idToken = signedUp.string("idToken")
            let header = Self.header(idToken)
            #expect(header["alg"] == "RS256")
            let kid = try #require(header["kid"]?.stringValue)
            #expect(kid.count == 40)

            let jwks = try await client.call(.get, Self.jwksPath, key: false)
            let jwk = try #require(jwks["keys"]?.arrayValue?.first)
            #expect(jwks["keys"]?.arrayValue?.count == 1)
            #expect(jwk["kid"] == .string(kid))
            #expect(jwk["kty"] == "RSA")
            #expect(jwk["alg"] == "RS256")
            #expect(jwk["use"] == "sig")
            let fromJWK = try Self.publicKey(jwk: jwk)
            let claims = try await Self.verified(idToken, with: fromJWK, kid: kid)
            #expect(claims["user_id"] == signedUp["localId"])
            #expect(claims["iss"] == "https://securetoken.google.com/example")

            let certificates = try await client.call(.get, Self.certificatesPath, key: false)
            let pem = try #require(certificates[kid]?.stringValue)
            #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
            let fromCertificate = try Insecure.RSA.PublicKey(certificatePEM: pem)
            #expect(fromCertificate == fromJWK)

            // A changed payload no longer verifies.
            var parts = idToken.split(separator: ".").map(String.init)
            let forged = JSONValue.object(["user_id": "someone-else", "sub": "someone-else"]).jsonString()
            parts[1] = Base64.url(Data(forged.utf8))
            await #expect(throws: (any Error).self) {
                _ = try await Self.verified(parts.joined(separator: "."), with: fromJWK, kid: kid)
            }

            let refreshed = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                #"{"grant_type":"refresh_token","refresh_token":"\#(signedUp.string("refreshToken"))"}"#)
            _ = try await Self.verified(refreshed.string("id_token"), with: fromJWK, kid: kid)

            let cookie = try await client.v1(
                "projects/example:createSessionCookie", ["idToken": .string(idToken), "validDuration": "3600"],
                admin: true)
            let cookieClaims = try await Self.verified(cookie.string("sessionCookie"), with: fromJWK, kid: kid)
            #expect(cookieClaims["iss"] == "https://session.firebase.google.com/example")
            let cookieKeys = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys", key: false)
            #expect(cookieKeys.json == jwks.json)
        }
        // The key is stored: the next start signs with the same one.
        try await harness.run(signedTokens: true) { client in
            let again = try await client.signUp("again@example.com")
            let jwks = try await client.call(.get, Self.jwksPath, key: false)
            #expect(Self.header(again.string("idToken"))["kid"] == jwks["keys"]?.arrayValue?.first?["kid"])
            #expect(
                try await harness.store.read { tx in try await tx.signingKey() }?.kid
                    == jwks["keys"]?.arrayValue?.first?["kid"]?.stringValue)
        }
    }
}
