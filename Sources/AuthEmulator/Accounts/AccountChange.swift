import Foundation

/// One `accounts:update` applied to an account, step by step in firebase-tools' order: profile,
/// email, password, flags, phone, deletions, a linked provider, the admin-only fields. Each step
/// is one idea; `reissue` says whether the caller's session gets new tokens.
struct AccountChange {
    var user: UserRecord
    let request: UpdateAccountRequest
    let scope: Scope
    let now: Date
    /// A session of an anonymous user: its first address is not kept for recovery.
    let anonymousSession: Bool
    var reissue = false
    var emailChanged = false

    var deletes: Set<String> { Set(request.deleteAttribute ?? []) }

    mutating func applyProfile() throws {
        if deletes.contains("DISPLAY_NAME") { user.displayName = nil }
        if deletes.contains("PHOTO_URL") { user.photoUrl = nil }
        if deletes.contains("PROVIDER") || deletes.contains("RAW_USER_INFO") {
            throw AuthError.notImplemented("deleteAttribute \(deletes.sorted().joined(separator: ","))")
        }
        if let name = request.displayName, !deletes.contains("DISPLAY_NAME") { user.displayName = name }
        if let photo = request.photoUrl, !deletes.contains("PHOTO_URL") { user.photoUrl = photo }
    }

    /// As firebase-tools: a signed-in (not anonymous) user's first address is kept as
    /// `initialEmail`, and changing it mails a RECOVER_EMAIL code there.
    mutating func applyEmail(_ tx: any StoreTransaction) async throws {
        guard let email = request.email else { return }
        guard Validation.isEmail(email) else { throw AuthError.invalidEmail }
        let normalized = email.lowercased()
        guard user.email != normalized else { return }
        if try await !tx.users(scope, email: normalized).isEmpty { throw AuthError.emailExists }
        if !anonymousSession, let old = user.email, user.initialEmail == nil { user.initialEmail = old }
        user.email = normalized
        user.emailVerified = false
        user.validSince = String(now.epochSeconds)
        emailChanged = true
        reissue = true
        if user.hasPassword {
            user.upsertProvider(
                ProviderUserInfo(providerId: "password", rawId: normalized, federatedId: normalized, email: normalized))
        }
    }

    mutating func applyPassword(_ rules: PasswordPolicy, random: any RandomSource, nowMillis: String) throws {
        guard let password = request.password else { return }
        try rules.check(newPassword: password)
        user.setPassword(password, random: random, nowMillis: nowMillis)
        user.validSince = String(now.epochSeconds)
        reissue = true
    }

    mutating func applyFlags() {
        if let verified = request.emailVerified { user.emailVerified = verified }
        if let disabled = request.disableUser { user.disabled = disabled }
    }

    mutating func applyPhone(_ tx: any StoreTransaction) async throws {
        guard let phone = request.phoneNumber, !(request.deleteProvider ?? []).contains("phone") else { return }
        guard Validation.isPhoneNumber(phone) else { throw AuthError.invalidPhoneNumber }
        if let owner = try await tx.user(scope, phoneNumber: phone), owner.localId != user.localId {
            throw AuthError.phoneNumberExists
        }
        user.phoneNumber = phone
        user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
    }

    mutating func applyDeletions() {
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
    }

    /// `linkProviderUserInfo`: stored as sent; `providerId` and `rawId` are checked.
    mutating func applyLinkedProvider(_ tx: any StoreTransaction) async throws {
        guard let link = request.linkProviderUserInfo else { return }
        guard let providerId = link.providerId, !providerId.isEmpty else { throw AuthError("MISSING_PROVIDER_ID") }
        guard let rawId = link.rawId, !rawId.isEmpty else { throw AuthError("MISSING_RAW_ID") }
        if let owner = try await tx.user(scope, providerId: providerId, rawId: rawId), owner.localId != user.localId {
            throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED")
        }
        user.upsertProvider(
            ProviderUserInfo(
                providerId: providerId, rawId: rawId, federatedId: link.federatedId, email: link.email,
                displayName: link.displayName, photoUrl: link.photoUrl, phoneNumber: link.phoneNumber,
                screenName: link.screenName))
    }

    /// Claims, revocation, times and factors (the first and the last two need the admin credential).
    mutating func applyAdminFields(isAdmin: Bool, random: any RandomSource) throws {
        if let attributes = request.customAttributes { user.customAttributes = try CustomClaims.validate(attributes) }
        if let validSince = request.validSince {
            // A signed-in user revoking their other sessions: tokens before now end, and this
            // request gets new ones (firebase-tools). The admin credential sets the value sent.
            user.validSince = isAdmin ? validSince : String(now.epochSeconds)
            reissue = true
        }
        if let createdAt = request.createdAt { user.createdAt = createdAt }
        if let lastLoginAt = request.lastLoginAt { user.lastLoginAt = lastLoginAt }
        if let mfa = request.mfa {
            user.mfaInfo = try Emulator.replaceEnrollments(mfa.enrollments ?? [], of: user, random: random, now: now)
        }
    }
}
