import Foundation

/// A project's or a tenant's settings as sections one can read and replace, whichever of the two
/// resources (v2 `Config`, `Tenant`) holds them: for the inspector's config page, and for helpers
/// that set test phone numbers. Every change goes through `updateProjectConfig` / `updateTenant`,
/// so it is validated exactly as the REST config API validates it.
public struct ConfigSection: Sendable, Equatable {
    /// The resource field the section replaces (`mfa`, `smsRegionConfig`, …; `switches` for a
    /// tenant's sign-in booleans).
    public var key: String
    public var title: String
    public var value: JSONValue
}

extension Emulator {
    static let projectSections: [(key: String, title: String)] = [
        ("signIn", "Sign-in providers and test phone numbers"), ("mfa", "Multi-factor authentication"),
        ("smsRegionConfig", "SMS region policy"), ("passwordPolicyConfig", "Password policy"),
        ("recaptchaConfig", "reCAPTCHA"),
        ("emulatorSettings", "Emulator settings (app verification, lifetimes, quotas)"),
        ("blockingFunctions", "Blocking functions"), ("emailPrivacyConfig", "Email privacy"),
    ]
    static let tenantSections: [(key: String, title: String)] = [
        ("switches", "Sign-in providers"), ("mfaConfig", "Multi-factor authentication"),
        ("smsRegionConfig", "SMS region policy"), ("passwordPolicyConfig", "Password policy"),
        ("recaptchaConfig", "reCAPTCHA"), ("emulatorSettings", "Emulator settings"),
    ]
    static let tenantSwitches = ["allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser", "disableAuth"]

    func scopeResource(_ scope: Scope) async throws -> JSONValue {
        guard let tenantId = scope.tenantId else { return try await getProjectConfig(projectId: scope.projectId) }
        return try await getTenant(projectId: scope.projectId, tenantId: tenantId)
    }

    public func configSections(_ scope: Scope) async throws -> [ConfigSection] {
        let resource = try await scopeResource(scope)
        let sections = scope.tenantId == nil ? Self.projectSections : Self.tenantSections
        return sections.map { section in
            let value: JSONValue =
                section.key == "switches"
                ? .object(Dictionary(uniqueKeysWithValues: Self.tenantSwitches.map { ($0, resource[$0] ?? false) }))
                : resource[section.key] ?? .object([:])
            return ConfigSection(key: section.key, title: section.title, value: value)
        }
    }

    /// Replaces one section; the config API's validation errors come back as they are.
    public func updateConfigSection(_ scope: Scope, key: String, value: JSONValue) async throws {
        let sections = scope.tenantId == nil ? Self.projectSections : Self.tenantSections
        guard sections.contains(where: { $0.key == key }) else {
            throw AuthError("INVALID_CONFIG", "\(key) is not a section of this page")
        }
        guard let tenantId = scope.tenantId else {
            _ = try await updateProjectConfig(
                projectId: scope.projectId, patch: .object([key: value]), updateMask: [key])
            return
        }
        if key == "switches" {
            guard let object = value.objectValue else { throw AuthError.invalidJSON("/switches must be object") }
            let mask = Self.tenantSwitches.filter { object[$0] != nil }
            _ = try await updateTenant(projectId: scope.projectId, tenantId: tenantId, patch: value, updateMask: mask)
        } else {
            _ = try await updateTenant(
                projectId: scope.projectId, tenantId: tenantId, patch: .object([key: value]), updateMask: [key])
        }
    }

    public func testPhoneNumbers(_ scope: Scope) async throws -> [String: String] {
        let resource = try await scopeResource(scope)
        let numbers =
            scope.tenantId == nil
            ? resource.value(at: "signIn.phoneNumber.testPhoneNumbers") : resource["testPhoneNumbers"]
        return (numbers?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// Replaces the scope's test phone numbers (where its resource keeps them).
    public func setTestPhoneNumbers(_ scope: Scope, _ numbers: [String: String]) async throws {
        let map = JSONValue.object(numbers.mapValues(JSONValue.string))
        guard let tenantId = scope.tenantId else {
            let patch = JSONValue.object(["signIn": .object(["phoneNumber": .object(["testPhoneNumbers": map])])])
            _ = try await updateProjectConfig(
                projectId: scope.projectId, patch: patch, updateMask: ["signIn.phoneNumber.testPhoneNumbers"])
            return
        }
        _ = try await updateTenant(
            projectId: scope.projectId, tenantId: tenantId, patch: .object(["testPhoneNumbers": map]),
            updateMask: ["testPhoneNumbers"])
    }
}
