import AuthEmulator
import Foundation
import Testing

@Suite("Multi-factor authentication")
struct MfaRouteTests {
    static let enableTotp =
        #"{"mfa":{"state":"ENABLED","enabledProviders":["PHONE_SMS"],"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":1}}]}}"#

    /// A verified email user signed in with a password.
    static func verifiedUser(_ client: Harness.Client, _ email: String = "mfa@example.com", tenant: String? = nil)
        async throws -> Harness.Reply
    {
        var body: [String: JSONValue] = ["email": .string(email), "password": "secret123", "emailVerified": true]
        let path = tenant.map { "projects/example/tenants/\($0)/accounts" } ?? "projects/example/accounts"
        try await client.v1(path, body, admin: true).ok()
        body = ["email": .string(email), "password": "secret123"]
        if let tenant { body["tenantId"] = .string(tenant) }
        return try await client.v1("accounts:signInWithPassword", body)
    }

    static func v2(_ client: Harness.Client, _ operation: String, _ body: [String: JSONValue]) async throws
        -> Harness.Reply
    {
        try await client.call(
            .post, "/identitytoolkit.googleapis.com/v2/accounts/\(operation)", JSONValue.object(body).jsonString())
    }

    static func code(_ secret: String, at date: Date) -> String {
        Totp.code(secret: Base32.decode(secret)!, step: Totp.step(at: date))
    }

    @Test("TOTP: enroll, sign in with a pending credential, replay refused, window enforced")
    func totpFlow() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let config = try await client.call(
                .patch, "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=mfa",
                Self.enableTotp,
                admin: true)
            #expect(config.status == 200)
            let user = try await Self.verifiedUser(client)
            let start = try await Self.v2(
                client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])])
            #expect(start.status == 200)
            let info = start["totpSessionInfo"]!
            let secret = info["sharedSecretKey"]!.stringValue!
            #expect(secret.count == 32)
            #expect(info["verificationCodeLength"] == 6)
            #expect(info["hashingAlgorithm"] == "SHA1")
            #expect(info["periodSec"] == 30)
            #expect(
                info["finalizeEnrollmentTime"]?.stringValue == harness.clock.now().addingTimeInterval(600).rfc3339Millis
            )
            let wrong = try await Self.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "totpVerificationInfo": .object([
                        "sessionInfo": info["sessionInfo"]!, "verificationCode": "1000000",
                    ]),
                ])
            #expect(wrong.errorMessage == "INVALID_CODE")
            let finalized = try await Self.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!, "displayName": "phone app",
                    "totpVerificationInfo": .object([
                        "sessionInfo": info["sessionInfo"]!,
                        "verificationCode": .string(Self.code(secret, at: harness.clock.now())),
                    ]),
                ])
            #expect(finalized.status == 200)
            let claims = finalized.string("idToken").jwtPayload
            #expect(claims.value(at: "firebase.sign_in_second_factor") == "totp")
            let enrollmentId = claims.value(at: "firebase.second_factor_identifier")!

            let first = try await client.v1(
                "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
            #expect(first.status == 200)
            #expect(first["idToken"] == nil)
            #expect(first["refreshToken"] == nil)
            let hints = first["mfaInfo"]!.arrayValue!
            #expect(
                hints == [
                    .object([
                        "mfaEnrollmentId": enrollmentId, "displayName": "phone app",
                        "enrolledAt": .string(harness.clock.now().rfc3339Millis), "totpInfo": .object([:]),
                    ])
                ])
            let pending = first["mfaPendingCredential"]!

            let replay = try await Self.v2(
                client, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": pending, "mfaEnrollmentId": enrollmentId,
                    "totpVerificationInfo": .object([
                        "verificationCode": .string(Self.code(secret, at: harness.clock.now()))
                    ]),
                ])
            #expect(replay.errorMessage == "INVALID_CODE")
            let tooFar = try await Self.v2(
                client, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": pending, "mfaEnrollmentId": enrollmentId,
                    "totpVerificationInfo": .object([
                        "verificationCode": .string(Self.code(secret, at: harness.clock.now().addingTimeInterval(60)))
                    ]),
                ])
            #expect(tooFar.errorMessage == "INVALID_CODE")
            let next = try await Self.v2(
                client, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": pending, "mfaEnrollmentId": enrollmentId,
                    "totpVerificationInfo": .object([
                        "verificationCode": .string(Self.code(secret, at: harness.clock.now().addingTimeInterval(30)))
                    ]),
                ])
            #expect(next.status == 200)
            #expect(next.string("idToken").jwtPayload.value(at: "firebase.sign_in_second_factor") == "totp")
            #expect(next.string("idToken").jwtPayload.value(at: "firebase.sign_in_provider") == "password")
            // The step a sign-in used is kept: the same code with a fresh credential is a replay.
            let fresh = try await client.v1(
                "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
            let replayed = try await Self.v2(
                client, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": fresh["mfaPendingCredential"]!, "mfaEnrollmentId": enrollmentId,
                    "totpVerificationInfo": .object([
                        "verificationCode": .string(Self.code(secret, at: harness.clock.now().addingTimeInterval(30)))
                    ]),
                ])
            #expect(replayed.errorMessage == "INVALID_CODE")

            harness.clock.advance(by: 601)
            let expired = try await Self.v2(
                client, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": pending, "mfaEnrollmentId": enrollmentId,
                    "totpVerificationInfo": .object([
                        "verificationCode": .string(Self.code(secret, at: harness.clock.now()))
                    ]),
                ])
            #expect(expired.errorMessage == "INVALID_MFA_PENDING_CREDENTIAL")

            try await client.call(
                .patch,
                "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings.totpReplayProtection",
                #"{"emulatorSettings":{"totpReplayProtection":false}}"#, admin: true
            ).ok()
            for _ in 1...2 {  // the same code twice: accepted both times without replay protection
                let again = try await client.v1(
                    "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
                let reused = try await Self.v2(
                    client, "mfaSignIn:finalize",
                    [
                        "mfaPendingCredential": again["mfaPendingCredential"]!, "mfaEnrollmentId": enrollmentId,
                        "totpVerificationInfo": .object([
                            "verificationCode": .string(Self.code(secret, at: harness.clock.now()))
                        ]),
                    ])
                #expect(reused.status == 200)
            }
            let helper = try await client.call(
                .get, "/emulator/v1/projects/example/totpCodes?localId=\(user.string("localId"))", key: false)
            #expect(helper["code"]?.stringValue == Self.code(secret, at: harness.clock.now()))
            #expect(helper["mfaEnrollmentId"] == enrollmentId)
        }
    }

    @Test("SMS: enroll with a code from the outbox, sign in with masked hints, withdraw revokes the session")
    func smsFlow() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let user = try await Self.verifiedUser(client)
            let start = try await Self.v2(
                client, "mfaEnrollment:start",
                [
                    "idToken": user["idToken"]!,
                    "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550100", "recaptchaToken": "t"]),
                ])
            #expect(start.status == 200)
            let outbox = try await client.call(
                .get, "/emulator/v1/projects/example/smsMessages?purpose=MFA_ENROLLMENT", key: false)
            let code = outbox["smsMessages"]!.arrayValue![0]["code"]!
            let finalized = try await Self.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "phoneVerificationInfo": .object([
                        "sessionInfo": start["phoneSessionInfo.sessionInfo"]!, "code": code,
                    ]),
                ])
            #expect(finalized.status == 200)
            let enrolledToken = finalized["idToken"]!
            #expect(enrolledToken.stringValue!.jwtPayload.value(at: "firebase.sign_in_second_factor") == "phone")
            let duplicate = try await Self.v2(
                client, "mfaEnrollment:start",
                ["idToken": enrolledToken, "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550100"])])
            #expect(
                duplicate.errorMessage
                    == "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")

            let first = try await client.v1(
                "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
            let hint = first["mfaInfo"]!.arrayValue![0]
            #expect(hint["phoneInfo"] == "+*******0100")
            let started = try await Self.v2(
                client, "mfaSignIn:start",
                [
                    "mfaPendingCredential": first["mfaPendingCredential"]!, "mfaEnrollmentId": hint["mfaEnrollmentId"]!,
                    "phoneSignInInfo": .object(["phoneNumber": "+*******0100"]),
                ])
            #expect(started.status == 200)
            let signInCode = try await client.call(
                .get, "/emulator/v1/projects/example/smsMessages?purpose=MFA_SIGN_IN", key: false)["smsMessages"]!
                .arrayValue![0]
            #expect(signInCode["phoneNumber"] == "+15555550100")
            let finished = try await Self.v2(
                client, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": first["mfaPendingCredential"]!,
                    "phoneVerificationInfo": .object([
                        "sessionInfo": started["phoneResponseInfo.sessionInfo"]!, "code": signInCode["code"]!,
                    ]),
                ])
            #expect(finished.status == 200)
            let session = finished["idToken"]!
            #expect(
                session.stringValue!.jwtPayload.value(at: "firebase.second_factor_identifier")
                    == hint["mfaEnrollmentId"])

            let withdrawn = try await Self.v2(
                client, "mfaEnrollment:withdraw", ["idToken": session, "mfaEnrollmentId": hint["mfaEnrollmentId"]!])
            #expect(withdrawn.status == 200)
            #expect(withdrawn["idToken"] == nil)
            let revoked = try await client.v1("accounts:lookup", ["idToken": session])
            #expect(revoked.errorMessage == "TOKEN_EXPIRED")
            let refresh = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                JSONValue.object(["grantType": "refresh_token", "refreshToken": finished["refreshToken"]!]).jsonString()
            )
            #expect(refresh.errorMessage == "TOKEN_EXPIRED")
            let plain = try await client.v1(
                "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
            #expect(plain["idToken"] != nil)
            #expect(plain["mfaPendingCredential"] == nil)
        }
    }

    @Test("enrollment preconditions: unverified email, ineligible first factor, provider disabled, factor limit")
    func preconditions() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let unverified = try await client.signUp("plain@example.com")
            let reply = try await Self.v2(
                client, "mfaEnrollment:start",
                ["idToken": unverified["idToken"]!, "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550100"])])
            #expect(
                reply.errorMessage == "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")
            let anonymous = try await client.v1("accounts:signUp", [:])
            let anonymousReply = try await Self.v2(
                client, "mfaEnrollment:start",
                ["idToken": anonymous["idToken"]!, "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550100"])])
            #expect(
                anonymousReply.errorMessage
                    == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
            let user = try await Self.verifiedUser(client)
            let totpOff = try await Self.v2(
                client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])])
            #expect(totpOff.errorMessage == "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled.")
            let missing = try await Self.v2(client, "mfaEnrollment:start", ["idToken": user["idToken"]!])
            #expect(missing.errorMessage == "INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))")
            let badPhone = try await Self.v2(
                client, "mfaEnrollment:start",
                ["idToken": user["idToken"]!, "phoneEnrollmentInfo": .object(["phoneNumber": "555"])])
            #expect(badPhone.errorMessage == "INVALID_PHONE_NUMBER : Invalid format.")
            try await client.call(
                .patch,
                "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings.mfaMaxEnrolledFactors",
                #"{"emulatorSettings":{"mfaMaxEnrolledFactors":1}}"#, admin: true
            ).ok()
            try await client.v1(
                "projects/example/accounts:update",
                [
                    "localId": user["localId"]!,
                    "mfa": .object([
                        "enrollments": .array([.object(["mfaEnrollmentId": "e1", "phoneInfo": "+15555550111"])])
                    ]),
                ],
                admin: true
            ).ok()
            let limit = try await Self.v2(
                client, "mfaEnrollment:start",
                ["idToken": user["idToken"]!, "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550100"])])
            #expect(limit.errorMessage == "SECOND_FACTOR_LIMIT_EXCEEDED")
            try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=mfa",
                #"{"mfa":{"state":"DISABLED"}}"#,
                admin: true
            ).ok()
            let smsOff = try await Self.v2(
                client, "mfaEnrollment:start", ["phoneEnrollmentInfo": .object(["phoneNumber": "+15555550100"])])
            #expect(smsOff.errorMessage == "OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")
            let signInOff = try await Self.v2(client, "mfaSignIn:start", [:])
            #expect(signInOff.errorMessage == "OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")
        }
    }

    @Test("pending credentials are bound to project and tenant; bad credentials are refused")
    func pendingCredentialBinding() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let user = try await Self.verifiedUser(client, tenant: "tenant-a")
            try await client.v1(
                "projects/example/tenants/tenant-a/accounts:update",
                [
                    "localId": user["localId"]!,
                    "mfa": .object([
                        "enrollments": .array([.object(["mfaEnrollmentId": "e1", "phoneInfo": "+15555550111"])])
                    ]),
                ],
                admin: true
            ).ok()
            let first = try await client.v1(
                "accounts:signInWithPassword",
                ["email": "mfa@example.com", "password": "secret123", "tenantId": "tenant-a"])
            let pending = first["mfaPendingCredential"]!
            let wrongTenant = try await Self.v2(
                client, "mfaSignIn:start", ["mfaPendingCredential": pending, "mfaEnrollmentId": "e1"])
            #expect(
                wrongTenant.errorMessage == "INVALID_PROJECT_ID : Project ID does not match MFA pending credential.")
            let garbage = try await Self.v2(
                client, "mfaSignIn:start",
                ["mfaPendingCredential": "garbage", "mfaEnrollmentId": "e1", "tenantId": "tenant-a"])
            #expect(garbage.errorMessage == "INVALID_MFA_PENDING_CREDENTIAL")
            let noCredential = try await Self.v2(
                client, "mfaSignIn:finalize", ["tenantId": "tenant-a", "phoneVerificationInfo": .object([:])])
            #expect(noCredential.errorMessage == "MISSING_CREDENTIAL : Please set MFA Pending Credential.")
            let unknown = try await Self.v2(
                client, "mfaSignIn:start",
                ["mfaPendingCredential": pending, "mfaEnrollmentId": "nope", "tenantId": "tenant-a"])
            #expect(unknown.errorMessage == "MFA_ENROLLMENT_NOT_FOUND")
            let ok = try await Self.v2(
                client, "mfaSignIn:start",
                ["mfaPendingCredential": pending, "mfaEnrollmentId": "e1", "tenantId": "tenant-a"])
            #expect(ok.status == 200)
        }
    }
}

@Suite("Multi-factor authentication: expiry")
struct MfaExpiryTests {
    @Test(
        "a TOTP enrollment finalized after finalizeEnrollmentTime answers SESSION_EXPIRED; unknown sessions INVALID_SESSION_INFO"
    )
    func totpEnrollmentExpires() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=mfa",
                MfaRouteTests.enableTotp,
                admin: true
            ).ok()
            let user = try await MfaRouteTests.verifiedUser(client)
            let start = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])])
            let secret = start["totpSessionInfo.sharedSecretKey"]!.stringValue!
            let unknown = try await MfaRouteTests.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "totpVerificationInfo": .object(["sessionInfo": "nope", "verificationCode": "123456"]),
                ])
            #expect(unknown.errorMessage == "INVALID_SESSION_INFO")
            harness.clock.advance(by: 601)
            let late = try await MfaRouteTests.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "totpVerificationInfo": .object([
                        "sessionInfo": start["totpSessionInfo.sessionInfo"]!,
                        "verificationCode": .string(MfaRouteTests.code(secret, at: harness.clock.now())),
                    ]),
                ])
            #expect(late.errorMessage == "SESSION_EXPIRED")
            let lookup = try await client.v1("accounts:lookup", ["idToken": user["idToken"]!])
            #expect(lookup["users"]?.arrayValue?.first?["mfaInfo"] == nil)
        }
    }
}
