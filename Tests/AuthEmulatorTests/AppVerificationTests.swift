import AuthEmulator
import Foundation
import Testing

@Suite("App verification")
struct AppVerificationTests {
    static func configure(_ client: Harness.Client, _ body: String, mask: String) async throws {
        let reply = try await client.call(
            .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=\(mask)", body, admin: true)
        #expect(reply.status == 200, "\(reply.json)")
    }

    static func enforce(_ client: Harness.Client, phone: String = "OFF", email: String = "OFF") async throws {
        try await configure(
            client,
            #"{"emulatorSettings":{"appVerification":"enforce"},"recaptchaConfig":{"phoneEnforcementState":"\#(phone)","emailPasswordEnforcementState":"\#(email)","recaptchaKeys":[{"type":"WEB","key":"web-key"}]}}"#,
            mask: "emulatorSettings,recaptchaConfig")
    }

    static func mint(_ client: Harness.Client, _ kind: String, valid: Bool = true) async throws -> String {
        try await client.call(
            .post, "/emulator/v1/projects/example/appCredentials", #"{"kind":"\#(kind)","valid":\#(valid)}"#, key: false
        ).string("token")
    }

    static func send(_ client: Harness.Client, _ body: [String: JSONValue]) async throws -> Harness.Reply {
        var body = body
        body["phoneNumber"] = body["phoneNumber"] ?? "+15555550100"
        return try await client.v1("accounts:sendVerificationCode", body)
    }

    static func lastPath(_ client: Harness.Client) async throws -> JSONValue? {
        try await client.call(.get, "/emulator/v1/projects/example/smsMessages", key: false)["smsMessages"]?.arrayValue?
            .last?["verificationPath"]
    }

    @Test("recaptchaConfig: required query fields, keys as resource names, string-only enforcement states")
    func recaptchaConfig() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let base = "/identitytoolkit.googleapis.com/v2/recaptchaConfig"
            #expect(try await client.call(.get, base).errorMessage == "MISSING_CLIENT_TYPE")
            #expect(
                try await client.call(.get, base + "?clientType=CLIENT_TYPE_WEB").errorMessage
                    == "MISSING_RECAPTCHA_VERSION")
            #expect(
                try await client.call(.get, base + "?clientType=CLIENT_TYPE_WEB&version=V2").errorMessage
                    == "INVALID_RECAPTCHA_VERSION")
            try await Self.enforce(client, phone: "AUDIT", email: "ENFORCE")
            let web = try await client.call(.get, base + "?clientType=CLIENT_TYPE_WEB&version=RECAPTCHA_ENTERPRISE")
            #expect(web["recaptchaKey"] == "projects/example/keys/web-key")
            #expect(
                web["recaptchaEnforcementState"]
                    == .array([
                        .object(["provider": "EMAIL_PASSWORD_PROVIDER", "enforcementState": "ENFORCE"]),
                        .object(["provider": "PHONE_PROVIDER", "enforcementState": "AUDIT"]),
                    ]))
            let ios = try await client.call(.get, base + "?clientType=CLIENT_TYPE_IOS&version=RECAPTCHA_ENTERPRISE")
            #expect(ios["recaptchaKey"] == "projects/example/keys/authemu-fake-ios-site-key")
            let policy = try await client.call(.get, "/identitytoolkit.googleapis.com/v2/passwordPolicy")
            #expect(policy["customStrengthOptions.minPasswordLength"] == 6)
            #expect(policy["enforcementState"] == "OFF")
        }
    }

    @Test("APNs: receipt with a string suggestedTimeout, the push in the outbox, the pair checked on send")
    func apns() async throws {
        let harness = try Harness()
        try await harness.run { client in
            #expect(
                try await client.v1("accounts:verifyIosClient", ["isSandbox": true]).errorMessage
                    == "MISSING_IOS_APP_TOKEN")
            let verified = try await client.v1(
                "accounts:verifyIosClient", ["appToken": "device-token-1", "isSandbox": true])
            #expect(verified["suggestedTimeout"] == "5")
            let receipt = verified["receipt"]!
            let pushes = try await client.call(.get, "/emulator/v1/projects/example/apnsPushes", key: false)[
                "apnsPushes"]!
            let push = pushes.arrayValue![0]
            #expect(push["deviceToken"] == "device-token-1")
            #expect(push.value(at: "payload.aps") == .object(["content-available": 1]))
            let auth = push["payload"]?["com.google.firebase.auth"]
            #expect(auth?["receipt"] == receipt)
            let secret = auth!["secret"]!
            try await Self.enforce(client)
            let ok = try await Self.send(
                client, ["iosReceipt": receipt, "iosSecret": secret, "clientType": "CLIENT_TYPE_IOS"])
            #expect(ok.status == 200)
            #expect(try await Self.lastPath(client) == "apns")
            let wrong = try await Self.send(
                client, ["iosReceipt": receipt, "iosSecret": "nope", "clientType": "CLIENT_TYPE_IOS"])
            #expect(wrong.errorMessage == "INVALID_APP_CREDENTIAL")
            let missing = try await Self.send(client, ["clientType": "CLIENT_TYPE_IOS"])
            #expect(missing.errorMessage == "MISSING_APP_CREDENTIAL")
            let android = try await Self.send(client, ["clientType": "CLIENT_TYPE_ANDROID"])
            #expect(android.errorMessage == "MISSING_CLIENT_IDENTIFIER")
        }
    }

    @Test("reCAPTCHA v2 and Play Integrity tokens minted by the emulator pass; others are refused")
    func tokens() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.enforce(client)
            let v2 = try await Self.mint(client, "RECAPTCHA_V2")
            #expect(
                try await Self.send(client, ["recaptchaToken": .string(v2), "clientType": "CLIENT_TYPE_WEB"]).status
                    == 200)
            #expect(try await Self.lastPath(client) == "recaptcha")
            let bad = try await Self.send(client, ["recaptchaToken": "made-up"])
            #expect(bad.errorMessage == "CAPTCHA_CHECK_FAILED")
            let revoked = try await Self.mint(client, "RECAPTCHA_V2", valid: false)
            #expect(
                try await Self.send(client, ["recaptchaToken": .string(revoked)]).errorMessage == "CAPTCHA_CHECK_FAILED"
            )
            let integrity = try await Self.mint(client, "PLAY_INTEGRITY")
            #expect(try await Self.send(client, ["playIntegrityToken": .string(integrity)]).status == 200)
            #expect(try await Self.lastPath(client) == "play-integrity")
            #expect(try await Self.send(client, ["safetyNetToken": "made-up"]).errorMessage == "INVALID_APP_CREDENTIAL")
        }
    }

    @Test("reCAPTCHA Enterprise ENFORCE and AUDIT on phone, as the JS and iOS SDKs send it")
    func enterprise() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.enforce(client, phone: "ENFORCE")
            let token = try await Self.mint(client, "RECAPTCHA_ENTERPRISE")
            let form: [String: JSONValue] = [
                "clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE",
            ]
            var body = form
            body["captchaResponse"] = "NO_RECAPTCHA"
            #expect(try await Self.send(client, body).errorMessage == "MISSING_RECAPTCHA_TOKEN")
            body["captchaResponse"] = "forged"
            #expect(try await Self.send(client, body).errorMessage == "INVALID_RECAPTCHA_TOKEN")
            body["captchaResponse"] = .string(token)
            #expect(try await Self.send(client, body).status == 200)
            #expect(try await Self.lastPath(client) == "recaptcha-enterprise")
            #expect(
                try await Self.send(client, ["captchaResponse": .string(token)]).errorMessage == "MISSING_CLIENT_TYPE")
            #expect(
                try await Self.send(client, ["captchaResponse": .string(token), "clientType": "CLIENT_TYPE_IOS"])
                    .errorMessage
                    == "MISSING_RECAPTCHA_VERSION")
            #expect(
                try await Self.send(
                    client,
                    ["captchaResponse": .string(token), "clientType": "CLIENT_TYPE_IOS", "recaptchaVersion": "V3"]
                ).errorMessage == "INVALID_RECAPTCHA_VERSION")

            try await Self.enforce(client, phone: "AUDIT")
            var audit = form
            audit["captchaResponse"] = "NO_RECAPTCHA"
            #expect(try await Self.send(client, audit).errorMessage == "MISSING_RECAPTCHA_TOKEN")
            audit["recaptchaToken"] = .string(try await Self.mint(client, "RECAPTCHA_V2"))
            #expect(try await Self.send(client, audit).status == 200)
            #expect(try await Self.lastPath(client) == "recaptcha")
        }
    }

    @Test("failNext makes the next credential checks fail and loses the next APNs push")
    func injectedFaults() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.enforce(client)
            let fault = try await client.call(
                .post, "/emulator/v1/projects/example/appVerification:failNext", #"{"fault":"CREDENTIAL","count":1}"#,
                key: false)
            #expect(fault["remaining"] == 1)
            let v2 = try await Self.mint(client, "RECAPTCHA_V2")
            #expect(
                try await Self.send(client, ["recaptchaToken": .string(v2)]).errorMessage == "INVALID_APP_CREDENTIAL")
            #expect(try await Self.send(client, ["recaptchaToken": .string(v2)]).status == 200)
            try await client.call(
                .post, "/emulator/v1/projects/example/appVerification:failNext", #"{"fault":"APNS_PUSH"}"#, key: false
            ).ok()
            let verified = try await client.v1("accounts:verifyIosClient", ["appToken": "device-2"])
            #expect(verified["receipt"] != nil)
            let pushes = try await client.call(.get, "/emulator/v1/projects/example/apnsPushes", key: false)
            #expect(pushes["apnsPushes"] == .array([]))
        }
    }

    @Test("email/password flows honour emailPasswordEnforcementState ENFORCE")
    func passwordFlows() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.signUp("rc@example.com").ok()
            try await Self.enforce(client, email: "ENFORCE")
            let form: [String: JSONValue] = [
                "email": "rc@example.com", "password": "secret123", "clientType": "CLIENT_TYPE_WEB",
                "recaptchaVersion": "RECAPTCHA_ENTERPRISE",
            ]
            #expect(try await client.v1("accounts:signInWithPassword", form).errorMessage == "MISSING_RECAPTCHA_TOKEN")
            var body = form
            body["captchaResponse"] = "forged"
            #expect(try await client.v1("accounts:signInWithPassword", body).errorMessage == "INVALID_RECAPTCHA_TOKEN")
            body["captchaResponse"] = .string(try await Self.mint(client, "RECAPTCHA_ENTERPRISE"))
            #expect(try await client.v1("accounts:signInWithPassword", body).status == 200)
            #expect(try await client.signUp("new@example.com").errorMessage == "MISSING_CLIENT_TYPE")
            let reset = try await client.v1(
                "accounts:sendOobCode",
                [
                    "requestType": "PASSWORD_RESET", "email": "rc@example.com", "clientType": "CLIENT_TYPE_WEB",
                    "recaptchaVersion": "RECAPTCHA_ENTERPRISE",
                    "captchaResp": .string(try await Self.mint(client, "RECAPTCHA_ENTERPRISE")),
                ])
            #expect(reset.status == 200)
        }
    }
}
