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
    public var linkProviderUserInfo: ProviderUserInfo?
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
        let (user, claims, reissue): (UserRecord, IdTokenClaims?, Bool) = try await store.write { tx in
            let settings = try self.settings(tx, scope)
            if settings.disableAuth { throw AuthError.projectDisabled }
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
                if request.customAttributes != nil || request.emailVerified != nil || request.validSince != nil
                    || request.createdAt != nil || request.lastLoginAt != nil
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
            if let email = request.email {
                guard Validation.isEmail(email) else { throw AuthError.invalidEmail }
                let normalized = email.lowercased()
                if try tx.users(scope, email: normalized).contains(where: { $0.localId != user.localId }) {
                    throw AuthError.emailExists
                }
                if user.email != normalized {
                    user.email = normalized
                    user.emailVerified = false
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
            for providerId in request.deleteProvider ?? [] {
                user.removeProvider(providerId)
                if providerId == "phone" { user.phoneNumber = nil }
                if providerId == "password" {
                    user.passwordHash = nil
                    user.salt = nil
                }
            }
            if let link = request.linkProviderUserInfo {
                guard !link.providerId.isEmpty else { throw AuthError("MISSING_PROVIDER_ID") }
                guard let rawId = link.rawId, !rawId.isEmpty else { throw AuthError("MISSING_RAW_ID") }
                if let owner = try tx.user(scope, providerId: link.providerId, rawId: rawId),
                    owner.localId != user.localId
                {
                    throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED")
                }
                var info = link
                info.federatedId = info.federatedId ?? rawId
                user.upsertProvider(info)
            }
            if let attributes = request.customAttributes {
                user.customAttributes = try CustomClaims.validate(attributes)
            }
            if let validSince = request.validSince {
                user.validSince = validSince
                reissue = true
            }
            if let createdAt = request.createdAt { user.createdAt = createdAt }
            if let lastLoginAt = request.lastLoginAt { user.lastLoginAt = lastLoginAt }
            if let mfa = request.mfa {
                user.mfaInfo = try Emulator.replaceEnrollments(
                    mfa.enrollments ?? [], of: user, random: random, now: now)
            }
            try tx.save(scope, user)
            return (user, claims, reissue)
        }
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#SetAccountInfoResponse", "localId": .string(user.localId),
            "emailVerified": .bool(user.emailVerified ?? false),
            "providerUserInfo": .array(user.providers.map(\.jsonValue)),
        ]
        if let email = user.email { response["email"] = .string(email) }
        if let name = user.displayName { response["displayName"] = .string(name) }
        if let photo = user.photoUrl { response["photoUrl"] = .string(photo) }
        if user.hasPassword { response["passwordHash"] = .string(PasswordHasher.redacted) }
        if let claims, reissue || request.password != nil {
            let grant = SessionGrant(
                user: user, scope: scope, provider: claims.signInProvider, secondFactor: claims.secondFactor)
            for (key, value) in try await issueTokens(grant) { response[key] = value }
        }
        return .object(response)
    }

    /// `mfa.enrollments` replaces the list: ids are required and must be unique; an empty list
    /// clears every factor. Enrollments that already exist keep their TOTP secret.
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
            guard let id = input.mfaEnrollmentId, !id.isEmpty else {
                throw AuthError("INVALID_MFA_ENROLLMENT_ID", "mfaEnrollmentId must be defined.")
            }
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
            let settings = try self.settings(tx, scope)
            if settings.disableAuth { throw AuthError.projectDisabled }
            let target: String
            if let idToken {
                let claims = try self.tokens.decodeIdToken(idToken)
                target = try Emulator.userForIdToken(tx, claims, scope: scope).localId
            } else if caller.isAdmin {
                guard let localId else { throw AuthError.missingLocalId }
                target = localId
            } else {
                throw AuthError.missingIdToken
            }
            guard try tx.deleteUser(scope, localId: target) else { throw AuthError.userNotFound }
        }
        return .object(["kind": "identitytoolkit#DeleteAccountResponse"])
    }
}
