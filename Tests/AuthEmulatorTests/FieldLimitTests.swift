import AuthEmulator
import Foundation
import Testing

/// `FieldLimits`, enforced where records are stored: every path that could store more gets the
/// field's error, and nothing is stored.
@Suite("Field limits")
struct FieldLimitTests {
    static let v2Config = "/identitytoolkit.googleapis.com/v2/projects/example/config"

    @Test("sign-up: a display name of 2,048 bytes is kept, one byte more is INVALID_DISPLAY_NAME and no account")
    func displayName() async throws {
        try await Harness().run { client in
            let fits = try await client.v1(
                "accounts:signUp",
                [
                    "email": "a@example.com", "password": "secret123",
                    "displayName": .string(String(repeating: "é", count: 1_024)),
                ])
            #expect(fits.status == 200)
            let over = try await client.v1(
                "accounts:signUp",
                [
                    "email": "b@example.com", "password": "secret123",
                    "displayName": .string(String(repeating: "x", count: 2_049)),
                ])
            #expect(over.status == 400)
            #expect(over.errorMessage == "INVALID_DISPLAY_NAME : ((A display name has at most 2048 bytes.))")
            let missing = try await client.v1(
                "accounts:signInWithPassword", ["email": "b@example.com", "password": "secret123"])
            #expect(missing.errorMessage == "EMAIL_NOT_FOUND")
        }
    }

    @Test("update: a photo URL over 8 KiB and a 129-character uid are refused; the account is unchanged")
    func photoAndUid() async throws {
        try await Harness().run { client in
            let user = try await client.signUp("p@example.com").ok()
            let photo = try await client.v1(
                "accounts:update",
                [
                    "idToken": .string(user.string("idToken")),
                    "photoUrl": .string("https://x/" + String(repeating: "p", count: 8_183)),
                ])
            #expect(
                photo.status == 400
                    && photo.errorMessage == "INVALID_PHOTO_URL : ((A photo URL has at most 8192 bytes.))")
            let lookup = try await client.v1("accounts:lookup", ["idToken": .string(user.string("idToken"))])
            #expect(lookup["users"]?.arrayValue?[0]["photoUrl"] == nil)
            let uid = try await client.v1(
                "projects/example/accounts", ["localId": .string(String(repeating: "u", count: 129))], admin: true)
            #expect(uid.status == 400 && uid.errorMessage == "INVALID_LOCAL_ID : ((A uid has at most 128 characters.))")
        }
    }

    static func factors(_ count: Int) -> JSONValue {
        .array((0..<count).map { .object(["phoneInfo": .string("+1555555\(String(format: "%04d", $0))")]) })
    }

    @Test(
        "the admin path: 101 second factors are SECOND_FACTOR_LIMIT_EXCEEDED, 100 are kept where the project allows 100"
    )
    func enrollments() async throws {
        try await Harness().run { client in
            let allow = try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings",
                #"{"emulatorSettings":{"mfaMaxEnrolledFactors":100}}"#, admin: true)
            #expect(allow.status == 200)
            let user = try await client.signUp("m@example.com").ok()
            let localId = JSONValue.string(user.string("localId"))
            let over = try await client.v1(
                "projects/example/accounts:update", ["localId": localId, "mfa": ["enrollments": Self.factors(101)]],
                admin: true)
            #expect(over.status == 400)
            #expect(
                over.errorMessage
                    == "SECOND_FACTOR_LIMIT_EXCEEDED : ((An account has at most 100 second factors here (mfaMaxEnrolledFactors).))"
            )
            let fits = try await client.v1(
                "projects/example/accounts:update", ["localId": localId, "mfa": ["enrollments": Self.factors(100)]],
                admin: true)
            #expect(fits.status == 200)
        }
    }

    @Test("the admin paths hold factors to mfaMaxEnrolledFactors (5 by default): create, update and import")
    func enrollmentsByDefault() async throws {
        let refusal =
            "SECOND_FACTOR_LIMIT_EXCEEDED : ((An account has at most 5 second factors here (mfaMaxEnrolledFactors).))"
        try await Harness().run { client in
            let created = try await client.v1(
                "projects/example/accounts", ["localId": "six", "mfaInfo": Self.factors(6)], admin: true)
            #expect(created.status == 400 && created.errorMessage == refusal)
            let five = try await client.v1(
                "projects/example/accounts", ["localId": "five", "mfaInfo": Self.factors(5)], admin: true)
            #expect(five.status == 200)
            let updated = try await client.v1(
                "projects/example/accounts:update", ["localId": "five", "mfa": ["enrollments": Self.factors(6)]],
                admin: true)
            #expect(updated.status == 400 && updated.errorMessage == refusal)
            let imported = try await client.v1(
                "projects/example/accounts:batchCreate",
                [
                    "users": [
                        [
                            "localId": "i6", "email": "i6@example.com", "emailVerified": true,
                            "mfaInfo": Self.factors(6),
                        ],
                        [
                            "localId": "i5", "email": "i5@example.com", "emailVerified": true,
                            "mfaInfo": Self.factors(5),
                        ],
                    ]
                ],
                admin: true)
            #expect(imported["error"] == .array([["index": 0, "message": .string(refusal)]]))
            let users = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:batchGet", admin: true)
            #expect(users["users"]?.arrayValue?.map { $0["localId"]?.stringValue } == ["five", "i5"])
            #expect(users["users"]?.arrayValue?.map { $0["mfaInfo"]?.arrayValue?.count } == [5, 5])
        }
    }

    @Test("an IdP's claims are stored within the limits too: a 3,000-byte name is refused, no account made")
    func idpClaims() async throws {
        try await Harness().run { client in
            let name = String(repeating: "n", count: 3_000)
            let claims = #"{"sub":"big-1","name":"\#(name)"}"#
            let answer = try await client.v1(
                "accounts:signInWithIdp",
                [
                    "requestUri": "http://localhost", "returnSecureToken": true,
                    "postBody": .string("providerId=google.com&id_token=" + claims),
                ])
            #expect(answer.status == 400)
            #expect(answer.errorMessage == "INVALID_DISPLAY_NAME : ((A display name has at most 2048 bytes.))")
            let count = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:batchGet", admin: true)
            #expect(count["users"] == nil)
        }
    }

    @Test("batchCreate: a user over a limit is that user's error; the others are stored")
    func batchCreate() async throws {
        try await Harness().run { client in
            let answer = try await client.v1(
                "projects/example/accounts:batchCreate",
                [
                    "users": [
                        ["localId": "fine", "displayName": "Ada"],
                        ["localId": "long", "displayName": .string(String(repeating: "d", count: 2_049))],
                    ]
                ],
                admin: true)
            #expect(answer.status == 200)
            #expect(
                answer["error"]
                    == .array([
                        [
                            "index": 1,
                            "message": "INVALID_DISPLAY_NAME : ((A display name has at most 2048 bytes.))",
                        ]
                    ]))
            let users = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:batchGet", admin: true)
            #expect(users["users"]?.arrayValue?.map { $0["localId"]?.stringValue } == ["fine"])
        }
    }

    @Test("a project config over 256 KiB (16,000 authorized domains) is INVALID_CONFIG and not stored")
    func configSize() async throws {
        try await Harness(maxBodyBytes: 1 << 20).run { client in
            let domains = (0..<16_000).map { #""d\#($0).example.com""# }.joined(separator: ",")
            let answer = try await client.call(
                .patch, Self.v2Config + "?updateMask=authorizedDomains", #"{"authorizedDomains":[\#(domains)]}"#,
                admin: true)
            #expect(answer.status == 400)
            #expect(answer.errorMessage == "INVALID_CONFIG : ((The configuration would take more than 256 KiB.))")
            let config = try await client.call(.get, Self.v2Config, admin: true)
            #expect(config["authorizedDomains"]?.arrayValue?.count ?? 0 < 16_000)
        }
    }
}
