import AuthEmulator
import Foundation
import Testing

@Suite("Phone sign-in and the SMS outbox")
struct PhoneRouteTests {
    static let phone = "+15555550100"

    /// The JS SDK's body in emulator mode (reference/client-protocol.md §14).
    static func jsSend(_ phone: String = phone, tenant: String? = nil) -> [String: JSONValue] {
        var body: [String: JSONValue] = [
            "phoneNumber": .string(phone), "clientType": "CLIENT_TYPE_WEB", "captchaResponse": "NO_RECAPTCHA",
            "recaptchaVersion": "RECAPTCHA_ENTERPRISE", "recaptchaToken": "fake-token",
        ]
        if let tenant { body["tenantId"] = .string(tenant) }
        return body
    }

    static func outbox(_ client: Harness.Client, _ query: String = "") async throws -> [JSONValue] {
        try await client.call(.get, "/emulator/v1/projects/example/smsMessages\(query)", key: false)["smsMessages"]?
            .arrayValue ?? []
    }

    @Test("send, read the code from the outbox, sign up; the code is single-use")
    func signUpWithPhone() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let sent = try await client.v1("accounts:sendVerificationCode", Self.jsSend())
            #expect(sent.status == 200)
            let session = sent.string("sessionInfo")
            let messages = try await Self.outbox(client, "?phoneNumber=%2B15555550100")
            #expect(messages.count == 1)
            let message = messages[0]
            #expect(message["status"] == "PENDING")
            #expect(message["purpose"] == "SIGN_IN")
            #expect(message["sessionInfo"]?.stringValue == session)
            #expect(message["testNumber"] == false)
            #expect(message["verificationPath"] == "none")
            #expect(message["tenantId"] == .null)
            let code = message["code"]!.stringValue!
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            #expect(message["text"]?.stringValue == "\(code) is your verification code for example.")
            #expect(message["sentAt"]?.stringValue == harness.clock.now().rfc3339Millis)
            #expect(message["expiresAt"]?.stringValue == harness.clock.now().addingTimeInterval(600).rfc3339Millis)
            let pending = try await client.call(.get, "/emulator/v1/projects/example/verificationCodes", key: false)
            #expect(
                pending.json
                    == .object([
                        "verificationCodes": .array([
                            .object([
                                "code": .string(code), "phoneNumber": .string(Self.phone),
                                "sessionInfo": .string(session),
                            ])
                        ])
                    ]))

            let signedIn = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": .string(session), "code": .string(code)])
            #expect(signedIn.status == 200)
            #expect(signedIn["isNewUser"] == true)
            #expect(signedIn.string("phoneNumber") == Self.phone)
            let claims = signedIn.string("idToken").jwtPayload
            #expect(claims.value(at: "firebase.sign_in_provider") == "phone")
            #expect(claims["phone_number"]?.stringValue == Self.phone)
            #expect(claims.value(at: "firebase.identities.phone") == .array([.string(Self.phone)]))
            let reused = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": .string(session), "code": .string(code)])
            #expect(reused.errorMessage == "INVALID_SESSION_INFO")
            #expect(try await Self.outbox(client)[0]["status"] == "USED")
            let empty = try await client.call(.get, "/emulator/v1/projects/example/verificationCodes", key: false)
            #expect(empty.json == .object(["verificationCodes": .array([])]))

            let again = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": .string(Self.phone)])
            let secondCode = try await Self.outbox(client, "?after=1")[0]["code"]!
            let second = try await client.v1(
                "accounts:signInWithPhoneNumber",
                ["sessionInfo": again["sessionInfo"]!, "code": secondCode, "operation": "SIGN_UP_OR_IN"])
            #expect(second["isNewUser"] == false)
            #expect(second.string("localId") == signedIn.string("localId"))
        }
    }

    @Test("malformed numbers and missing fields give the documented errors")
    func inputErrors() async throws {
        let harness = try Harness()
        try await harness.run { client in
            for bad in ["5555550100", "+12", "+1555555010012345", "+1555abc0100"] {
                let reply = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": .string(bad)])
                #expect(reply.errorMessage == "INVALID_PHONE_NUMBER : Invalid format.", "\(bad)")
            }
            #expect(
                try await client.v1("accounts:sendVerificationCode", [:]).errorMessage
                    == "INVALID_PHONE_NUMBER : Invalid format.")
            #expect(
                try await client.v1("accounts:signInWithPhoneNumber", ["code": "123456"]).errorMessage
                    == "MISSING_SESSION_INFO")
            #expect(
                try await client.v1("accounts:signInWithPhoneNumber", ["sessionInfo": "x"]).errorMessage
                    == "MISSING_CODE")
            #expect(
                try await client.v1("accounts:signInWithPhoneNumber", ["sessionInfo": "unknown", "code": "123456"])
                    .errorMessage
                    == "INVALID_SESSION_INFO")
            #expect(try await Self.outbox(client).isEmpty)
            let badQuery = try await client.call(
                .get, "/emulator/v1/projects/example/smsMessages?purpose=NOPE", key: false)
            #expect(badQuery.status == 400)
        }
    }

    @Test("wrong codes until lockout; the lock holds even for the right code")
    func lockout() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let session = try await client.v1("accounts:sendVerificationCode", Self.jsSend())["sessionInfo"]!
            let code = try await Self.outbox(client)[0]["code"]!.stringValue!
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 1...4 {
                let reply = try await client.v1(
                    "accounts:signInWithPhoneNumber", ["sessionInfo": session, "code": .string(wrong)])
                #expect(reply.errorMessage == "INVALID_CODE")
            }
            let fifth = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": session, "code": .string(wrong)])
            #expect(fifth.errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            let right = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": session, "code": .string(code)])
            #expect(right.errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            let message = try await Self.outbox(client)[0]
            #expect(message["status"] == "LOCKED")
            #expect(message["attempts"] == 5)
            let users = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:batchGet", admin: true)
            #expect(users["users"] == nil)
        }
    }

    @Test("codes expire after the configured lifetime; newer codes supersede older ones")
    func expiryAndSupersession() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let config = try await client.call(
                .patch,
                "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings.smsCodeLifetimeSeconds",
                #"{"emulatorSettings":{"smsCodeLifetimeSeconds":60}}"#, admin: true)
            #expect(config.status == 200)
            let first = try await client.v1("accounts:sendVerificationCode", Self.jsSend())["sessionInfo"]!
            let firstCode = try await Self.outbox(client)[0]["code"]!
            harness.clock.advance(by: 61)
            let expired = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": first, "code": firstCode])
            #expect(expired.errorMessage == "SESSION_EXPIRED")
            #expect(try await Self.outbox(client)[0]["status"] == "EXPIRED")

            let older = try await client.v1("accounts:sendVerificationCode", Self.jsSend())["sessionInfo"]!
            let newer = try await client.v1("accounts:sendVerificationCode", Self.jsSend())["sessionInfo"]!
            let messages = try await Self.outbox(client)
            #expect(messages.map { $0["status"] } == ["EXPIRED", "SUPERSEDED", "PENDING"])
            let olderReply = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": older, "code": messages[1]["code"]!])
            #expect(olderReply.errorMessage == "SESSION_EXPIRED")
            let newerReply = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": newer, "code": messages[2]["code"]!])
            #expect(newerReply.status == 200)
        }
    }

    @Test("test phone numbers: fixed code only, no quota, recorded with testNumber true")
    func testPhoneNumbers() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let patch = try await client.call(
                .patch,
                "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=signIn.phoneNumber.testPhoneNumbers,emulatorSettings",
                #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+15555550199":"424242"}}},"emulatorSettings":{"smsQuotaPerNumberPerHour":1}}"#,
                admin: true)
            #expect(patch.status == 200)
            for _ in 1...3 {
                #expect(try await client.v1("accounts:sendVerificationCode", Self.jsSend("+15555550199")).status == 200)
            }
            let messages = try await Self.outbox(client)
            #expect(messages.allSatisfy { $0["code"] == "424242" && $0["testNumber"] == true })
            #expect(messages.last?["verificationPath"] == "test-number")
            let session = messages.last!["sessionInfo"]!
            let wrong = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": session, "code": "123456"])
            #expect(wrong.errorMessage == "INVALID_CODE")
            let right = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": session, "code": "424242"])
            #expect(right.status == 200)
            #expect(try await client.v1("accounts:sendVerificationCode", Self.jsSend()).status == 200)
            let quota = try await client.v1("accounts:sendVerificationCode", Self.jsSend())
            #expect(quota.errorMessage == "QUOTA_EXCEEDED : Exceeded quota for verifying +15555550100.")
            let invalid = try await client.call(
                .patch,
                "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
                #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+15555550199":"12ab"}}}}"#, admin: true)
            #expect(invalid.errorMessage == "INVALID_CONFIG : Invalid test code for +15555550199: must be 6 digits")
        }
    }

    @Test("linking a number owned by another account answers a temporary proof that signs in to it")
    func temporaryProof() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let first = try await client.v1("accounts:sendVerificationCode", Self.jsSend())["sessionInfo"]!
            let owner = try await client.v1(
                "accounts:signInWithPhoneNumber",
                ["sessionInfo": first, "code": try await Self.outbox(client)[0]["code"]!])
            let other = try await client.signUp("other@example.com")
            let second = try await client.v1("accounts:sendVerificationCode", Self.jsSend())["sessionInfo"]!
            let code = try await Self.outbox(client, "?after=1")[0]["code"]!
            let link = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": second, "code": code, "idToken": other["idToken"]!])
            #expect(link.status == 200)
            #expect(link["idToken"] == nil)
            #expect(link.string("phoneNumber") == Self.phone)
            #expect(link.string("temporaryProofExpiresIn") == "3600")
            let proof = link["temporaryProof"]!
            let conflict = try await client.v1(
                "accounts:signInWithPhoneNumber",
                ["temporaryProof": proof, "phoneNumber": .string(Self.phone), "idToken": other["idToken"]!])
            #expect(conflict.errorMessage == "PHONE_NUMBER_EXISTS")
            let signIn = try await client.v1(
                "accounts:signInWithPhoneNumber", ["temporaryProof": proof, "phoneNumber": .string(Self.phone)])
            #expect(signIn.string("localId") == owner.string("localId"))
            let bad = try await client.v1(
                "accounts:signInWithPhoneNumber", ["temporaryProof": "nope", "phoneNumber": .string(Self.phone)])
            #expect(bad.errorMessage == "INVALID_TEMPORARY_PROOF")
        }
    }

    @Test("a number owned by a user with second factors cannot be a first factor")
    func mfaUserRefused() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.v1(
                "projects/example/accounts",
                [
                    "localId": "mfa-user", "email": "m@example.com", "emailVerified": true,
                    "phoneNumber": .string(Self.phone),
                    "mfaInfo": .array([.object(["phoneInfo": "+15555550101"])]),
                ], admin: true
            ).ok()
            let reply = try await client.v1("accounts:sendVerificationCode", Self.jsSend())
            #expect(
                reply.errorMessage
                    == "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user."
            )
        }
    }

    @Test("phone sign-in works on tenants and the outbox is per tenant")
    func tenantPhone() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let sent = try await client.v1("accounts:sendVerificationCode", Self.jsSend(tenant: "tenant-1"))
            #expect(sent.status == 200)
            #expect(try await Self.outbox(client).isEmpty)
            let messages = try await client.call(
                .get, "/emulator/v1/projects/example/tenants/tenant-1/smsMessages", key: false)
            let message = messages["smsMessages"]!.arrayValue![0]
            #expect(message["tenantId"] == "tenant-1")
            let signedIn = try await client.v1(
                "accounts:signInWithPhoneNumber",
                ["sessionInfo": sent["sessionInfo"]!, "code": message["code"]!, "tenantId": "tenant-1"])
            #expect(signedIn.status == 200)
            #expect(signedIn.string("idToken").jwtPayload.value(at: "firebase.tenant") == "tenant-1")
            let crossScope = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": sent["sessionInfo"]!, "code": message["code"]!])
            #expect(crossScope.errorMessage == "INVALID_SESSION_INFO")
            let cleared = try await client.call(
                .delete, "/emulator/v1/projects/example/tenants/tenant-1/smsMessages", key: false)
            #expect(cleared.status == 200)
        }
    }
}

@Suite("Phone sign-in: users and quotas")
struct PhoneUserTests {
    @Test("a disabled phone user gets USER_DISABLED; per-address quota answers TOO_MANY_ATTEMPTS_TRY_LATER")
    func disabledAndAddressQuota() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.v1(
                "projects/example/accounts", ["localId": "off", "phoneNumber": "+15555550100", "disabled": true],
                admin: true
            ).ok()
            let sent = try await client.v1("accounts:sendVerificationCode", PhoneRouteTests.jsSend())
            let code = try await PhoneRouteTests.outbox(client)[0]["code"]!
            let reply = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": sent["sessionInfo"]!, "code": code])
            #expect(reply.errorMessage == "USER_DISABLED")

            try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings",
                #"{"emulatorSettings":{"smsQuotaPerIpPerHour":2}}"#, admin: true
            ).ok()
            func send(_ phone: String, from address: String) async throws -> Harness.Reply {
                try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode",
                    JSONValue.object(["phoneNumber": .string(phone)]).jsonString(),
                    headers: [.init("X-Forwarded-For")!: address])
            }
            #expect(try await send("+15555550201", from: "10.0.0.7").status == 200)
            #expect(try await send("+15555550202", from: "10.0.0.7").status == 200)
            #expect(try await send("+15555550203", from: "10.0.0.7").errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await send("+15555550203", from: "10.0.0.8").status == 200)
            harness.clock.advance(by: 3601)
            #expect(try await send("+15555550204", from: "10.0.0.7").status == 200)
        }
    }

    @Test("smsRegionConfig: allowlists and denylists by libphonenumber region, a oneof, test numbers exempt, tenants")
    func smsRegionPolicy() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let refused =
                "OPERATION_NOT_ALLOWED : SMS unable to be sent until this region enabled by the app developer."
            func patch(_ mask: String, _ body: String, tenant: String? = nil) async throws -> Harness.Reply {
                let resource = tenant.map { "tenants/\($0)" } ?? "config"
                return try await client.call(
                    .patch, "/identitytoolkit.googleapis.com/v2/projects/example/\(resource)?updateMask=\(mask)", body,
                    admin: true)
            }
            func send(_ phone: String, tenant: String? = nil) async throws -> Harness.Reply {
                try await client.v1("accounts:sendVerificationCode", PhoneRouteTests.jsSend(phone, tenant: tenant))
            }
            let allowGB = try await patch(
                "smsRegionConfig", #"{"smsRegionConfig":{"allowlistOnly":{"allowedRegions":["GB"]}}}"#)
            #expect(
                allowGB["smsRegionConfig"] == .object(["allowlistOnly": .object(["allowedRegions": .array(["GB"])])]))
            #expect(try await send("+15555550100").errorMessage == refused)
            #expect(try await send("+15555550100").status == 400)
            #expect(try await send("+447700900123").status == 200)
            #expect(try await send("+441481234567").errorMessage == refused)  // Guernsey, not GB
            try await patch(
                "signIn.phoneNumber.testPhoneNumbers",
                #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+15555550111":"123456"}}}}"#
            ).ok()
            #expect(try await send("+15555550111").status == 200)

            // The Node Admin SDK's leaf mask; setting one branch of the oneof clears the other.
            let denyCA = try await patch(
                "smsRegionConfig.allowByDefault.disallowedRegions",
                #"{"smsRegionConfig":{"allowByDefault":{"disallowedRegions":["CA","KZ"]}}}"#)
            #expect(
                denyCA["smsRegionConfig"]
                    == .object(["allowByDefault": .object(["disallowedRegions": .array(["CA", "KZ"])])]))
            #expect(try await send("+14165550123").errorMessage == refused)  // Toronto
            #expect(try await send("+77012345678").errorMessage == refused)  // +7 7xx is Kazakhstan
            #expect(try await send("+79161234567").status == 200)  // +7 9xx is Russia
            #expect(try await send("+12425550123").status == 200)  // the Bahamas share +1
            #expect(try await send("+15555550100").status == 200)

            let user = try await MfaRouteTests.verifiedUser(client)
            let enroll = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start",
                ["idToken": user["idToken"]!, "phoneEnrollmentInfo": .object(["phoneNumber": "+16045550123"])])
            #expect(enroll.errorMessage == refused)

            // A tenant's own policy replaces the project's; without one it has the project's.
            #expect(try await send("+14165550123", tenant: "t1").errorMessage == refused)
            try await patch(
                "smsRegionConfig", #"{"smsRegionConfig":{"allowlistOnly":{"allowedRegions":["CA"]}}}"#, tenant: "t1"
            ).ok()
            #expect(try await send("+14165550123", tenant: "t1").status == 200)
            #expect(try await send("+15555550100", tenant: "t1").errorMessage == refused)

            let cleared = try await patch("smsRegionConfig", #"{}"#)
            #expect(cleared["smsRegionConfig"] == nil)
            #expect(try await send("+14165550123").status == 200)

            let both = try await patch(
                "smsRegionConfig",
                #"{"smsRegionConfig":{"allowByDefault":{},"allowlistOnly":{"allowedRegions":["US"]}}}"#)
            #expect(
                both.errorMessage
                    == "INVALID_CONFIG : smsRegionConfig must set only one of allowByDefault and allowlistOnly")
            let lowercase = try await patch(
                "smsRegionConfig", #"{"smsRegionConfig":{"allowlistOnly":{"allowedRegions":["us"]}}}"#)
            #expect(
                lowercase.errorMessage
                    == #"INVALID_CONFIG : smsRegionConfig.allowlistOnly.allowedRegions must hold ISO 3166 alpha-2 region codes, e.g. "US""#
            )
            #expect(lowercase.status == 400)
        }
    }

}
