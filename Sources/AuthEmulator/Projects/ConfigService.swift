import Foundation

/// The v2 project `Config`, tenants, and identity-provider configs (admin APIs).
extension Emulator {
    public func getProjectConfig(projectId: String) async throws -> JSONValue {
        try await ResourceDefaults.projectConfigAnswer(
            ResourceDefaults.productionForm(
                store.read { tx in try await Emulator.projectConfig(tx, projectId: projectId) }))
    }

    /// PATCH with `updateMask` (dotted paths); an empty mask replaces the whole config.
    public func updateProjectConfig(projectId: String, patch: JSONValue, updateMask: [String]) async throws -> JSONValue
    {
        defer { settingsChanged() }
        guard patch.objectValue != nil else { throw AuthError.invalidJSON("/ must be object") }
        try ConfigValidation.validateProjectConfig(patch)
        for (event, trigger) in patch.value(at: "blockingFunctions.triggers")?.objectValue ?? [:] {
            if let uri = trigger["functionUri"]?.stringValue, !uri.lowercased().hasPrefix("http://"),
                !uri.lowercased().hasPrefix("https://")
            {
                logger.warning(
                    "Blocking function \(event) at \(uri) will fail: authemu calls functions over http:// and https:// only.",
                    metadata: ["event": "config", "project": "\(projectId)"])
            }
        }
        let written = try await store.write { tx in
            try await Emulator.writeProjectConfig(tx, projectId: projectId, patch: patch) { current in
                updateMask.isEmpty
                    ? ResourceDefaults.projectConfig(projectId: projectId).merged(with: patch)
                    : FieldMask.apply(updateMask, from: patch, to: current)
            }
        }
        // Production's answer to an update that sets `useAccountDefender` carries it, whatever the
        // enforcement; only later reads and other updates leave it out while enforcement is off.
        let setsDefender =
            patch.value(at: "recaptchaConfig.useAccountDefender") != nil
            && (updateMask.isEmpty
                || updateMask.contains { "recaptchaConfig.useAccountDefender".hasPrefix($0) })
        return setsDefender ? written : ResourceDefaults.projectConfigAnswer(written)
    }

    /// The one write path of a project config, for the REST API and the configuration file:
    /// `change` makes the new resource from the stored one; then the name, the MFA shape, the
    /// `smsRegionConfig` oneof (the branch `patch` sets replaces the other) and production's JSON.
    static func writeProjectConfig(
        _ tx: any StoreTransaction, projectId: String, patch: JSONValue, change: (JSONValue) -> JSONValue
    ) async throws -> JSONValue {
        var updated = change(try await projectConfig(tx, projectId: projectId))
        updated = updated.setting(["name"], to: .string("projects/\(projectId)/config"))
        updated = ConfigValidation.normalizeMfa(updated, key: "mfa")
        updated = SmsRegionPolicy.keepOneBranch(updated, key: "smsRegionConfig", patch: patch)
        updated = ResourceDefaults.productionForm(updated)
        try FieldLimits.checkConfigSize(updated)
        try await tx.saveProjectConfig(projectId: projectId, updated)
        return updated
    }

    /// The firebase-tools emulator view of the config: exactly two settings.
    public func emulatorConfig(projectId: String) async throws -> JSONValue {
        let config = try await getProjectConfig(projectId: projectId)
        return .object([
            "signIn": .object(["allowDuplicateEmails": config.value(at: "signIn.allowDuplicateEmails") ?? false]),
            "emailPrivacyConfig": .object([
                "enableImprovedEmailPrivacy": config.value(at: "emailPrivacyConfig.enableImprovedEmailPrivacy")
                    ?? false
            ]),
        ])
    }

    public func updateEmulatorConfig(projectId: String, patch: JSONValue) async throws -> JSONValue {
        let mask = ["signIn.allowDuplicateEmails", "emailPrivacyConfig.enableImprovedEmailPrivacy"].filter {
            patch.value(at: $0) != nil
        }
        _ = try await updateProjectConfig(projectId: projectId, patch: patch, updateMask: mask)
        return try await emulatorConfig(projectId: projectId)
    }

    // MARK: tenants

    public func createTenant(projectId: String, body: JSONValue) async throws -> JSONValue {
        defer { settingsChanged() }
        try ConfigValidation.validateTenant(body)
        let tenantId = random.alphanumeric(28)
        return try await store.write { tx in
            try await Emulator.writeTenant(tx, projectId: projectId, tenantId: tenantId, patch: body) {
                ResourceDefaults.createdTenant(projectId: projectId, tenantId: tenantId).merged(with: body)
            }
        }
    }

    public func getTenant(projectId: String, tenantId: String) async throws -> JSONValue {
        try await ResourceDefaults.productionForm(
            store.write { tx in
                try await Emulator.tenantResource(tx, projectId: projectId, tenantId: tenantId, create: true)!
            })
    }

    public func updateTenant(projectId: String, tenantId: String, patch: JSONValue, updateMask: [String]) async throws
        -> JSONValue
    {
        defer { settingsChanged() }
        guard patch.objectValue != nil else { throw AuthError.invalidJSON("/ must be object") }
        try ConfigValidation.validateTenant(patch)
        return try await store.write { tx in
            let current = try await Emulator.tenantResource(tx, projectId: projectId, tenantId: tenantId, create: true)!
            return try await Emulator.writeTenant(tx, projectId: projectId, tenantId: tenantId, patch: patch) {
                updateMask.isEmpty
                    ? ResourceDefaults.createdTenant(projectId: projectId, tenantId: tenantId).merged(with: patch)
                    : FieldMask.apply(updateMask, from: patch, to: current)
            }
        }
    }

    /// The one write path of a tenant (REST API and configuration file), as `writeProjectConfig`.
    static func writeTenant(
        _ tx: any StoreTransaction, projectId: String, tenantId: String, patch: JSONValue, make: () -> JSONValue
    ) async throws -> JSONValue {
        var updated = make().setting(["name"], to: .string("projects/\(projectId)/tenants/\(tenantId)"))
            .setting(["tenantId"], to: .string(tenantId))
        updated = ConfigValidation.normalizeMfa(updated, key: "mfaConfig")
        updated = SmsRegionPolicy.keepOneBranch(updated, key: "smsRegionConfig", patch: patch)
        updated = ResourceDefaults.productionForm(updated)
        try FieldLimits.checkConfigSize(updated)
        try await tx.saveTenant(projectId: projectId, tenantId: tenantId, updated)
        return updated
    }

    public func deleteTenant(projectId: String, tenantId: String) async throws -> JSONValue {
        defer { settingsChanged() }
        try await store.write { tx in
            guard try await tx.deleteTenant(projectId: projectId, tenantId: tenantId) else {
                throw AuthError.tenantNotFound
            }
            try await tx.deleteAllUsers(Scope(projectId: projectId, tenantId: tenantId))
        }
        return .object([:])
    }

    public func listTenants(projectId: String, pageSize: Int?, pageToken: String?) async throws -> JSONValue {
        var size = pageSize ?? 20
        if size == 0 { size = 20 }
        let limit = size < 0 ? nil : min(size, 1000)
        let tenants = try await store.read { tx in
            try await tx.listTenants(
                projectId: projectId, after: pageToken.flatMap { $0.isEmpty ? nil : $0 }, limit: limit)
        }
        var response: [String: JSONValue] = ["tenants": .array(tenants.map(ResourceDefaults.productionForm))]
        if let limit, tenants.count == limit, let last = tenants.last?["tenantId"] { response["nextPageToken"] = last }
        return .object(response)
    }
}

/// Checks the parts of config and tenant bodies that clients rely on being sane.
enum ConfigValidation {
    static func validateProjectConfig(_ config: JSONValue) throws(AuthError) {
        try validateMfa(config["mfa"], path: "mfa")
        try validateTestPhoneNumbers(config.value(at: "signIn.phoneNumber.testPhoneNumbers"))
        try EmulatorSettings.validate(config["emulatorSettings"])
        try validateRecaptcha(config["recaptchaConfig"])
        try validateBlockingFunctions(config.value(at: "blockingFunctions.triggers"))
        try SmsRegionPolicy.validate(config["smsRegionConfig"], path: "smsRegionConfig")
        if let handler = config.value(at: "notification.sendEmail.callbackUri"), handler != .null {
            guard let uri = handler.stringValue, uri.isEmpty || Validation.isAbsoluteURI(uri) else {
                throw AuthError("INVALID_CONFIG", "notification.sendEmail.callbackUri must be an absolute URL")
            }
        }
    }

    static let blockingEvents = Set(BlockingEvent.allCases.map(\.rawValue))

    /// firebase-tools' checks and messages: known events, absolute `functionUri`s. (The emulator
    /// stores the triggers but does not call them.)
    static func validateBlockingFunctions(_ triggers: JSONValue?) throws(AuthError) {
        for (event, trigger) in triggers?.objectValue ?? [:] {
            guard blockingEvents.contains(event) else {
                throw AuthError("INVALID_BLOCKING_FUNCTION", "((Event type is invalid.))")
            }
            guard let uri = trigger["functionUri"]?.stringValue, Validation.isAbsoluteURI(uri) else {
                throw AuthError("INVALID_BLOCKING_FUNCTION", "((Expected an absolute URI with valid scheme and host.))")
            }
        }
    }

    static let enforcementStates: Set<String> = [
        "OFF", "AUDIT", "ENFORCE", "RECAPTCHA_PROVIDER_ENFORCEMENT_STATE_UNSPECIFIED",
    ]

    static func validateRecaptcha(_ config: JSONValue?) throws(AuthError) {
        guard let config, config != .null else { return }
        guard config.objectValue != nil else { throw AuthError.invalidJSON("/recaptchaConfig must be object") }
        for key in ["phoneEnforcementState", "emailPasswordEnforcementState"] {
            if let state = config[key], !(state.stringValue.map(enforcementStates.contains) ?? false) {
                throw AuthError("INVALID_CONFIG", "recaptchaConfig.\(key) must be OFF, AUDIT or ENFORCE")
            }
        }
        for (index, key) in (config["recaptchaKeys"]?.arrayValue ?? []).enumerated() {
            guard let type = key["type"]?.stringValue, ["WEB", "IOS", "ANDROID"].contains(type) else {
                throw AuthError(
                    "INVALID_CONFIG", "recaptchaConfig.recaptchaKeys[\(index)].type must be WEB, IOS or ANDROID")
            }
        }
    }

    static func validateTenant(_ tenant: JSONValue) throws(AuthError) {
        try validateMfa(tenant["mfaConfig"], path: "mfaConfig")
        try validateTestPhoneNumbers(tenant["testPhoneNumbers"])
        try EmulatorSettings.validate(tenant["emulatorSettings"])
        try validateRecaptcha(tenant["recaptchaConfig"])
        try SmsRegionPolicy.validate(tenant["smsRegionConfig"], path: "smsRegionConfig")
    }

    static let mfaStates: Set<String> = ["STATE_UNSPECIFIED", "DISABLED", "ENABLED", "MANDATORY"]

    static func validateMfa(_ mfa: JSONValue?, path: String) throws(AuthError) {
        guard let mfa, mfa != .null else { return }
        guard mfa.objectValue != nil else { throw AuthError.invalidJSON("/\(path) must be object") }
        if let state = mfa["state"], !(state.stringValue.map(mfaStates.contains) ?? false) {
            throw AuthError("INVALID_CONFIG", "\(path).state must be one of DISABLED, ENABLED, MANDATORY")
        }
        for (index, provider) in (mfa["providerConfigs"]?.arrayValue ?? []).enumerated() {
            guard let interval = provider.value(at: "totpProviderConfig.adjacentIntervals"), interval != .null else {
                continue
            }
            guard let number = interval.doubleValue ?? interval.stringValue.flatMap(Double.init),
                number.rounded() == number, (0...10).contains(number)
            else {
                throw AuthError(
                    "INVALID_CONFIG",
                    "\(path).providerConfigs[\(index)].totpProviderConfig.adjacentIntervals must be an integer from 0 to 10"
                )
            }
        }
    }

    static func validateTestPhoneNumbers(_ numbers: JSONValue?) throws(AuthError) {
        guard let numbers, numbers != .null else { return }
        guard let map = numbers.objectValue else { throw AuthError.invalidJSON("/testPhoneNumbers must be object") }
        if map.count > 10 { throw AuthError("INVALID_CONFIG", "At most 10 test phone numbers are allowed") }
        for (phone, code) in map {
            guard Validation.isPhoneNumber(phone) else {
                throw AuthError("INVALID_CONFIG", "Invalid test phone number: \(phone)")
            }
            guard let code = code.stringValue, code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw AuthError("INVALID_CONFIG", "Invalid test code for \(phone): must be 6 digits")
            }
        }
    }

    /// The Node Admin SDK asserts `state` in every MFA config and provider config it reads back.
    static func normalizeMfa(_ resource: JSONValue, key: String) -> JSONValue {
        guard var mfa = resource[key]?.objectValue else {
            return resource.setting([key], to: .object(["state": "DISABLED"]))
        }
        if mfa["state"] == nil { mfa["state"] = "DISABLED" }
        if let providers = mfa["providerConfigs"]?.arrayValue {
            mfa["providerConfigs"] = .array(
                providers.map { provider in
                    guard case .object(var fields) = provider else { return provider }
                    if fields["state"] == nil { fields["state"] = "DISABLED" }
                    return .object(fields)
                })
        }
        return resource.setting([key], to: .object(mfa))
    }
}
