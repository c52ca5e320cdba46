import AuthEmulator
import Testing

/// `false` is a value in the reCAPTCHA and password-policy settings (production and firebase-tools
/// echo it); only `emailPrivacyConfig` leaves it out; an OIDC `responseType` answers only the types
/// that are on.
@Suite("false values in settings")
struct FalseValuesTests {
    static let v2 = "/identitytoolkit.googleapis.com/v2/projects/example"
    static let recaptchaMask =
        "recaptchaConfig.useAccountDefender,recaptchaConfig.useSmsBotScore,recaptchaConfig.useSmsTollFraudProtection"
    static let recaptchaOff =
        #"{"recaptchaConfig":{"useAccountDefender":false,"useSmsBotScore":false,"useSmsTollFraudProtection":false}}"#
    static let recaptchaEcho: JSONValue = .object([
        "useAccountDefender": .bool(false), "useSmsBotScore": .bool(false), "useSmsTollFraudProtection": .bool(false),
    ])

    @Test(
        "recaptchaConfig's switches answer false on a tenant; the project leaves out useAccountDefender while off, but in the update setting it"
    )
    func recaptchaFalse() async throws {
        try await Harness().run { client in
            let config = try await client.call(
                .patch, "\(Self.v2)/config?updateMask=\(Self.recaptchaMask)", Self.recaptchaOff, admin: true, key: false
            )
            // The project leaves useAccountDefender out while email/password enforcement is off.
            let withoutDefender: JSONValue = .object([
                "useSmsBotScore": .bool(false), "useSmsTollFraudProtection": .bool(false),
            ])
            // The update that sets it answers it, as production; reads and other updates do not.
            #expect(config.status == 200)
            #expect(config["recaptchaConfig"] == Self.recaptchaEcho)
            let read = try await client.call(.get, "\(Self.v2)/config", admin: true, key: false)
            #expect(read["recaptchaConfig"] == withoutDefender)
            let other = try await client.call(
                .patch, "\(Self.v2)/config?updateMask=signIn.anonymous.enabled",
                #"{"signIn":{"anonymous":{"enabled":true}}}"#, admin: true, key: false)
            #expect(other.status == 200 && other["recaptchaConfig"] == withoutDefender)
            let tenant = try await client.call(
                .post, "\(Self.v2)/tenants", #"{"displayName":"t"}"#, admin: true, key: false
            )
            .ok()
            let tenantId = tenant.string("name").split(separator: "/").last.map(String.init) ?? ""
            let patched = try await client.call(
                .patch, "\(Self.v2)/tenants/\(tenantId)?updateMask=\(Self.recaptchaMask)", Self.recaptchaOff,
                admin: true, key: false)
            #expect(patched.status == 200)
            #expect(patched["recaptchaConfig"] == Self.recaptchaEcho)
        }
    }

    @Test("passwordPolicyConfig's character requirements answer false; emailPrivacyConfig still {}")
    func passwordPolicyFalse() async throws {
        try await Harness().run { client in
            let body = #"""
                {"passwordPolicyConfig":{"passwordPolicyEnforcementState":"ENFORCE","passwordPolicyVersions":[
                {"customStrengthOptions":{"minPasswordLength":8,"requireLowercase":false,"requireUppercase":false,
                "requireNumeric":false,"requireNonAlphanumeric":false}}]},"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}
                """#
            let config = try await client.call(
                .patch, "\(Self.v2)/config?updateMask=passwordPolicyConfig,emailPrivacyConfig", body, admin: true,
                key: false)
            #expect(config.status == 200)
            let options = config["passwordPolicyConfig"]?["passwordPolicyVersions"]?.arrayValue?.first?[
                "customStrengthOptions"]
            #expect(
                options
                    == .object([
                        "minPasswordLength": 8, "requireLowercase": false, "requireUppercase": false,
                        "requireNumeric": false, "requireNonAlphanumeric": false,
                    ]))
            #expect(config["emailPrivacyConfig"] == .object([:]))
        }
    }

    @Test("an OIDC provider's responseType answers only the types that are on")
    func oidcResponseType() async throws {
        try await Harness().run { client in
            let created = try await client.call(
                .post, "\(Self.v2)/oauthIdpConfigs?oauthIdpConfigId=oidc.provider",
                #"{"clientId":"c","issuer":"https://issuer.example.com","responseType":{"idToken":true,"code":false}}"#,
                admin: true, key: false)
            #expect(created.status == 200)
            #expect(created["responseType"] == .object(["idToken": true]))
            let patched = try await client.call(
                .patch, "\(Self.v2)/oauthIdpConfigs/oidc.provider?updateMask=responseType.idToken,responseType.code",
                #"{"responseType":{"idToken":false,"code":true},"clientSecret":"s"}"#, admin: true, key: false)
            #expect(patched.status == 200)
            #expect(patched["responseType"] == .object(["code": true]))
            let read = try await client.call(.get, "\(Self.v2)/oauthIdpConfigs/oidc.provider", admin: true, key: false)
            #expect(read["responseType"] == .object(["code": true]))
        }
    }
}
