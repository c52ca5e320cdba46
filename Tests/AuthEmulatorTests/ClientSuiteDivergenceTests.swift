import AuthEmulator
import AuthEmulatorSQLite
import Foundation
import Testing

/// Answers that differed from firebase-tools' `operations.ts` (and production where known) when
/// authemu was tried with an unseen client suite (issue 22, part 6).
@Suite("divergences found by an unseen client suite")
struct ClientSuiteDivergenceTests {
    static let toolkit = "/identitytoolkit.googleapis.com"

    @Test("client signUp: idToken without email is MISSING_EMAIL, email without password MISSING_PASSWORD")
    func signUpNeedsEmailAndPassword() async throws {
        try await Harness().run { client in
            let anonymous = try await client.v1("accounts:signUp", ["returnSecureToken": true])
            #expect(anonymous.status == 200)
            let token = JSONValue.string(anonymous.string("idToken"))
            let noEmail = try await client.v1("accounts:signUp", ["idToken": token, "password": "secret123"])
            #expect(noEmail.status == 400)
            #expect(noEmail.errorMessage == "MISSING_EMAIL")
            let tokenOnly = try await client.v1("accounts:signUp", ["idToken": token])
            #expect(tokenOnly.errorMessage == "MISSING_EMAIL")
            let noPassword = try await client.v1("accounts:signUp", ["email": "a@example.com"])
            #expect(noPassword.errorMessage == "MISSING_PASSWORD")
            let emptyEmail = try await client.v1("accounts:signUp", ["email": "", "password": "secret123"])
            #expect(emptyEmail.errorMessage == "MISSING_EMAIL")
            // As firebase-tools: empty strings name nothing, but an empty address alone is no anonymous sign-up.
            let bothEmpty = try await client.v1("accounts:signUp", ["email": "", "password": ""])
            #expect(bothEmpty.status == 400)
            #expect(bothEmpty.errorMessage == "INVALID_EMAIL")
            let emptyAddress = try await client.v1("accounts:signUp", ["email": ""])
            #expect(emptyAddress.errorMessage == "INVALID_EMAIL")
            let emptyPassword = try await client.v1("accounts:signUp", ["password": "", "returnSecureToken": true])
            #expect(emptyPassword.status == 200)
            #expect(emptyPassword.string("idToken").jwtPayload.value(at: "firebase.sign_in_provider") == "anonymous")
            // The anonymous account is untouched: still anonymous, no email.
            let lookup = try await client.v1("accounts:lookup", ["idToken": token])
            #expect(lookup["users"]?.arrayValue?.first?["email"] == nil)
            #expect(lookup["users"]?.arrayValue?.first?["localId"] == anonymous["localId"])
        }
    }

    @Test("admin signUp with both idToken and localId is UNEXPECTED_PARAMETER : User ID")
    func adminSignUpWithTokenAndLocalId() async throws {
        try await Harness().run { client in
            let user = try await client.signUp("u@example.com")
            let reply = try await client.v1(
                "accounts:signUp", ["idToken": .string(user.string("idToken")), "localId": "chosen"], admin: true)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "UNEXPECTED_PARAMETER : User ID")
        }
    }

    @Test("a tenant with disableAuth answers PROJECT_DISABLED first: custom token, batchGet, batchCreate, query")
    func disabledTenantFirst() async throws {
        try await Harness().run { client in
            let tenant = "\(Self.toolkit)/v1/projects/example/tenants/off"
            let patched = try await client.call(
                .patch, "\(Self.toolkit)/v2/projects/example/tenants/off?updateMask=disableAuth",
                #"{"disableAuth":true}"#, admin: true)
            #expect(patched.status == 200)
            let replies = [
                try await client.v1("accounts:signInWithCustomToken", ["tenantId": "off"]),
                try await client.call(.get, "\(tenant)/accounts:batchGet", admin: true),
                try await client.call(
                    .post, "\(tenant)/accounts:batchCreate", #"{"users":[{"localId":"x"}]}"#, admin: true),
                try await client.call(.post, "\(tenant)/accounts:query", "{}", admin: true),
            ]
            for reply in replies {
                #expect(reply.status == 400)
                #expect(reply.errorMessage == "PROJECT_DISABLED")
            }
        }
    }

    @Test("signInWithPassword: an empty email is INVALID_EMAIL, an absent one MISSING_EMAIL")
    func emptyEmail() async throws {
        try await Harness().run { client in
            let empty = try await client.v1("accounts:signInWithPassword", ["email": "", "password": "x"])
            #expect(empty.status == 400)
            #expect(empty.errorMessage == "INVALID_EMAIL")
            let absent = try await client.v1("accounts:signInWithPassword", ["password": "x"])
            #expect(absent.errorMessage == "MISSING_EMAIL")
        }
    }

    @Test("accounts:update with idToken and validSince revokes older tokens and answers new ones")
    func clientValidSince() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let user = try await client.signUp("v@example.com")
            let other = try await client.v1(
                "accounts:signInWithPassword", ["email": "v@example.com", "password": "secret123"])
            harness.clock.advance(by: 1)
            let updated = try await client.v1(
                "accounts:update", ["idToken": .string(user.string("idToken")), "validSince": "1"])
            #expect(updated.status == 200)
            let fresh = updated.string("idToken")
            #expect(fresh.jwtPayload["iat"] == .number(1_700_000_001))
            #expect(updated["refreshToken"] != nil)
            // The value sent is not taken from a client: validSince is now, not 1970.
            let lookup = try await client.v1("accounts:lookup", ["idToken": .string(fresh)])
            #expect(lookup["users"]?.arrayValue?.first?["validSince"] == "1700000001")
            let stale = try await client.v1("accounts:lookup", ["idToken": .string(other.string("idToken"))])
            #expect(stale.errorMessage == "TOKEN_EXPIRED")
        }
    }

    @Test("admin accounts:delete with an idToken but no localId is MISSING_LOCAL_ID and deletes nothing")
    func adminDeleteNeedsLocalId() async throws {
        try await Harness().run { client in
            let user = try await client.signUp("d@example.com")
            let reply = try await client.v1(
                "accounts:delete", ["idToken": .string(user.string("idToken"))], admin: true)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "MISSING_LOCAL_ID")
            let lookup = try await client.v1("accounts:lookup", ["idToken": .string(user.string("idToken"))])
            #expect(lookup.status == 200)
        }
    }

    @Test("accounts:batchDelete with no ids is LOCAL_ID_LIST_EXCEEDS_LIMIT, as above 1,000")
    func batchDeleteEmpty() async throws {
        try await Harness().run { client in
            let path = "\(Self.toolkit)/v1/projects/example/accounts:batchDelete"
            for body in [#"{"localIds":[]}"#, "{}"] {
                let reply = try await client.call(.post, path, body, admin: true)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
            }
        }
    }

    @Test("/emulator/action without apiKey reports the apiKey before the mode or the code")
    func actionPageApiKeyFirst() async throws {
        try await Harness().run { client in
            let reply = try await client.call(.get, "/emulator/action?mode=bogus&oobCode=nope", key: false)
            #expect(reply.status == 400)
            #expect(reply.json == .object(["authEmulator": .object(["error": "missing apiKey query parameter"])]))
        }
    }

    @Test("/emulator/action without oobCode says so, after the apiKey and before the mode")
    func actionPageMissingCode() async throws {
        try await Harness().run { client in
            for query in ["mode=verifyEmail&apiKey=k", "mode=bogus&apiKey=k", "mode=verifyEmail&apiKey=k&oobCode="] {
                let reply = try await client.call(.get, "/emulator/action?\(query)", key: false)
                #expect(reply.status == 400)
                #expect(reply.json == .object(["authEmulator": .object(["error": "missing oobCode query parameter"])]))
            }
        }
    }

    @Test("customAttributes \"{}\" is kept, so the Admin SDK reads customClaims {} back")
    func emptyClaimsKept() async throws {
        try await Harness().run { client in
            let user = try await client.signUp("c@example.com")
            let localId = JSONValue.string(user.string("localId"))
            for claims in [#"{"role":"admin"}"#, "{}"] {
                let update = try await client.v1(
                    "accounts:update", ["localId": localId, "customAttributes": .string(claims)], admin: true)
                #expect(update.status == 200)
                let lookup = try await client.v1("accounts:lookup", ["localId": .array([localId])], admin: true)
                #expect(lookup["users"]?.arrayValue?.first?["customAttributes"] == .string(claims))
            }
        }
    }

    @Test("emailPrivacyConfig with improved privacy off answers {} on the config and on tenants")
    func falseLeftOut() async throws {
        try await Harness().run { client in
            let config = try await client.call(.get, "\(Self.toolkit)/v2/projects/example/config", admin: true)
            #expect(config["emailPrivacyConfig"] == .object([:]))
            let off = try await client.call(
                .patch, "\(Self.toolkit)/v2/projects/example/config?updateMask=emailPrivacyConfig",
                #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#, admin: true)
            #expect(off["emailPrivacyConfig"] == .object([:]))
            let on = try await client.call(
                .patch, "\(Self.toolkit)/v2/projects/example/config?updateMask=emailPrivacyConfig",
                #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#, admin: true)
            #expect(on["emailPrivacyConfig"] == .object(["enableImprovedEmailPrivacy": true]))
            let tenant = try await client.call(
                .post, "\(Self.toolkit)/v2/projects/example/tenants",
                #"{"displayName":"t","emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#, admin: true)
            #expect(tenant.status == 200)
            #expect(tenant["emailPrivacyConfig"] == .object([:]))
            let read = try await client.call(
                .get, "\(Self.toolkit)/v2/projects/example/tenants/\(tenant.string("tenantId"))", admin: true)
            #expect(read["emailPrivacyConfig"] == .object([:]))
            // firebase-tools' own emulator endpoint keeps its explicit shape.
            let emulator = try await client.call(.get, "/emulator/v1/projects/example/config", key: false)
            #expect(emulator["emailPrivacyConfig"] == .object(["enableImprovedEmailPrivacy": true]))
        }
    }
}

/// Where production and firebase-tools differ, production wins (issue 22, part 8).
@Suite("production over firebase-tools")
struct ProductionOverFirebaseToolsTests {
    @Test("mfa.enrollments: a factor without an id gets a new one; named ids are kept")
    func enrollmentWithoutId() async throws {
        try await Harness().run { client in
            let user = try await client.signUp("factors@example.com")
            let localId = user["localId"]!
            let update = try await client.v1(
                "accounts:update",
                [
                    "localId": localId,
                    "mfa": .object([
                        "enrollments": .array([
                            .object(["phoneInfo": "+15555550150", "displayName": "work"]),
                            .object(["phoneInfo": "+15555550151", "mfaEnrollmentId": "kept-id"]),
                        ])
                    ]),
                ], admin: true)
            #expect(update.status == 200)
            let lookup = try await client.v1("accounts:lookup", ["localId": .array([localId])], admin: true)
            let factors = lookup["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue ?? []
            #expect(factors.count == 2)
            #expect(factors.first?["phoneInfo"] == "+15555550150")
            #expect(factors.first?["displayName"] == "work")
            #expect(factors.first?["mfaEnrollmentId"]?.stringValue?.count == 28)
            #expect(factors.last?["mfaEnrollmentId"] == "kept-id")
        }
    }
}

/// The configuration file's settings go through the REST API's write path (issue 22, part 7).
@Suite("config file seeds")
struct ConfigSeedTests {
    @Test("a reloaded smsRegionConfig branch replaces the other, as a PATCH does")
    func regionPolicyBranchReplaced() async throws {
        let emulator = await Emulator(store: try SQLiteStore())
        let first = try JSONValue.parse(
            Data(#"{"p":{"config":{"smsRegionConfig":{"allowByDefault":{"disallowedRegions":["CA"]}}}}}"#.utf8))
        try await emulator.applyProjectSeeds(first)
        let second = try JSONValue.parse(
            Data(#"{"p":{"config":{"smsRegionConfig":{"allowlistOnly":{"allowedRegions":["GB"]}}}}}"#.utf8))
        try await emulator.applyProjectSeeds(second)
        let config = try await emulator.getProjectConfig(projectId: "p")
        #expect(config["smsRegionConfig"] == .object(["allowlistOnly": .object(["allowedRegions": .array(["GB"])])]))
        let refused = await #expect(throws: AuthError.self) {
            _ = try await emulator.sendVerificationCode(
                LenientDecoder.decode(SendVerificationCodeRequest.self, from: .object(["phoneNumber": "+15555550190"])),
                caller: Caller(scope: Scope(projectId: "p"), isAdmin: false))
        }
        #expect(refused?.code == "OPERATION_NOT_ALLOWED")
    }
}
