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
    public func updateAccount(_ request: UpdateAccountRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        if request.provider != nil || request.upgradeToFederatedLogin != nil {
            throw AuthError.notImplemented("accounts:update with provider")
        }
        let random = self.random
        let now = clock.now()
        let nowMillis = nowMillisString
        let recoveryCode = random.base64URL(54)
        let options = self.options
        typealias Outcome = (user: UserRecord, claims: IdTokenClaims?, reissue: Bool, recovery: OobCode?)
        let (user, claims, reissue, recovery): Outcome = try await store.write { tx in
            let settings = try self.enabledSettings(tx, scope)
            var user: UserRecord
            var claims: IdTokenClaims?
            if let idToken = request.idToken {
                let decoded = try self.tokens.decodeIdToken(idToken)
                user = try Emulator.userForIdToken(tx, decoded, scope: scope)
                claims = decoded
                if request.disableUser != nil { throw AuthError.operationNotAllowed }
            } else if caller.isAdmin {
                guard let localId = request.localId else { throw AuthError.missingLocalId }
                guard let found = try tx.user(scope, localId: localId) else { throw AuthError.userNotFound }
                user = found
            } else if request.oobCode != nil {
                throw AuthError.notImplemented("accounts:update with oobCode")
            } else {
                throw AuthError("INVALID_REQ_TYPE", "Unsupported request parameters.")
            }
            if !caller.isAdmin {
                if request.customAttributes != nil || request.emailVerified != nil || request.createdAt != nil
                    || request.lastLoginAt != nil
                {
                    throw AuthError.insufficientPermission
                }
            }
            var reissue = false
            let deletes = Set(request.deleteAttribute ?? [])
            if deletes.contains("DISPLAY_NAME") { user.displayName = nil }
            if deletes.contains("PHOTO_URL") { user.photoUrl = nil }
            if deletes.contains("PROVIDER") || deletes.contains("RAW_USER_INFO") {
                throw AuthError.notImplemented("deleteAttribute \(deletes.sorted().joined(separator: ","))")
            }
            if let name = request.displayName, !deletes.contains("DISPLAY_NAME") { user.displayName = name }
            if let photo = request.photoUrl, !deletes.contains("PHOTO_URL") { user.photoUrl = photo }
            // As firebase-tools: a signed-in (not anonymous) user's first address is kept as
            // `initialEmail`, and changing it mails a RECOVER_EMAIL code there.
            let anonymousSession = claims?.signInProvider == "anonymous"
            var emailChanged = false
            if let email = request.email {
                guard Validation.isEmail(email) else { throw AuthError.invalidEmail }
                let normalized = email.lowercased()
                if user.email != normalized {
                    if try !tx.users(scope, email: normalized).isEmpty { throw AuthError.emailExists }
                    if !anonymousSession, let old = user.email, user.initialEmail == nil { user.initialEmail = old }
                    user.email = normalized
                    user.emailVerified = false
                    user.validSince = String(now.epochSeconds)
                    emailChanged = true
                    reissue = true
                    if user.hasPassword {
                        user.upsertProvider(
                            ProviderUserInfo(
                                providerId: "password", rawId: normalized, federatedId: normalized, email: normalized))
                    }
                }
            }
            if let password = request.password {
                try settings.passwordRules.check(newPassword: password)
                user.setPassword(password, random: random, nowMillis: nowMillis)
                user.validSince = String(now.epochSeconds)
                reissue = true
            }
            if let verified = request.emailVerified { user.emailVerified = verified }
            if let disabled = request.disableUser { user.disabled = disabled }
            if let phone = request.phoneNumber, !(request.deleteProvider ?? []).contains("phone") {
                guard Validation.isPhoneNumber(phone) else { throw AuthError.invalidPhoneNumber }
                if let owner = try tx.user(scope, phoneNumber: phone), owner.localId != user.localId {
                    throw AuthError.phoneNumberExists
                }
                user.phoneNumber = phone
                user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
            }
            if let deletePasskey = request.deletePasskey, let passkeys = user.passkeyInfo {
                user.passkeyInfo = passkeys.filter { !deletePasskey.contains($0.credentialId) }
            }
            if deletes.contains("PASSWORD") { user.clearPassword() }
            if deletes.contains("EMAIL") { user.clearEmail() }
            for providerId in request.deleteProvider ?? [] {
                user.removeProvider(providerId)
                if providerId == "phone" { user.phoneNumber = nil }
                // As firebase-tools: the email/password credential goes with its address.
                if providerId == "password" {
                    user.clearPassword()
                    user.clearEmail()
                }
            }
            if let link = request.linkProviderUserInfo {
                guard let providerId = link.providerId, !providerId.isEmpty else {
                    throw AuthError("MISSING_PROVIDER_ID")
                }
                guard let rawId = link.rawId, !rawId.isEmpty else { throw AuthError("MISSING_RAW_ID") }
                if let owner = try tx.user(scope, providerId: providerId, rawId: rawId), owner.localId != user.localId {
                    throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED")
                }
                user.upsertProvider(
                    ProviderUserInfo(
                        providerId: providerId, rawId: rawId, federatedId: link.federatedId, email: link.email,
                        displayName: link.displayName, photoUrl: link.photoUrl, phoneNumber: link.phoneNumber,
                        screenName: link.screenName))
            }
            if let attributes = request.customAttributes {
                user.customAttributes = try CustomClaims.validate(attributes)
            }
            if let validSince = request.validSince {
                // A signed-in user revoking their other sessions: tokens before now end, and this
                // request gets new ones (firebase-tools). The admin credential sets the value sent.
                user.validSince = caller.isAdmin ? validSince : String(now.epochSeconds)
                reissue = true
            }
            if let createdAt = request.createdAt { user.createdAt = createdAt }
            if let lastLoginAt = request.lastLoginAt { user.lastLoginAt = lastLoginAt }
            if let mfa = request.mfa {
                user.mfaInfo = try Emulator.replaceEnrollments(
                    mfa.enrollments ?? [], of: user, random: random, now: now)
            }
            try tx.save(scope, user)
            var recovery: OobCode?
            if emailChanged, !anonymousSession, let initial = user.initialEmail {
                let code = OobCode(
                    email: initial, requestType: .recoverEmail, oobCode: recoveryCode,
                    oobLink: Emulator.actionLink(
                        base: options.linkBase(for: caller), mode: OobRequestType.recoverEmail.actionMode,
                        code: recoveryCode,
                        continueUrl: nil, tenantId: scope.tenantId),
                    localId: user.localId, createdAt: now.timeIntervalSince1970 * 1000)
                try tx.saveOobCode(scope, code)
                recovery = code
            }
            return (user, claims, reissue, recovery)
        }
        if let recovery { logOobCode(recovery, scope: scope) }
        var response = Emulator.accountInfoResponse(user)
        if let email = request.email { response["newEmail"] = .string(email.lowercased()) }
        if let claims, reissue {
            // Setting a password makes the new session a password one (an anonymous user linking
            // email and password comes out signed in with it).
            let provider = request.password != nil ? "password" : claims.signInProvider
            var grant = SessionGrant(user: user, scope: scope, provider: provider, secondFactor: claims.secondFactor)
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
            try self.enabledSettings(tx, scope)
            let target: String
            if caller.isAdmin {
                // As firebase-tools: the admin form names the account; an ID token does not.
                guard let localId else { throw AuthError.missingLocalId }
                target = localId
            } else if let idToken {
                let claims = try self.tokens.decodeIdToken(idToken)
                target = try Emulator.userForIdToken(tx, claims, scope: scope).localId
            } else {
                throw AuthError.missingIdToken
            }
            guard try tx.deleteUser(scope, localId: target) else { throw AuthError.userNotFound }
        }
        return .object(["kind": "identitytoolkit#DeleteAccountResponse"])
    }
}
