import Foundation

extension ScopeSettings {
    func enforcementState(_ key: String) -> String { recaptcha[key]?.stringValue ?? "OFF" }
}

extension Emulator {
    /// Checks the app credential of an SMS request when the scope's policy is `enforce`, and
    /// returns the path it passed (`none` when the policy is off).
    static func verifyApp(
        _ tx: any StoreTransaction, _ fields: PhoneCodeRequest, scope: Scope, settings: ScopeSettings,
        injectedFailure: Bool
    ) async throws -> String {
        guard settings.emulator.appVerificationEnforced else { return "none" }
        if injectedFailure { throw AuthError("INVALID_APP_CREDENTIAL") }
        let state = settings.enforcementState("phoneEnforcementState")
        func valid(_ token: String?, _ kinds: Set<AppCredentialKind>) async throws -> IssuedCredential? {
            guard let token, let credential = try await tx.credential(token), credential.valid,
                kinds.contains(credential.kind),
                credential.projectId == scope.projectId, credential.tenantId == scope.tenantId
            else { return nil }
            return credential
        }
        let enterprise = fields.captchaResponse.flatMap { $0.isEmpty || $0 == "NO_RECAPTCHA" ? nil : $0 }
        if state == "ENFORCE" {
            try checkEnterpriseShape(fields)
            guard let enterprise else { throw AuthError("MISSING_RECAPTCHA_TOKEN") }
            guard try await valid(enterprise, [.recaptchaEnterprise]) != nil else {
                throw AuthError("INVALID_RECAPTCHA_TOKEN")
            }
            return "recaptcha-enterprise"
        }
        if state == "AUDIT", try await valid(enterprise, [.recaptchaEnterprise]) != nil {
            return "recaptcha-enterprise"
        }
        if fields.iosReceipt != nil || fields.iosSecret != nil {
            guard let receipt = try await valid(fields.iosReceipt, [.apns]), receipt.secret == fields.iosSecret else {
                throw AuthError("INVALID_APP_CREDENTIAL")
            }
            return "apns"
        }
        if let token = fields.recaptchaToken, !token.isEmpty {
            guard try await valid(token, [.recaptchaV2]) != nil else { throw AuthError("CAPTCHA_CHECK_FAILED") }
            return "recaptcha"
        }
        if let token = fields.playIntegrityToken ?? fields.safetyNetToken, !token.isEmpty {
            guard try await valid(token, [.playIntegrity, .safetyNet]) != nil else {
                throw AuthError("INVALID_APP_CREDENTIAL")
            }
            return "play-integrity"
        }
        if state == "AUDIT" { throw AuthError("MISSING_RECAPTCHA_TOKEN") }
        if fields.clientType == "CLIENT_TYPE_ANDROID" { throw AuthError("MISSING_CLIENT_IDENTIFIER") }
        throw AuthError("MISSING_APP_CREDENTIAL")
    }

    /// Uses up one injected credential failure, in its own transaction so that it stays used
    /// when the request then fails. Without enforcement (the cached settings say so) there is
    /// nothing to use up, and no write.
    func takeCredentialFault(_ scope: Scope) async throws -> Bool {
        if let cached = settingsCache.lookup(scope).0, !cached.emulator.appVerificationEnforced { return false }
        return try await store.write { tx in
            guard try await self.settings(tx, scope, create: false).emulator.appVerificationEnforced else {
                return false
            }
            return try await tx.takeFault(scope, .credential)
        }
    }

    /// reCAPTCHA Enterprise requests must say which client and version they come from.
    static func checkEnterpriseShape(_ fields: PhoneCodeRequest) throws {
        guard let clientType = fields.clientType, !clientType.isEmpty else { throw AuthError("MISSING_CLIENT_TYPE") }
        guard let version = fields.recaptchaVersion, !version.isEmpty else {
            throw AuthError("MISSING_RECAPTCHA_VERSION")
        }
        guard version == "RECAPTCHA_ENTERPRISE" else { throw AuthError("INVALID_RECAPTCHA_VERSION") }
    }

    /// Email/password flows under `emailPasswordEnforcementState` (when the policy is `enforce`).
    static func verifyPasswordRecaptcha(
        _ tx: any StoreTransaction, token: String?, clientType: String?, version: String?, scope: Scope,
        settings: ScopeSettings
    ) async throws {
        guard settings.emulator.appVerificationEnforced,
            settings.enforcementState("emailPasswordEnforcementState") == "ENFORCE"
        else { return }
        try checkEnterpriseShape(PhoneCodeRequest(clientType: clientType, recaptchaVersion: version))
        guard let token, !token.isEmpty, token != "NO_RECAPTCHA" else { throw AuthError("MISSING_RECAPTCHA_TOKEN") }
        guard let credential = try await tx.credential(token), credential.valid,
            credential.kind == .recaptchaEnterprise,
            credential.projectId == scope.projectId, credential.tenantId == scope.tenantId
        else { throw AuthError("INVALID_RECAPTCHA_TOKEN") }
    }

    /// `accounts:verifyIosClient` (v3 `verifyClient`): issues a receipt now and "sends" the secret
    /// by silent push to the APNs outbox (unless a test asked the push to get lost).
    public func verifyIosClient(appToken: String?, isSandbox: Bool?, caller: Caller) async throws -> JSONValue {
        guard let appToken, !appToken.isEmpty else { throw AuthError("MISSING_IOS_APP_TOKEN") }
        let scope = caller.scope
        let receipt = random.base64URL(64)
        let secret = random.base64URL(24)
        let now = clock.now()
        let push: ApnsPush? = try await store.write { tx in
            try await self.enabledSettings(tx, scope)
            try await tx.saveCredential(
                IssuedCredential(
                    token: receipt, kind: .apns, projectId: scope.projectId, tenantId: scope.tenantId, secret: secret,
                    appToken: appToken, valid: true, createdAt: now))
            if try await tx.takeFault(scope, .apnsPush) { return nil }
            return try await tx.insertPush(
                ApnsPush(
                    id: 0, projectId: scope.projectId, tenantId: scope.tenantId, deviceToken: appToken,
                    isSandbox: isSandbox ?? false, receipt: receipt, secret: secret, sentAt: now))
        }
        if let push {
            logger.info(
                "APNs silent push to device \(push.deviceToken): receipt \(receipt), secret \(secret)",
                metadata: ["event": "apns", "project": "\(scope.projectId)", "tenant": "\(scope.tenantId ?? "")"])
            await pushSignal.notify()
        }
        return .object(["receipt": .string(receipt), "suggestedTimeout": "5"])
    }

    /// Mints a credential a test can send (`valid: false` mints one that is refused).
    public func mintAppCredential(kind: AppCredentialKind, valid: Bool, scope: Scope) async throws -> JSONValue {
        guard kind != .apns else {
            throw AuthError("INVALID_ARGUMENT", "APNs receipts come from accounts:verifyIosClient")
        }
        let token = "authemu-\(kind.rawValue.lowercased())-\(random.base64URL(32))"
        let credential = IssuedCredential(
            token: token, kind: kind, projectId: scope.projectId, tenantId: scope.tenantId, valid: valid,
            createdAt: clock.now())
        try await store.write { tx in try await tx.saveCredential(credential) }
        return .object(["token": .string(token), "kind": .string(kind.rawValue), "valid": .bool(valid)])
    }

    /// Arms `count` faults; `playerId` narrows a `GAME_CENTER` fault to that player's sign-ins
    /// (its team, game or legacy player id).
    public func injectFault(_ fault: InjectedFault, playerId: String? = nil, count: Int, scope: Scope) async throws
        -> JSONValue
    {
        guard (0...1000).contains(count) else { throw AuthError("INVALID_ARGUMENT", "count must be from 0 to 1000") }
        if let playerId {
            guard fault == .gameCenter else {
                throw AuthError("INVALID_ARGUMENT", "playerId goes with GAME_CENTER only")
            }
            guard !playerId.isEmpty else { throw AuthError("INVALID_ARGUMENT", "playerId must not be empty") }
        }
        try await store.write { tx in try await tx.setFault(scope, key: fault.key(subject: playerId), count: count) }
        var answer: [String: JSONValue] = ["fault": .string(fault.rawValue), "remaining": .number(Double(count))]
        answer.setIfPresent("playerId", playerId.map(JSONValue.string))
        return .object(answer)
    }

    public func apnsPushes(_ scope: Scope, afterId: Int64?, limit: Int?, wait: Double) async throws -> [ApnsPush] {
        try await longPoll(pushSignal, wait: wait) { tx in
            try await tx.listPushes(scope, afterId: afterId, limit: limit)
        }
    }

    public func clearApnsPushes(_ scope: Scope) async throws {
        try await store.write { tx in try await tx.deletePushes(scope) }
    }

    /// `GET v2/recaptchaConfig` derived from the scope's `recaptchaConfig`.
    public func recaptchaConfig(clientType: String?, version: String?, caller: Caller) async throws -> JSONValue {
        guard let clientType, !clientType.isEmpty else { throw AuthError("MISSING_CLIENT_TYPE") }
        guard let version, !version.isEmpty else { throw AuthError("MISSING_RECAPTCHA_VERSION") }
        guard version == "RECAPTCHA_ENTERPRISE" else { throw AuthError("INVALID_RECAPTCHA_VERSION") }
        let scope = caller.scope
        let settings = try await store.read { tx in try await self.settings(tx, scope, create: false) }
        let type =
            switch clientType {
            case "CLIENT_TYPE_IOS": "IOS"
            case "CLIENT_TYPE_ANDROID": "ANDROID"
            default: "WEB"
            }
        let configured = (settings.recaptcha["recaptchaKeys"]?.arrayValue ?? []).first {
            $0["type"]?.stringValue == type
        }?[
            "key"]?.stringValue
        let key = configured ?? "authemu-fake-\(type.lowercased())-site-key"
        let resource = key.hasPrefix("projects/") ? key : "projects/\(scope.projectId)/keys/\(key)"
        return .object([
            "recaptchaKey": .string(resource),
            "recaptchaEnforcementState": .array([
                .object([
                    "provider": "EMAIL_PASSWORD_PROVIDER",
                    "enforcementState": .string(settings.enforcementState("emailPasswordEnforcementState")),
                ]),
                .object([
                    "provider": "PHONE_PROVIDER",
                    "enforcementState": .string(settings.enforcementState("phoneEnforcementState")),
                ]),
            ]),
            "useSmsBotScore": .bool(settings.recaptcha["useSmsBotScore"]?.boolValue ?? false),
            "useSmsTollFraudProtection": .bool(settings.recaptcha["useSmsTollFraudProtection"]?.boolValue ?? false),
        ])
    }
}
