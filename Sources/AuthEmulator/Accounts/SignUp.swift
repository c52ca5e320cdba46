import Foundation

/// `accounts:signUp` (and admin `projects/{p}/accounts`).
public struct SignUpRequest: Decodable, Sendable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoUrl: String?
    public var idToken: String?
    public var localId: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var disabled: Bool?
    public var mfaInfo: [MfaEnrollmentInput]?
    public var captchaResponse: String?
    public var clientType: String?
    public var recaptchaVersion: String?
}

/// An enrollment as the Admin SDKs send it in create/update/import (`mfaInfo`, `mfa.enrollments`).
public struct MfaEnrollmentInput: Decodable, Sendable {
    public var mfaEnrollmentId: String?
    public var displayName: String?
    public var phoneInfo: String?
    public var enrolledAt: String?
    public var totpInfo: JSONValue?
}

extension Emulator {
    public func signUp(_ request: SignUpRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let nowMillis = nowMillisString
        let result: (UserRecord, String?, [String: JSONValue]) = try await writeWithBlockingFunctions(scope) {
            tx, hooks, random in
            let settings = try await self.enabledSettings(tx, scope)
            try await Emulator.checkSignUp(tx, request, caller: caller, settings: settings)
            var (user, provider) = try await self.signUpTarget(
                tx, request, caller: caller, random: random, nowMillis: nowMillis)
            try await Emulator.setSignUpCredentials(
                tx, &user, request, caller: caller, settings: settings, random: random, nowMillis: nowMillis)
            if request.idToken == nil, request.email == nil, request.password?.isEmpty != false, !caller.isAdmin {
                if !settings.anonymousEnabled { throw AuthError.adminOnlyOperation }
                provider = "anonymous"
            } else if request.idToken == nil, !caller.isAdmin {
                provider = "password"
            }
            try await Emulator.setSignUpProfile(tx, &user, request, caller: caller)
            if let enrollments = request.mfaInfo {
                user.mfaInfo = try MfaEnrollmentInput.records(
                    enrollments, random: random, now: self.clock.now(), keepingIds: caller.isAdmin)
                try settings.emulator.admitFactors(user)
            }
            var sessionClaims: [String: JSONValue] = [:]
            if request.idToken == nil, request.email != nil, !caller.isAdmin {
                // As firebase-tools: a client's new email account passes beforeCreate, then beforeSignIn.
                sessionClaims = try hooks.beforeCreateAndSignIn(
                    &user, settings: settings, scope: scope,
                    context: BlockingSignInContext(signInMethod: "password", clientIP: caller.clientIP))
            }
            if provider != nil {
                user.lastLoginAt = nowMillis
                user.lastRefreshAt = self.clock.now().rfc3339Millis
            }
            try await tx.save(scope, user)
            if request.idToken == nil { self.recordCreated(tx, user, scope: scope) }
            return (user, provider, sessionClaims)
        }
        return try await signUpResponse(result.0, provider: result.1, sessionClaims: result.2, scope: scope)
    }

    /// What a sign-up request may ask: only an admin names a uid; a client's email/password
    /// sign-up needs both and passes the password reCAPTCHA policy.
    static func checkSignUp(
        _ tx: any StoreTransaction, _ request: SignUpRequest, caller: Caller, settings: ScopeSettings
    ) async throws {
        if request.localId != nil, !caller.isAdmin || request.idToken != nil {
            throw AuthError("UNEXPECTED_PARAMETER", "User ID")
        }
        guard !caller.isAdmin else { return }
        // As firebase-tools: a client's sign-up that names an account, an email or a password is
        // an email/password one, and needs both (an anonymous account cannot become a password
        // session without an address). Empty strings name nothing, as in production's protos, but
        // an empty address with nothing else is INVALID_EMAIL, not an anonymous sign-up.
        if [request.idToken, request.email, request.password].contains(where: { $0?.isEmpty == false }) {
            guard request.email?.isEmpty == false else { throw AuthError.missingEmail }
            guard request.password?.isEmpty == false else { throw AuthError.missingPassword }
        } else if request.email != nil {
            if !settings.anonymousEnabled { throw AuthError.adminOnlyOperation }
            throw AuthError.invalidEmail
        }
        if request.email != nil || request.password?.isEmpty == false {
            try await verifyPasswordRecaptcha(
                tx, token: request.captchaResponse, clientType: request.clientType, version: request.recaptchaVersion,
                scope: caller.scope, settings: settings)
        }
    }

    /// The account a sign-up makes: the ID token's (anonymous) user gaining a password, or a new one.
    func signUpTarget(
        _ tx: any StoreTransaction, _ request: SignUpRequest, caller: Caller, random: any RandomSource,
        nowMillis: String
    ) async throws -> (UserRecord, String?) {
        if let idToken = request.idToken {
            let claims = try tokens.decodeIdToken(idToken)
            return (try await Emulator.userForIdToken(tx, claims, scope: caller.scope), "password")
        }
        let localId = request.localId ?? random.alphanumeric(28)
        if request.localId != nil, try await tx.user(caller.scope, localId: localId) != nil {
            throw AuthError.duplicateLocalId
        }
        var user = UserRecord(localId: localId)
        user.createdAt = nowMillis
        // As firebase-tools stores a new account (and its user.create event shows it).
        user.emailVerified = false
        user.tenantId = caller.scope.tenantId
        return (user, nil)
    }

    /// The address (unique in the scope) and the password (checked against the policy).
    static func setSignUpCredentials(
        _ tx: any StoreTransaction, _ user: inout UserRecord, _ request: SignUpRequest, caller: Caller,
        settings: ScopeSettings, random: any RandomSource, nowMillis: String
    ) async throws {
        if let email = request.email {
            guard Validation.isEmail(email) else { throw AuthError.invalidEmail }
            let normalized = email.lowercased()
            let localId = user.localId
            if try await tx.users(caller.scope, email: normalized).contains(where: { $0.localId != localId }) {
                throw AuthError.emailExists
            }
            user.email = normalized
            if !caller.isAdmin, request.password?.isEmpty != false { throw AuthError.missingPassword }
            if !settings.passwordSignUpEnabled, !caller.isAdmin { throw AuthError.operationNotAllowed }
        } else if let password = request.password, !caller.isAdmin || request.idToken != nil {
            // A client's empty password and nothing else is an anonymous sign-up (`checkSignUp`).
            if password.isEmpty, request.idToken == nil { return }
            throw AuthError.missingEmail
        }
        if let password = request.password {
            try settings.passwordRules.check(newPassword: password)
            user.setPassword(password, random: random, nowMillis: nowMillis)
        }
    }

    /// As firebase-tools (and production): without the admin credential, a display name is kept
    /// only for an email/password account and a photo URL never; the rest is the admin's.
    static func setSignUpProfile(
        _ tx: any StoreTransaction, _ user: inout UserRecord, _ request: SignUpRequest, caller: Caller
    ) async throws {
        let passwordAccount = request.idToken != nil || request.email != nil || request.password?.isEmpty == false
        if caller.isAdmin || passwordAccount, let name = request.displayName { user.displayName = name }
        guard caller.isAdmin else { return }
        if let photo = request.photoUrl { user.photoUrl = photo }
        if let verified = request.emailVerified { user.emailVerified = verified }
        if let disabled = request.disabled { user.disabled = disabled }
        if let phone = request.phoneNumber {
            guard Validation.isPhoneNumber(phone) else { throw AuthError.invalidPhoneNumber }
            if try await tx.user(caller.scope, phoneNumber: phone) != nil { throw AuthError.phoneNumberExists }
            user.phoneNumber = phone
            user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
        }
    }

    /// The new account, signed in unless an admin made it (or a blocking function disabled it:
    /// the account is kept, but not signed in).
    func signUpResponse(_ user: UserRecord, provider: String?, sessionClaims: [String: JSONValue], scope: Scope)
        async throws -> JSONValue
    {
        if user.isDisabled, provider != nil { throw AuthError.userDisabled }
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(user.localId),
        ]
        if let email = user.email { response["email"] = .string(email) }
        if let name = user.displayName { response["displayName"] = .string(name) }
        if let provider {
            var grant = SessionGrant(user: user, scope: scope, provider: provider)
            grant.extraClaims = sessionClaims
            for (key, value) in try await issueTokens(grant) { response[key] = value }
        }
        return .object(response)
    }
}

extension MfaEnrollmentInput {
    /// Turns Admin-supplied enrollments into records: ids are generated when absent, phone
    /// numbers checked, duplicates by number dropped.
    /// `keepingIds: false` (a client's sign-up) draws every enrollment id, as firebase-tools does;
    /// admin sign-ups and updates keep the ids they name.
    static func records(_ inputs: [MfaEnrollmentInput], random: any RandomSource, now: Date, keepingIds: Bool = true)
        throws -> [MfaEnrollment]?
    {
        var result: [MfaEnrollment] = []
        var seenPhones = Set<String>()
        for input in inputs {
            let id = (keepingIds ? input.mfaEnrollmentId : nil) ?? random.alphanumeric(28)
            if let phone = input.phoneInfo {
                guard Validation.isPhoneNumber(phone) else {
                    throw AuthError("INVALID_MFA_PHONE_NUMBER", "Invalid format.")
                }
                if !seenPhones.insert(phone).inserted { continue }
                result.append(
                    MfaEnrollment(
                        mfaEnrollmentId: id, displayName: input.displayName,
                        enrolledAt: input.enrolledAt ?? now.rfc3339Millis,
                        phoneInfo: phone))
            } else if input.totpInfo != nil {
                result.append(
                    MfaEnrollment(
                        mfaEnrollmentId: id, displayName: input.displayName,
                        enrolledAt: input.enrolledAt ?? now.rfc3339Millis,
                        totpInfo: .object([:]), totpSecret: Base32.encode(random.bytes(20))))
            } else {
                // Neither a phone nor TOTP: firebase-tools reads it as a missing phone number.
                throw AuthError("INVALID_MFA_PHONE_NUMBER", "Invalid format.")
            }
        }
        return result.isEmpty ? nil : result
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}
