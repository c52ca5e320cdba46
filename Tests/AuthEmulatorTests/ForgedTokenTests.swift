import Foundation
import Testing

@testable import AuthEmulator

/// Tokens are checked where they are signed (issue 53): with RS256 ID tokens, an edited, re-signed
/// by someone else, unsigned or foreign-issued ID token is `INVALID_ID_TOKEN` on every route that
/// takes one; a refresh token or MFA pending credential the daemon did not issue is refused in
/// every signing mode.
@Suite("Forged and edited tokens")
struct ForgedTokenTests {
    static func part(_ json: JSONValue) -> String { Base64.url(Data(json.serialized())) }

    /// The token with its payload replaced, its header and signature kept.
    static func edited(_ token: String, _ change: (inout [String: JSONValue]) -> Void) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard case .object(var claims) = token.jwtPayload else { return token }
        change(&claims)
        return [parts[0], part(.object(claims)), parts[2]].joined(separator: ".")
    }

    /// Every shape of forgery of a valid ID token.
    static func forgeries(of token: String) -> [(String, String)] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let payload = parts[1]
        let kid = ("x." + parts[0]).jwtPayload["kid"] ?? .null
        return [
            ("an edited payload", edited(token) { $0["phone_number"] = "+15555550100" }),
            ("a garbage signature", [parts[0], payload, "c2lnbmF0dXJl"].joined(separator: ".")),
            ("no signature", [parts[0], payload, ""].joined(separator: ".")),
            ("alg none", [part(["alg": "none", "typ": "JWT"]), payload, ""].joined(separator: ".")),
            (
                "alg HS256",
                [part(["alg": "HS256", "kid": kid, "typ": "JWT"]), payload, parts[2]].joined(separator: ".")
            ),
            (
                "another kid",
                [part(["alg": "RS256", "kid": "0000", "typ": "JWT"]), payload, parts[2]].joined(separator: ".")
            ),
            ("two parts", [parts[0], payload].joined(separator: ".")),
        ]
    }

    @Test("rs256: forged ID tokens are INVALID_ID_TOKEN on lookup, update and mfaEnrollment:start; the real one works")
    func forgedIdTokens() async throws {
        try await Harness().run(signedTokens: true) { client in
            try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=mfa",
                MfaRouteTests.enableTotp, admin: true
            ).ok()
            let signedUp = try await client.signUp("signed@example.com").ok()
            let idToken = signedUp.string("idToken")
            for (name, forged) in Self.forgeries(of: idToken) {
                let lookup = try await client.v1("accounts:lookup", ["idToken": .string(forged)])
                #expect(
                    lookup.status == 400 && lookup.errorMessage == "INVALID_ID_TOKEN", "lookup, \(name): \(lookup.json)"
                )
                let update = try await client.v1("accounts:update", ["idToken": .string(forged), "displayName": "x"])
                #expect(
                    update.status == 400 && update.errorMessage == "INVALID_ID_TOKEN", "update, \(name): \(update.json)"
                )
                let enroll = try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start",
                    JSONValue.object(["idToken": .string(forged), "totpEnrollmentInfo": [:]]).jsonString())
                #expect(
                    enroll.status == 400 && enroll.errorMessage == "INVALID_ID_TOKEN", "enroll, \(name): \(enroll.json)"
                )
            }
            let lookup = try await client.v1("accounts:lookup", ["idToken": .string(idToken)])
            #expect(lookup.status == 200 && lookup["users"]?.arrayValue?.count == 1, "\(lookup.json)")
        }
    }

    @Test("rs256: an ID token of another project's issuer is INVALID_ID_TOKEN")
    func foreignIssuer() async throws {
        try await Harness().run(signedTokens: true) { client in
            let idToken = try await client.signUp("iss@example.com").ok().string("idToken")
            let other = Self.edited(idToken) { $0["iss"] = "https://session.firebase.google.com/example" }
            let lookup = try await client.v1("accounts:lookup", ["idToken": .string(other)])
            #expect(lookup.status == 400 && lookup.errorMessage == "INVALID_ID_TOKEN")
        }
    }

    @Test("unsigned mode: alg none ID tokens stay accepted, as firebase-tools")
    func unsignedModeAcceptsUnsigned() async throws {
        try await Harness().run { client in
            let idToken = try await client.signUp("plain@example.com").ok().string("idToken")
            let lookup = try await client.v1("accounts:lookup", ["idToken": .string(idToken)])
            #expect(lookup.status == 200)
        }
    }

    @Test("refresh tokens the daemon did not issue, or edited ones, mint nothing in either mode")
    func forgedRefreshTokens() async throws {
        for signed in [false, true] {
            try await Harness().run(signedTokens: signed) { client in
                let signedUp = try await client.signUp("refresh@example.com").ok()
                let refresh = signedUp.string("refreshToken")
                let json = try JSONValue.parse(Data(base64Encoded: Base64.padded(refresh))!)
                guard case .object(let members) = json else { return }
                func variant(_ change: (inout [String: JSONValue]) -> Void) -> String {
                    var object = members
                    change(&object)
                    return Data(JSONValue.object(object).serialized()).base64EncodedString()
                }
                let forgeries = [
                    variant { $0["extraClaims"] = ["admin": true] },
                    variant { $0["extraClaims"] = ["phone_number": "+15555550100"] },
                    variant { $0["seal"] = nil }, variant { $0["seal"] = "AAAA" },
                    variant { $0["localId"] = "someone-else" }, variant { $0["issuedAt"] = .number(9_999_999_999) },
                ]
                for forged in forgeries {
                    let answer = try await client.call(
                        .post, "/securetoken.googleapis.com/v1/token",
                        JSONValue.object(["grant_type": "refresh_token", "refresh_token": .string(forged)]).jsonString()
                    )
                    #expect(
                        answer.status == 400 && answer.errorMessage == "INVALID_REFRESH_TOKEN",
                        "signed \(signed): \(answer.json)")
                }
                let real = try await client.call(
                    .post, "/securetoken.googleapis.com/v1/token",
                    JSONValue.object(["grant_type": "refresh_token", "refresh_token": .string(refresh)]).jsonString())
                #expect(real.status == 200)
                #expect(real["id_token"]?.stringValue?.jwtPayload["admin"] == nil)
            }
        }
    }

    @Test("a refresh token outlives a restart on the same store (the secret is stored)")
    func refreshAcrossRestart() async throws {
        let harness = try Harness()
        let box = Box()
        try await harness.run { client in
            box.value = try await client.signUp("kept@example.com").ok().string("refreshToken")
        }
        try await harness.run { client in
            let answer = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                JSONValue.object(["grant_type": "refresh_token", "refresh_token": .string(box.value)]).jsonString())
            #expect(answer.status == 200)
        }
    }
}

final class Box: @unchecked Sendable {
    var value = ""
}
