import Foundation

extension Emulator {
    /// Resolves a pending credential: decodable, unexpired, of this project and tenant, and its
    /// user still there.
    static func pendingUser(
        _ tx: any StoreTransaction, _ text: String, scope: Scope, now: Date, seal: TokenSeal
    ) async throws -> (UserRecord, MfaPendingCredential) {
        guard let pending = MfaPendingCredential.open(text, seal: seal), pending.expiresAt > now.epochSeconds else {
            throw AuthError.invalidMfaPendingCredential
        }
        guard pending.projectId == scope.projectId, pending.tenantId == scope.tenantId else {
            throw AuthError("INVALID_PROJECT_ID", "Project ID does not match MFA pending credential.")
        }
        guard let user = try await tx.user(scope, localId: pending.localId) else {
            throw AuthError("INVALID_MFA_PENDING_CREDENTIAL", "((User in pendingCredentialPayload does not exist.))")
        }
        return (user, pending)
    }

    /// Sends the SMS of an SMS second-factor sign-in, to the enrolled number (whatever masked
    /// number the client sends).
    public func startMfaSignIn(_ request: StartMfaSignInRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let now = clock.now()
        let injectedFailure = try await takeCredentialFault(scope)
        let message: SmsMessage = try await writeWithBlockingFunctions(scope) { tx, hooks, _ in
            let settings = try await self.enabledSettings(tx, scope)
            if !settings.smsMfaEnabled { throw AuthError.smsMfaNotEnabled }
            guard let text = request.mfaPendingCredential, !text.isEmpty else {
                throw AuthError("MISSING_MFA_PENDING_CREDENTIAL", "Request does not have MFA pending credential.")
            }
            guard let id = request.mfaEnrollmentId, !id.isEmpty else {
                throw AuthError("MISSING_MFA_ENROLLMENT_ID", "No second factor identifier is provided.")
            }
            var (user, _) = try await Emulator.pendingUser(tx, text, scope: scope, now: now, seal: self.tokens.seal)
            guard let enrollment = user.enrollments.first(where: { $0.mfaEnrollmentId == id }) else {
                throw AuthError.mfaEnrollmentNotFound
            }
            // A locked factor, or a credential that used up its tries, gets no more codes.
            try user.checkCodeLock(
                AttemptLimits(settings.emulator), factor: id, credential: text, now: now.timeIntervalSince1970)
            guard let phone = enrollment.phoneInfo else { throw AuthError.providerNotSupported }
            let path = try await Emulator.verifyApp(
                tx, request.phoneSignInInfo ?? PhoneCodeRequest(), scope: scope, settings: settings,
                injectedFailure: injectedFailure)
            return try await self.createSms(
                tx,
                SmsRequest(
                    scope: scope, phoneNumber: phone, purpose: .mfaSignIn, settings: settings,
                    clientIP: caller.clientIP,
                    localId: user.localId, mfaEnrollmentId: id, verificationPath: path, hooks: hooks, user: user))
        }
        await announce(message)
        return .object(["phoneResponseInfo": .object(["sessionInfo": .string(message.sessionInfo)])])
    }

    /// Completes an MFA sign-in with an SMS code or a TOTP code; tokens carry the second factor.
    public func finalizeMfaSignIn(_ request: FinalizeMfaSignInRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let now = clock.now()
        let outcome: MfaSignInOutcome = try await writeWithBlockingFunctions(scope) { tx, hooks, _ in
            let settings = try await self.enabledSettings(tx, scope)
            let totp = request.totpVerificationInfo != nil && request.phoneVerificationInfo == nil
            if totp, settings.totpProviderConfig == nil { throw AuthError.totpMfaNotEnabled }
            if !totp, !settings.smsMfaEnabled { throw AuthError.smsMfaNotEnabled }
            guard let text = request.mfaPendingCredential, !text.isEmpty else {
                throw AuthError("MISSING_CREDENTIAL", "Please set MFA Pending Credential.")
            }
            var (user, pending) = try await Emulator.pendingUser(
                tx, text, scope: scope, now: now, seal: self.tokens.seal)
            let limits = AttemptLimits(settings.emulator)
            let asRead = user
            let factor = try await Emulator.factorToProve(tx, request, totp: totp, user: user)
            try user.checkCodeLock(limits, factor: factor, credential: text, now: now.timeIntervalSince1970)
            let verified =
                totp
                ? try Emulator.verifyTotpFactor(factor ?? "", request, user: &user, settings: settings, now: now)
                : try await self.verifySmsFactor(tx, request, user: user, scope: scope, settings: settings)
            let enrollmentId: String
            switch verified {
            case .rejected(let error): return .failed(error)
            case .wrong(let error):
                // Counted against the factor and the credential, committed, then answered.
                let answer = user.recordWrongCode(
                    limits, factor: factor, credential: text, credentialExpiry: Double(pending.expiresAt),
                    now: now.timeIntervalSince1970, error: error)
                if limits.mfaMaxAttempts > 0 { try await tx.save(scope, user) }
                return .failed(answer)
            case .verified(let id): enrollmentId = id
            }
            user.forgetCodeFailures(factor: enrollmentId)
            // The TOTP step used and the count forgotten (a sign-in alone saves only its times).
            if user != asRead { try await tx.save(scope, user) }
            if user.isDisabled { throw AuthError.userDisabled }
            let provider =
                user.enrollments.first { $0.mfaEnrollmentId == enrollmentId }?.totpInfo != nil ? "totp" : "phone"
            var context = BlockingSignInContext(signInMethod: pending.signInProvider, clientIP: caller.clientIP)
            context.signInSecondFactor = provider
            let sessionClaims = try hooks.run(
                .beforeSignIn, user: &user, settings: settings, scope: scope, context: context)
            if sessionClaims != nil {
                self.markSignedIn(&user)
                try await tx.save(scope, user)
            } else {
                try await self.recordSignIn(tx, scope, &user)
            }
            return .signedIn(
                user, pending, SecondFactorClaim(identifier: enrollmentId, provider: provider), sessionClaims ?? [:])
        }
        switch outcome {
        case .failed(let error):
            throw error
        case .signedIn(let user, let pending, let factor, let sessionClaims):
            // Disabled by its beforeSignIn function: the change is kept, the sign-in refused.
            if user.isDisabled { throw AuthError.userDisabled }
            var grant = SessionGrant(user: user, scope: scope, provider: pending.signInProvider, secondFactor: factor)
            grant.extraClaims = sessionClaims
            let tokens = try await issueTokens(grant)
            return .object(["idToken": tokens["idToken"]!, "refreshToken": tokens["refreshToken"]!])
        }
    }

    /// The factor a finalize call means to prove, known before its code is checked so that a
    /// locked factor is refused: the named TOTP factor, or the one the SMS session was sent for.
    static func factorToProve(
        _ tx: any StoreTransaction, _ request: FinalizeMfaSignInRequest, totp: Bool, user: UserRecord
    ) async throws -> String? {
        if totp {
            guard let id = request.mfaEnrollmentId, !id.isEmpty else {
                throw AuthError("MISSING_MFA_ENROLLMENT_ID", "No second factor identifier is provided.")
            }
            return id
        }
        guard let sessionInfo = request.phoneVerificationInfo?.sessionInfo, !sessionInfo.isEmpty else { return nil }
        return try await tx.sms(sessionInfo: sessionInfo)?.mfaEnrollmentId
    }

    /// A TOTP code for the factor `id` (`factorToProve`'s), inside the window and (with replay protection) of a
    /// later time step than the last one used; the step is recorded in `user` (saved by the caller).
    static func verifyTotpFactor(
        _ id: String, _ request: FinalizeMfaSignInRequest, user: inout UserRecord, settings: ScopeSettings, now: Date
    ) throws -> FactorVerification {
        guard let code = request.totpVerificationInfo?.verificationCode, !code.isEmpty else {
            throw AuthError("MISSING_CODE")
        }
        guard let index = user.enrollments.firstIndex(where: { $0.mfaEnrollmentId == id }) else {
            throw AuthError.mfaEnrollmentNotFound
        }
        var enrollment = user.enrollments[index]
        guard enrollment.totpInfo != nil, let secret = enrollment.totpSecret.flatMap(Base32.decode) else {
            throw AuthError.providerNotSupported
        }
        guard
            let step = Totp.matchingStep(
                code: code, secret: secret, at: now, adjacentIntervals: settings.totpAdjacentIntervals),
            !settings.emulator.totpReplayProtection || step > (enrollment.totpLastUsedStep ?? Int64.min)
        else { return .wrong(AuthError("INVALID_CODE")) }
        enrollment.totpLastUsedStep = step
        user.mfaInfo?[index] = enrollment
        return .verified(id)
    }

    /// The SMS code of the pending user's sign-in session, and the factor it was sent for.
    func verifySmsFactor(
        _ tx: any StoreTransaction, _ request: FinalizeMfaSignInRequest, user: UserRecord, scope: Scope,
        settings: ScopeSettings
    ) async throws -> FactorVerification {
        guard let info = request.phoneVerificationInfo else { throw AuthError.providerNotSupported }
        if info.androidVerificationProof != nil { throw AuthError.notImplemented("androidVerificationProof") }
        guard let code = info.code, !code.isEmpty else { throw AuthError("MISSING_CODE") }
        guard let sessionInfo = info.sessionInfo, !sessionInfo.isEmpty else { throw AuthError("MISSING_SESSION_INFO") }
        guard let pending = try await tx.sms(sessionInfo: sessionInfo), pending.localId == user.localId else {
            throw AuthError("INVALID_SESSION_INFO")
        }
        switch try await checkCode(
            tx, sessionInfo: sessionInfo, code: code, scope: scope, purposes: [.mfaSignIn], settings: settings)
        {
        case .rejected(let error): return .rejected(error)
        case .wrong(let error): return .wrong(error)
        case .accepted(let message):
            let masked = MfaEnrollment.mask(message.phoneNumber)
            guard
                let enrollment = user.enrollments.first(where: { $0.mfaEnrollmentId == message.mfaEnrollmentId })
                    ?? user.enrollments.first(where: { $0.phoneInfo == message.phoneNumber || $0.phoneInfo == masked })
            else { throw AuthError.mfaEnrollmentNotFound }
            return .verified(enrollment.mfaEnrollmentId)
        }
    }
}

/// What `finalizeMfaSignIn` did in its transaction.
enum MfaSignInOutcome: Sendable {
    case signedIn(UserRecord, MfaPendingCredential, SecondFactorClaim, [String: JSONValue])
    /// A wrong code: the attempt is recorded (committed), then the error answered.
    case failed(AuthError)
}

/// Whether a second factor's code was right (and which enrollment it proved).
enum FactorVerification {
    case verified(String)
    /// Nothing to check the code against (the session cannot take one).
    case rejected(AuthError)
    /// A wrong code: it counts towards the factor's and the credential's lockout.
    case wrong(AuthError)
}
