import Foundation

/// `accounts:update` (v3 `setAccountInfo`): profile, password, email, phone, claims, factors.
public struct UpdateAccountRequest: Decodable, Sendable {
    public struct Mfa: Decodable, Sendable {
        public var enrollments: [MfaEnrollmentInput]?
    }
    public var idToken: String?
    public var localId: String?
    public var oobCode: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoUrl: String?
    public var deleteAttribute: [String]?
    public var deleteProvider: [String]?
    public var emailVerified: Bool?
    public var disableUser: Bool?
    public var phoneNumber: String?
    public var customAttributes: String?
    public var validSince: String?
    public var createdAt: String?
    public var lastLoginAt: String?
    public var mfa: Mfa?
    /// Stored as sent (no `federatedId` is made up); `providerId` and `rawId` are checked.
    public var linkProviderUserInfo: BatchCreateRequest.ImportedProvider?
    public var provider: [String]?
    public var upgradeToFederatedLogin: Bool?
    /// Credential ids of passkeys to remove.
    public var deletePasskey: [String]?
}

extension Emulator {
    /// `accounts:update` (v3 `setAccountInfo`): an email action code alone (no ID token, not an
    /// admin) applies that code; anything else changes the account.
    public func updateAccount(_ request: UpdateAccountRequest, caller: Caller) async throws -> JSONValue {
        if let code = request.oobCode, request.idToken == nil, !caller.isAdmin {
            return try await applyOobCode(code, caller: caller)
        }
        if request.provider != nil || request.upgradeToFederatedLogin != nil {
            throw AuthError.notImplemented("accounts:update with provider")
        }
        let recoveryCode = random.base64URL(54)
        let (now, nowMillis) = (clock.now(), nowMillisString)
        typealias Outcome = (change: AccountChange, claims: IdTokenClaims?, recovery: OobCode?)
        let outcome: Outcome = try await store.write { tx in
            let settings = try await self.enabledSettings(tx, caller.scope)
            let (user, claims) = try await self.updateTarget(tx, request, caller: caller)
            var change = AccountChange(
                user: user, request: request, scope: caller.scope, now: now,
                anonymousSession: claims?.signInProvider == "anonymous")
            try change.applyProfile()
            try await change.applyEmail(tx)
            try change.applyPassword(settings.passwordRules, random: self.random, nowMillis: nowMillis)
            change.applyFlags()
            try await change.applyPhone(tx)
            change.applyDeletions()
            try await change.applyLinkedProvider(tx)
            try change.applyAdminFields(isAdmin: caller.isAdmin, random: self.random)
            if request.mfa != nil { try settings.emulator.admitFactors(change.user) }
            try await tx.save(caller.scope, change.user)
            let recovery = try await self.recoveryCode(tx, change, code: recoveryCode, caller: caller)
            return (change, claims, recovery)
        }
        if let recovery = outcome.recovery { logOobCode(recovery, scope: caller.scope) }
        return try await updateResponse(outcome.change, claims: outcome.claims, caller: caller)
    }

    /// The account a request changes: the ID token's user, or (admin) the one `localId` names.
    /// Fields only an admin may set are refused to anyone else.
    func updateTarget(_ tx: any StoreTransaction, _ request: UpdateAccountRequest, caller: Caller) async throws
        -> (UserRecord, IdTokenClaims?)
    {
        let target: (UserRecord, IdTokenClaims?)
        if let idToken = request.idToken {
            let claims = try tokens.decodeIdToken(idToken)
            target = (try await Emulator.userForIdToken(tx, claims, scope: caller.scope), claims)
            if request.disableUser != nil { throw AuthError.operationNotAllowed }
        } else if caller.isAdmin {
            guard let localId = request.localId else { throw AuthError.missingLocalId }
            guard let found = try await tx.user(caller.scope, localId: localId) else { throw AuthError.userNotFound }
            target = (found, nil)
        } else if request.oobCode != nil {
            throw AuthError.notImplemented("accounts:update with oobCode")
        } else {
            throw AuthError("INVALID_REQ_TYPE", "Unsupported request parameters.")
        }
        if !caller.isAdmin,
            request.customAttributes != nil || request.emailVerified != nil || request.createdAt != nil
                || request.lastLoginAt != nil
        {
            throw AuthError.insufficientPermission
        }
        return target
    }

    /// The RECOVER_EMAIL code mailed to a signed-in user's first address when it changed.
    func recoveryCode(_ tx: any StoreTransaction, _ change: AccountChange, code: String, caller: Caller) async throws
        -> OobCode?
    {
        guard change.emailChanged, !change.anonymousSession, let initial = change.user.initialEmail else { return nil }
        let recovery = OobCode(
            email: initial, requestType: .recoverEmail, oobCode: code,
            oobLink: Emulator.actionLink(
                handler: try await settings(tx, caller.scope).actionHandlerURL
                    ?? "\(options.linkBase(for: caller))/emulator/action",
                mode: OobRequestType.recoverEmail.actionMode, code: code, continueUrl: nil,
                tenantId: caller.scope.tenantId),
            localId: change.user.localId, createdAt: change.now.timeIntervalSince1970 * 1000)
        try await tx.saveOobCode(caller.scope, recovery)
        return recovery
    }

    /// The account's profile, and new tokens when the change ends the caller's session.
    func updateResponse(_ change: AccountChange, claims: IdTokenClaims?, caller: Caller) async throws -> JSONValue {
        var response = Emulator.accountInfoResponse(change.user)
        if let email = change.request.email { response["newEmail"] = .string(email.lowercased()) }
        if let claims, change.reissue {
            // Setting a password makes the new session a password one (an anonymous user linking
            // email and password comes out signed in with it).
            let provider = change.request.password != nil ? "password" : claims.signInProvider
            var grant = SessionGrant(
                user: change.user, scope: caller.scope, provider: provider, secondFactor: claims.secondFactor)
            grant.authTime = claims.authTime
            for (key, value) in try await issueTokens(grant) { response[key] = value }
        }
        return .object(response)
    }

    /// The `SetAccountInfoResponse` body: the account's profile and providers, the hash redacted.
    static func accountInfoResponse(_ user: UserRecord) -> [String: JSONValue] {
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#SetAccountInfoResponse", "localId": .string(user.localId),
            "emailVerified": .bool(user.emailVerified ?? false),
            "providerUserInfo": .array(user.providers.map(\.jsonValue)),
        ]
        response.setIfPresent("email", user.email.map(JSONValue.string))
        response.setIfPresent("displayName", user.displayName.map(JSONValue.string))
        response.setIfPresent("photoUrl", user.photoUrl.map(JSONValue.string))
        if user.hasPassword { response["passwordHash"] = .string(PasswordHasher.redacted) }
        return response
    }

    /// `mfa.enrollments` replaces the list: ids must be unique, a factor without one gets a new
    /// one; an empty list clears every factor. Enrollments that already exist keep their TOTP secret.
    static func replaceEnrollments(
        _ inputs: [MfaEnrollmentInput], of user: UserRecord, random: any RandomSource, now: Date
    ) throws -> [MfaEnrollment]? {
        var seen = Set<String>()
        var seenPhones = Set<String>()
        var result: [MfaEnrollment] = []
        for input in inputs {
            // As firebase-tools: a phone already listed is skipped before its id is looked at.
            if let phone = input.phoneInfo {
                guard Validation.isPhoneNumber(phone) else {
                    throw AuthError("INVALID_MFA_PHONE_NUMBER", "Invalid format.")
                }
                guard seenPhones.insert(phone).inserted else { continue }
            }
            // Production (and the Admin SDKs' documentation) gives a factor without an id a new one;
            // firebase-tools refuses it with INVALID_MFA_ENROLLMENT_ID, which the SDKs show as an
            // internal error.
            var input = input
            if input.mfaEnrollmentId?.isEmpty != false { input.mfaEnrollmentId = random.alphanumeric(28) }
            let id = input.mfaEnrollmentId!
            guard seen.insert(id).inserted else { throw AuthError("DUPLICATE_MFA_ENROLLMENT_ID") }
            if let existing = user.enrollments.first(where: { $0.mfaEnrollmentId == id }), input.phoneInfo == nil,
                input.totpInfo != nil || existing.totpInfo != nil
            {
                var kept = existing
                if let name = input.displayName { kept.displayName = name }
                result.append(kept)
                continue
            }
            guard let record = try MfaEnrollmentInput.records([input], random: random, now: now)?.first
            else { continue }
            result.append(record)
        }
        return result.isEmpty ? nil : result
    }

    /// `accounts:delete` (v3 `deleteAccount`): by `idToken`, or by `localId` for admins.
    public func deleteAccount(idToken: String?, localId: String?, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        try await store.write { tx in
            try await self.enabledSettings(tx, scope)
            let target: UserRecord?
            if caller.isAdmin {
                // As firebase-tools: the admin form names the account; an ID token does not.
                guard let localId else { throw AuthError.missingLocalId }
                target = try await tx.user(scope, localId: localId)
            } else if let idToken {
                let claims = try self.tokens.decodeIdToken(idToken)
                target = try await Emulator.userForIdToken(tx, claims, scope: scope)
            } else {
                throw AuthError.missingIdToken
            }
            guard let target, try await tx.deleteUser(scope, localId: target.localId) else {
                throw AuthError.userNotFound
            }
            self.recordDeleted(tx, target, scope: scope)
        }
        return .object(["kind": "identitytoolkit#DeleteAccountResponse"])
    }
}
