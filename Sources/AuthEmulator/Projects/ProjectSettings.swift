import Foundation

/// The settings of one scope that account flows consult, read from the project's v2 `Config`
/// and, for a tenant, its `Tenant` resource.
public struct ScopeSettings: Sendable {
    public var allowDuplicateEmails = false
    public var improvedEmailPrivacy = false
    public var passwordSignUpEnabled = true
    public var emailLinkEnabled = true
    public var anonymousEnabled = true
    public var disableAuth = false
    /// The MFA config in wire shape (`state`, `enabledProviders`, `providerConfigs`).
    public var mfa: JSONValue = .object([:])
    public var testPhoneNumbers: [String: String] = [:]
    public var emulator = EmulatorSettings()
    /// The v2 `recaptchaConfig` (enforcement states, keys).
    public var recaptcha: JSONValue = .object([:])
    /// The v2 `passwordPolicyConfig`.
    public var passwordPolicy: JSONValue = .object([:])
    /// `passwordPolicy` as the rules new passwords are checked against.
    public var passwordRules = PasswordPolicy(config: .object([:]))
    /// Regions SMS may go to (`smsRegionConfig`; a tenant without its own uses the project's).
    public var smsRegions = SmsRegionPolicy(nil)
    /// The project's blocking functions (a tenant has no triggers of its own).
    public var blockingFunctions = BlockingFunctionsConfig()
    /// The project's custom email action handler (`notification.sendEmail.callbackUri`): email
    /// action links open it instead of the emulator's own page.
    public var actionHandlerURL: String?

    public init() {}

    public init(projectConfig config: JSONValue) {
        allowDuplicateEmails = config.value(at: "signIn.allowDuplicateEmails")?.boolValue ?? false
        improvedEmailPrivacy = config.value(at: "emailPrivacyConfig.enableImprovedEmailPrivacy")?.boolValue ?? false
        passwordSignUpEnabled = config.value(at: "signIn.email.enabled")?.boolValue ?? true
        anonymousEnabled = config.value(at: "signIn.anonymous.enabled")?.boolValue ?? true
        mfa = config["mfa"] ?? .object([:])
        testPhoneNumbers = Self.phoneMap(config.value(at: "signIn.phoneNumber.testPhoneNumbers"))
        emulator = EmulatorSettings(config["emulatorSettings"])
        recaptcha = config["recaptchaConfig"] ?? .object([:])
        passwordPolicy = config["passwordPolicyConfig"] ?? .object([:])
        passwordRules = PasswordPolicy(config: passwordPolicy)
        blockingFunctions = BlockingFunctionsConfig(config["blockingFunctions"])
        smsRegions = SmsRegionPolicy(config["smsRegionConfig"])
        actionHandlerURL = config.value(at: "notification.sendEmail.callbackUri")?.stringValue.flatMap {
            $0.isEmpty ? nil : $0
        }
    }

    public init(tenant: JSONValue, projectConfig config: JSONValue) {
        self.init(projectConfig: config)
        passwordSignUpEnabled = tenant["allowPasswordSignup"]?.boolValue ?? false
        emailLinkEnabled = tenant["enableEmailLinkSignin"]?.boolValue ?? false
        anonymousEnabled = tenant["enableAnonymousUser"]?.boolValue ?? false
        disableAuth = tenant["disableAuth"]?.boolValue ?? false
        mfa = tenant["mfaConfig"] ?? .object([:])
        testPhoneNumbers = Self.phoneMap(tenant["testPhoneNumbers"])
        if let own = tenant["emulatorSettings"] {
            emulator = EmulatorSettings((config["emulatorSettings"] ?? .object([:])).merged(with: own))
        }
        if let own = tenant["recaptchaConfig"] { recaptcha = own }
        if let own = tenant["smsRegionConfig"], own != .null { smsRegions = SmsRegionPolicy(own) }
        if let own = tenant["passwordPolicyConfig"] {
            passwordPolicy = own
            passwordRules = PasswordPolicy(config: own)
        }
    }

    static func phoneMap(_ value: JSONValue?) -> [String: String] {
        (value?.objectValue ?? [:]).compactMapValues { $0.stringValue }
    }
}

/// Defaults of the v2 resources, matching what firebase-tools answers for a fresh project.
public enum ResourceDefaults {
    /// The settings objects in which production's JSON leaves out `false` (proto3 omits default
    /// values): `emailPrivacyConfig: {}` when improved privacy is off, as the Admin SDKs' tests
    /// expect. Everywhere else `false` is a value that is echoed: `recaptchaConfig.useAccountDefender`,
    /// `passwordPolicyConfig…requireLowercase` (production and firebase-tools answer them, and both
    /// SDKs' tests read them); top-level tenant switches and `signIn` keep theirs too.
    static let falseOmittingObjects = ["emailPrivacyConfig"]

    /// A config or tenant as production writes it (see `falseOmittingObjects`).
    public static func productionForm(_ resource: JSONValue) -> JSONValue {
        guard var object = resource.objectValue else { return resource }
        for key in falseOmittingObjects {
            if let value = object[key] { object[key] = withoutFalse(value) }
        }
        return .object(object)
    }

    /// A project config as production answers it: `recaptchaConfig.useAccountDefender` is kept
    /// but left out while email/password enforcement is off (firebase-admin-node's integration
    /// suite: "response from backend ignores account defender status when recaptcha status is
    /// OFF"). Tenants still answer it, as firebase-tools does and the same suite expects of an
    /// emulator.
    public static func projectConfigAnswer(_ config: JSONValue) -> JSONValue {
        guard let recaptcha = config["recaptchaConfig"]?.objectValue, recaptcha["useAccountDefender"] != nil,
            (recaptcha["emailPasswordEnforcementState"]?.stringValue ?? "OFF") == "OFF"
        else { return config }
        return config.setting(["recaptchaConfig"], to: .object(recaptcha.filter { $0.key != "useAccountDefender" }))
    }

    static func withoutFalse(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let fields): .object(fields.filter { $0.value != .bool(false) }.mapValues(withoutFalse))
        case .array(let items): .array(items.map(withoutFalse))
        default: value
        }
    }

    public static func projectConfig(projectId: String) -> JSONValue {
        .object([
            "name": .string("projects/\(projectId)/config"),
            // Exactly firebase-tools' defaults (its tests compare `signIn` and `blockingFunctions`
            // whole); absent `signIn.email/anonymous/phoneNumber` read as enabled (ScopeSettings).
            "signIn": .object(["allowDuplicateEmails": .bool(false)]),
            "blockingFunctions": .object([:]),
            "emailPrivacyConfig": .object([:]),
            "mfa": .object([
                "state": .string("ENABLED"), "enabledProviders": .array([.string("PHONE_SMS")]),
                "providerConfigs": .array([]),
            ]),
        ])
    }

    /// An explicitly created tenant: everything off, as firebase-tools (and production) do.
    public static func createdTenant(projectId: String, tenantId: String) -> JSONValue {
        .object([
            "name": .string("projects/\(projectId)/tenants/\(tenantId)"),
            "tenantId": .string(tenantId),
            "allowPasswordSignup": .bool(false),
            "enableEmailLinkSignin": .bool(false),
            "enableAnonymousUser": .bool(false),
            "disableAuth": .bool(false),
            "mfaConfig": .object(["state": .string("DISABLED"), "enabledProviders": .array([])]),
        ])
    }

    /// A tenant that was referenced before being created: everything on (firebase-tools).
    public static func implicitTenant(projectId: String, tenantId: String) -> JSONValue {
        .object([
            "name": .string("projects/\(projectId)/tenants/\(tenantId)"),
            "tenantId": .string(tenantId),
            "allowPasswordSignup": .bool(true),
            "enableEmailLinkSignin": .bool(true),
            "enableAnonymousUser": .bool(true),
            "disableAuth": .bool(false),
            "mfaConfig": .object(["state": .string("ENABLED"), "enabledProviders": .array([.string("PHONE_SMS")])]),
        ])
    }
}

extension ScopeSettings {
    /// `PROJECT_DISABLED` when the tenant's authentication is disabled (`disableAuth`).
    public func requireAuthEnabled() throws {
        if disableAuth { throw AuthError.projectDisabled }
    }
}
