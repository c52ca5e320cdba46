import AuthEmulator
import Foundation
import Testing

/// Production's beforeSendSms and beforeSendEmail (issue 22, part 4).
@Suite("Blocking functions before an SMS or an email goes out")
struct SendBlockingFunctionTests {
    static let sms = "http://my-blocking-function.test/beforeSendSms"
    static let email = "http://my-blocking-function.test/beforeSendEmail"
    static let outbox = "/emulator/v1/projects/example/smsMessages"
    static let blocked = #"{"recaptchaActionOverride":"BLOCK"}"#

    @Test("beforeSendSms sees the number and the SMS type; BLOCK stops the code and nothing reaches the outbox")
    func phoneSignIn() async throws {
        let functions = FakeFunctions()
        try await Harness().run(functions: functions) { client in
            try await BlockingFunctionTests.configure(client, ["beforeSendSms": Self.sms])
            functions.reply("beforeSendSms", "{}")
            let sent = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": "+15555550160"])
            #expect(sent.status == 200)
            let call = functions.calls.last
            #expect(call?.url == Self.sms)
            #expect(call?.claims["event_type"] == "beforeSendSms")
            #expect(call?.claims["sms_type"] == "SIGN_IN_OR_SIGN_UP")
            #expect(call?.claims["sign_in_method"] == "phone")
            #expect(call?.claims.value(at: "user_record.phone_number") == "+15555550160")
            functions.reply("beforeSendSms", Self.blocked)
            let refused = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": "+15555550161"])
            #expect(refused.status == 400)
            #expect(
                refused.errorMessage
                    == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((The beforeSendSms function blocked the SMS (recaptchaActionOverride: BLOCK).))"
            )
            let outbox = try await client.call(.get, "\(Self.outbox)?phoneNumber=%2B15555550161", key: false)
            #expect(outbox["smsMessages"] == .array([]))
            functions.reply("beforeSendSms", status: 400, #"{"error":{"status":"PERMISSION_DENIED","message":"no"}}"#)
            let failing = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": "+15555550162"])
            #expect(failing.errorMessage?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to") == true)
        }
    }

    @Test("test phone numbers send nothing, so their function is not asked")
    func testNumbersSkipped() async throws {
        let functions = FakeFunctions()
        try await Harness().run(functions: functions) { client in
            try await BlockingFunctionTests.configure(client, ["beforeSendSms": Self.sms])
            let numbers = try await client.call(
                .patch,
                "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=signIn.phoneNumber.testPhoneNumbers",
                #"{"signIn":{"phoneNumber":{"testPhoneNumbers":{"+15555550169":"123456"}}}}"#, admin: true)
            #expect(numbers.status == 200)
            functions.reply("beforeSendSms", Self.blocked)
            let sent = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": "+15555550169"])
            #expect(sent.status == 200)
            #expect(functions.calls.isEmpty)
        }
    }

    @Test("MFA enrollment and sign-in SMS carry their types and the user")
    func mfa() async throws {
        let functions = FakeFunctions()
        try await Harness().run(functions: functions) { client in
            try await BlockingFunctionTests.configure(client, ["beforeSendSms": Self.sms])
            functions.reply("beforeSendSms", "{}")
            let user = try await MfaRouteTests.verifiedUser(client, "send-sms@example.com")
            let start = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start",
                ["idToken": user["idToken"]!, "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550163"])])
            #expect(start.status == 200)
            #expect(functions.calls.last?.claims["sms_type"] == "MULTI_FACTOR_ENROLLMENT")
            #expect(functions.calls.last?.claims.value(at: "user_record.uid") == user["localId"])
            let code = try await client.call(
                .get, "\(Self.outbox)?phoneNumber=%2B15555550163", key: false)["smsMessages"]?.arrayValue?.last?["code"]
            let finalized = try await MfaRouteTests.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "phoneVerificationInfo": .object([
                        "sessionInfo": start["phoneSessionInfo.sessionInfo"]!, "code": code ?? .null,
                    ]),
                ])
            #expect(finalized.status == 200)
            let first = try await client.v1(
                "accounts:signInWithPassword", ["email": "send-sms@example.com", "password": "secret123"])
            functions.reply("beforeSendSms", Self.blocked)
            let signIn = try await MfaRouteTests.v2(
                client, "mfaSignIn:start",
                [
                    "mfaPendingCredential": first["mfaPendingCredential"]!,
                    "mfaEnrollmentId": first["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"] ?? .null,
                    "phoneSignInInfo": .object(["phoneNumber": "+15555550163"]),
                ])
            #expect(signIn.errorMessage?.hasPrefix("BLOCKING_FUNCTION_ERROR_RESPONSE") == true)
            #expect(functions.calls.last?.claims["sms_type"] == "MULTI_FACTOR_SIGN_IN")
        }
    }

    @Test("beforeSendEmail for password resets and sign-in links; BLOCK stores no code; admin links skip it")
    func email() async throws {
        let functions = FakeFunctions()
        try await Harness().run(functions: functions) { client in
            let user = try await client.signUp("send-email@example.com")
            try await BlockingFunctionTests.configure(client, ["beforeSendEmail": Self.email])
            functions.reply("beforeSendEmail", "{}")
            let reset = try await client.v1(
                "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "send-email@example.com"])
            #expect(reset.status == 200)
            #expect(functions.calls.last?.claims["email_type"] == "PASSWORD_RESET")
            #expect(functions.calls.last?.claims["event_type"] == "beforeSendEmail")
            #expect(functions.calls.last?.claims.value(at: "user_record.uid") == user["localId"])
            functions.reply("beforeSendEmail", Self.blocked)
            let link = try await client.v1(
                "accounts:sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "new-person@example.com"])
            #expect(
                link.errorMessage
                    == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((The beforeSendEmail function blocked the email (recaptchaActionOverride: BLOCK).))"
            )
            #expect(functions.calls.last?.claims["email_type"] == "EMAIL_SIGN_IN")
            #expect(functions.calls.last?.claims.value(at: "user_record.email") == "new-person@example.com")
            let codes = try await client.call(.get, "/emulator/v1/projects/example/oobCodes", key: false)
            #expect(codes["oobCodes"]?.arrayValue?.count == 1)
            let count = functions.calls.count
            let admin = try await client.v1(
                "accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "send-email@example.com", "returnOobLink": true], admin: true
            )
            #expect(admin.status == 200)
            #expect(functions.calls.count == count)
            let verify = try await client.v1(
                "accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": user["idToken"]!])
            #expect(verify.status == 200)
            #expect(functions.calls.count == count)
        }
    }
}
