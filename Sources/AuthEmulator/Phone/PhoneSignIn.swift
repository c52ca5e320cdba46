import Foundation

/// A request for an SMS code: the number and every app-verification field the SDKs send
/// (`accounts:sendVerificationCode`, and `phoneEnrollmentInfo` / `phoneSignInInfo` of the MFA
/// calls). None is required unless the app-verification policy is `enforce`.
public struct PhoneCodeRequest: Decodable, Sendable {
    public var phoneNumber: String?
    public var recaptchaToken: String?
    public var captchaResponse: String?
    public var clientType: String?
    public var recaptchaVersion: String?
    public var iosReceipt: String?
    public var iosSecret: String?
    public var playIntegrityToken: String?
    public var safetyNetToken: String?
    public var autoRetrievalInfo: JSONValue?
}

/// `accounts:sendVerificationCode` (v3 `sendVerificationCode`).
public typealias SendVerificationCodeRequest = PhoneCodeRequest

/// `accounts:signInWithPhoneNumber` (v3 `verifyPhoneNumber`).
public struct SignInWithPhoneNumberRequest: Decodable, Sendable {
    public var sessionInfo: String?
    public var code: String?
    public var idToken: String?
    public var temporaryProof: String?
    public var phoneNumber: String?
    public var operation: String?
}

extension Emulator {
    public static let phoneMfaConflict = AuthError(
        "UNSUPPORTED_FIRST_FACTOR", "A phone number cannot be set as a first factor on an SMS based MFA user.")

    public func sendVerificationCode(_ request: SendVerificationCodeRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let injectedFailure = try await takeCredentialFault(scope)
        let message: SmsMessage = try await writeWithBlockingFunctions(scope) { tx, hooks, _ in
            let settings = try await self.enabledSettings(tx, scope)
            guard let phone = request.phoneNumber, Validation.isPhoneNumber(phone) else {
                throw AuthError.invalidPhoneNumber
            }
            let owner = try await tx.user(scope, phoneNumber: phone)
            if let owner, !owner.enrollments.isEmpty { throw Emulator.phoneMfaConflict }
            let path = try await Emulator.verifyApp(
                tx, request, scope: scope, settings: settings, injectedFailure: injectedFailure)
            return try await self.createSms(
                tx,
                SmsRequest(
                    scope: scope, phoneNumber: phone, purpose: .signIn, settings: settings, clientIP: caller.clientIP,
                    verificationPath: path, hooks: hooks, user: owner))
        }
        await announce(message)
        return .object(["sessionInfo": .string(message.sessionInfo)])
    }

    public func signInWithPhoneNumber(_ request: SignInWithPhoneNumberRequest, caller: Caller) async throws -> JSONValue
    {
        let scope = caller.scope
        let now = clock.now()
        let context = BlockingSignInContext(signInMethod: "phone", clientIP: caller.clientIP)
        let outcome: PhoneSignInOutcome = try await writeWithBlockingFunctions(scope) { tx, hooks, random in
            let settings = try await self.enabledSettings(tx, scope)
            let phone: String
            switch try await self.verifiedPhone(tx, request, scope: scope, settings: settings, now: now) {
            case .rejected(let error): return .failed(error)
            case .verified(let number): phone = number
            }
            let step = PhoneSignInStep(
                tx: tx, hooks: hooks, random: random, settings: settings, scope: scope, phone: phone, context: context)
            if let idToken = request.idToken {
                let user = try await Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
                return try await self.linkPhone(to: user, step, now: now)
            }
            return try await self.signInByPhone(step, reauthenticating: request.operation == "REAUTH")
        }
        return try await phoneSignInResponse(outcome, scope: scope)
    }

    /// The number a request proves: a temporary proof of a conflict (used up), or an SMS code
    /// (a wrong one is recorded, and the attempt commits: `.rejected`).
    func verifiedPhone(
        _ tx: any StoreTransaction, _ request: SignInWithPhoneNumberRequest, scope: Scope, settings: ScopeSettings,
        now: Date
    ) async throws -> PhoneVerification {
        if let proofText = request.temporaryProof, !proofText.isEmpty {
            guard let number = request.phoneNumber, !number.isEmpty else { throw AuthError("MISSING_PHONE_NUMBER") }
            guard let proof = try await tx.temporaryProof(proofText), proof.phoneNumber == number,
                proof.projectId == scope.projectId, proof.tenantId == scope.tenantId, proof.expiresAt > now
            else { throw AuthError("INVALID_TEMPORARY_PROOF") }
            if let idToken = request.idToken, let owner = try await tx.user(scope, phoneNumber: number) {
                let me = try await Emulator.userForIdToken(tx, try tokens.decodeIdToken(idToken), scope: scope)
                if owner.localId != me.localId { throw AuthError.phoneNumberExists }
            }
            try await tx.deleteTemporaryProof(proofText)
            return .verified(number)
        }
        guard let sessionInfo = request.sessionInfo, !sessionInfo.isEmpty else {
            throw AuthError("MISSING_SESSION_INFO")
        }
        guard let code = request.code, !code.isEmpty else { throw AuthError("MISSING_CODE") }
        switch try await checkCode(
            tx, sessionInfo: sessionInfo, code: code, scope: scope, purposes: [.signIn], settings: settings)
        {
        case .rejected(let error), .wrong(let error): return .rejected(error)
        case .accepted(var message):
            message.usedFor = Emulator.usedFor(operation: request.operation, hasIdToken: request.idToken != nil)
            try await tx.updateSms(message)
            return .verified(message.phoneNumber)
        }
    }

    /// A signed-in user adds the number; if another account has it, a temporary proof lets the
    /// client sign in to that one instead.
    func linkPhone(to user: UserRecord, _ step: PhoneSignInStep, now: Date) async throws -> PhoneSignInOutcome {
        var user = user
        if let owner = try await step.tx.user(step.scope, phoneNumber: step.phone), owner.localId != user.localId {
            let proof = TemporaryProof(
                proof: step.random.base64URL(119), projectId: step.scope.projectId, tenantId: step.scope.tenantId,
                phoneNumber: step.phone, expiresAt: now.addingTimeInterval(3600))
            try await step.tx.saveTemporaryProof(proof)
            return .conflict(proof)
        }
        if !user.enrollments.isEmpty { throw Emulator.phoneMfaConflict }
        user.phoneNumber = step.phone
        user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: step.phone, phoneNumber: step.phone))
        return try await completePhoneSignIn(user, step, isNew: false)
    }

    /// The number's account signs in, or a new one is made for it (not when reauthenticating).
    func signInByPhone(_ step: PhoneSignInStep, reauthenticating: Bool) async throws -> PhoneSignInOutcome {
        let owner = try await step.tx.user(step.scope, phoneNumber: step.phone)
        if reauthenticating, owner == nil { throw AuthError.userNotFound }
        if let user = owner {
            if user.isDisabled { throw AuthError.userDisabled }
            if !user.enrollments.isEmpty { throw Emulator.phoneMfaConflict }
            return try await completePhoneSignIn(user, step, isNew: false)
        }
        var user = UserRecord(localId: step.random.alphanumeric(28))
        user.createdAt = nowMillisString
        user.tenantId = step.scope.tenantId
        user.phoneNumber = step.phone
        user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: step.phone, phoneNumber: step.phone))
        return try await completePhoneSignIn(user, step, isNew: true)
    }

    /// Stamps the sign-in, passes the blocking functions (beforeCreate first for a new account)
    /// and saves.
    func completePhoneSignIn(_ user: UserRecord, _ step: PhoneSignInStep, isNew: Bool) async throws
        -> PhoneSignInOutcome
    {
        var user = user
        markSignedIn(&user)
        let claims =
            isNew
            ? try step.hooks.beforeCreateAndSignIn(
                &user, settings: step.settings, scope: step.scope, context: step.context)
            : try step.hooks.beforeSignIn(&user, settings: step.settings, scope: step.scope, context: step.context)
        try await step.tx.save(step.scope, user)
        if isNew { recordCreated(step.tx, user, scope: step.scope) }
        return .signedIn(user, isNew: isNew, phone: step.phone, sessionClaims: claims)
    }

    func phoneSignInResponse(_ outcome: PhoneSignInOutcome, scope: Scope) async throws -> JSONValue {
        switch outcome {
        case .failed(let error):
            throw error
        case .conflict(let proof):
            return .object([
                "phoneNumber": .string(proof.phoneNumber), "temporaryProof": .string(proof.proof),
                "temporaryProofExpiresIn": "3600",
            ])
        case .signedIn(let user, let isNew, let phone, let sessionClaims):
            // Disabled by a blocking function: the account is written, the sign-in refused.
            if user.isDisabled { throw AuthError.userDisabled }
            var response: [String: JSONValue] = [
                "localId": .string(user.localId), "isNewUser": .bool(isNew), "phoneNumber": .string(phone),
            ]
            var grant = SessionGrant(user: user, scope: scope, provider: "phone")
            grant.extraClaims = sessionClaims
            for (key, value) in try await issueTokens(grant) { response[key] = value }
            return .object(response)
        }
    }

    static func usedFor(operation: String?, hasIdToken: Bool) -> SmsPurpose {
        switch operation {
        case "REAUTH": .reauth
        case "UPDATE": .update
        case "LINK": .link
        default: hasIdToken ? .link : .signIn
        }
    }
}

/// What `signInWithPhoneNumber` did in its transaction.
enum PhoneSignInOutcome: Sendable {
    case signedIn(UserRecord, isNew: Bool, phone: String, sessionClaims: [String: JSONValue])
    case conflict(TemporaryProof)
    /// A wrong code: the attempt is recorded (committed), then the error answered.
    case failed(AuthError)
}

/// Whether the request proved its number.
enum PhoneVerification {
    case verified(String)
    case rejected(AuthError)
}

/// What the steps of a phone sign-in share within its transaction.
struct PhoneSignInStep {
    let tx: any StoreTransaction
    let hooks: BlockingHooks
    let random: any RandomSource
    let settings: ScopeSettings
    let scope: Scope
    let phone: String
    let context: BlockingSignInContext
}
