import Foundation

extension Emulator {
    /// First factors that cannot carry a second factor.
    static let mfaIneligibleProviders: Set<String> = ["anonymous", "phone", "custom", "gc.apple.com"]

    /// The checks shared by enrollment start and finalize, in firebase-tools' order: the provider
    /// switch before any field, then the token, the first factor, the verified email.
    static func enrollmentUser(
        _ tx: any StoreTransaction, settings: ScopeSettings, totp: Bool, idToken: String?, scope: Scope,
        tokens: TokenService, requireVerifiedEmail: Bool
    ) async throws -> (UserRecord, IdTokenClaims) {
        try settings.requireAuthEnabled()
        if totp {
            if settings.totpProviderConfig == nil { throw AuthError.totpMfaNotEnabled }
        } else if !settings.smsMfaEnabled {
            throw AuthError.smsMfaNotEnabled
        }
        guard let idToken, !idToken.isEmpty else { throw AuthError.missingIdToken }
        let claims = try tokens.decodeIdToken(idToken)
        let user = try await userForIdToken(tx, claims, scope: scope)
        if mfaIneligibleProviders.contains(claims.signInProvider) { throw AuthError.unsupportedFirstFactor }
        if requireVerifiedEmail, user.emailVerified != true { throw AuthError.unverifiedEmail }
        return (user, claims)
    }

    public func startMfaEnrollment(_ request: StartMfaEnrollmentRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let totp = request.totpEnrollmentInfo != nil && request.phoneEnrollmentInfo == nil
        let random = self.random
        let now = clock.now()
        let injectedFailure = totp ? false : try await takeCredentialFault(scope)
        enum Started: Sendable {
            case phone(SmsMessage)
            case totp(TotpEnrollmentSession)
        }
        let started: Started = try await writeWithBlockingFunctions(scope) { tx, hooks, _ in
            let settings = try await self.settings(tx, scope)
            let (user, _) = try await Emulator.enrollmentUser(
                tx, settings: settings, totp: totp, idToken: request.idToken, scope: scope, tokens: self.tokens,
                requireVerifiedEmail: true)
            if totp {
                if user.enrollments.count >= settings.emulator.maxEnrolledFactors {
                    throw AuthError.secondFactorLimitExceeded
                }
                let session = TotpEnrollmentSession(
                    sessionInfo: random.base64URL(120), projectId: scope.projectId, tenantId: scope.tenantId,
                    localId: user.localId, secret: Base32.encode(random.bytes(20)),
                    expiresAt: now.addingTimeInterval(TimeInterval(settings.emulator.totpEnrollmentLifetimeSeconds)))
                try await tx.saveTotpSession(session)
                return .totp(session)
            }
            guard let info = request.phoneEnrollmentInfo else {
                throw AuthError("INVALID_ARGUMENT", "((Missing phoneEnrollmentInfo.))")
            }
            guard let phone = info.phoneNumber, Validation.isPhoneNumber(phone) else {
                throw AuthError.invalidPhoneNumber
            }
            if user.enrollments.contains(where: { $0.phoneInfo == phone }) { throw AuthError.secondFactorExists }
            if user.enrollments.count >= settings.emulator.maxEnrolledFactors {
                throw AuthError.secondFactorLimitExceeded
            }
            let path = try await Emulator.verifyApp(
                tx, info, scope: scope, settings: settings, injectedFailure: injectedFailure)
            return .phone(
                try await self.createSms(
                    tx,
                    SmsRequest(
                        scope: scope, phoneNumber: phone, purpose: .mfaEnrollment, settings: settings,
                        clientIP: caller.clientIP, localId: user.localId, verificationPath: path, hooks: hooks,
                        user: user)))
        }
        switch started {
        case .phone(let message):
            await announce(message)
            return .object(["phoneSessionInfo": .object(["sessionInfo": .string(message.sessionInfo)])])
        case .totp(let session):
            return .object([
                "totpSessionInfo": .object([
                    "sharedSecretKey": .string(session.secret), "verificationCodeLength": .number(Double(Totp.digits)),
                    "hashingAlgorithm": "SHA1", "periodSec": .number(Double(Totp.period)),
                    "sessionInfo": .string(session.sessionInfo),
                    "finalizeEnrollmentTime": .string(session.expiresAt.rfc3339Millis),
                ])
            ])
        }
    }

    public func finalizeMfaEnrollment(_ request: FinalizeMfaEnrollmentRequest, caller: Caller) async throws -> JSONValue
    {
        let scope = caller.scope
        let totp = request.totpVerificationInfo != nil && request.phoneVerificationInfo == nil
        let random = self.random
        let now = clock.now()
        enum Outcome: Sendable {
            case enrolled(UserRecord, IdTokenClaims, MfaEnrollment)
            case failed(AuthError)
        }
        let outcome: Outcome = try await store.write { tx in
            let settings = try await self.settings(tx, scope)
            var (user, claims) = try await Emulator.enrollmentUser(
                tx, settings: settings, totp: totp, idToken: request.idToken, scope: scope, tokens: self.tokens,
                requireVerifiedEmail: false)
            var enrollment = MfaEnrollment(
                mfaEnrollmentId: random.alphanumeric(28), displayName: request.displayName,
                enrolledAt: now.rfc3339Millis)
            let proved =
                totp
                ? try await Emulator.proveTotpEnrollment(
                    tx, request, &enrollment, user: user, scope: scope, settings: settings, now: now)
                : try await self.proveSmsEnrollment(
                    tx, request, &enrollment, user: user, scope: scope, settings: settings)
            if let error = proved { return .failed(error) }
            if user.enrollments.count >= settings.emulator.maxEnrolledFactors {
                throw AuthError.secondFactorLimitExceeded
            }
            user.mfaInfo = user.enrollments + [enrollment]
            try await tx.save(scope, user)
            return .enrolled(user, claims, enrollment)
        }
        switch outcome {
        case .failed(let error):
            throw error
        case .enrolled(let user, let claims, let enrollment):
            let factor = SecondFactorClaim(
                identifier: enrollment.mfaEnrollmentId, provider: enrollment.totpInfo != nil ? "totp" : "phone")
            var grant = SessionGrant(user: user, scope: scope, provider: claims.signInProvider, secondFactor: factor)
            grant.authTime = claims.authTime  // the session goes on with a factor added
            let tokens = try await issueTokens(grant)
            return .object(["idToken": tokens["idToken"]!, "refreshToken": tokens["refreshToken"]!])
        }
    }

    /// The TOTP code of the enrollment session (`mfaEnrollment:start`) makes `enrollment` a TOTP
    /// factor with its secret, and uses the session up. An expired session is removed and its
    /// error returned (not thrown), so that the removal commits.
    static func proveTotpEnrollment(
        _ tx: any StoreTransaction, _ request: FinalizeMfaEnrollmentRequest, _ enrollment: inout MfaEnrollment,
        user: UserRecord, scope: Scope, settings: ScopeSettings, now: Date
    ) async throws -> AuthError? {
        let info = request.totpVerificationInfo!
        guard let sessionInfo = info.sessionInfo, !sessionInfo.isEmpty else { throw AuthError("MISSING_SESSION_INFO") }
        guard let code = info.verificationCode, !code.isEmpty else { throw AuthError("MISSING_CODE") }
        guard let session = try await tx.totpSession(sessionInfo), session.localId == user.localId,
            session.projectId == scope.projectId, session.tenantId == scope.tenantId
        else { throw AuthError("INVALID_SESSION_INFO") }
        if now >= session.expiresAt {
            try await tx.deleteTotpSession(sessionInfo)
            return AuthError("SESSION_EXPIRED")
        }
        guard let secret = Base32.decode(session.secret),
            let step = Totp.matchingStep(
                code: code, secret: secret, at: now, adjacentIntervals: settings.totpAdjacentIntervals)
        else { return try await recordWrongCode(tx, session, limit: settings.emulator.mfaMaxAttempts) }
        enrollment.totpInfo = .object([:])
        enrollment.totpSecret = session.secret
        enrollment.totpLastUsedStep = step
        try await tx.deleteTotpSession(sessionInfo)
        return nil
    }

    /// Counts a wrong code against the enrollment session; at the limit (`mfaMaxAttempts`) the
    /// session is gone and the lockout answered.
    static func recordWrongCode(
        _ tx: any StoreTransaction, _ session: TotpEnrollmentSession, limit: Int
    ) async throws -> AuthError {
        var session = session
        session.attempts = (session.attempts ?? 0) + 1
        guard limit > 0, session.attempts! >= limit else {
            try await tx.saveTotpSession(session)
            return AuthError("INVALID_CODE")
        }
        try await tx.deleteTotpSession(session.sessionInfo)
        return AttemptLimits.codeLocked
    }

    /// The SMS code sent for the enrollment makes `enrollment` an SMS factor of its number (not one
    /// the user has already). A wrong code is recorded and its error returned, so the attempt commits.
    func proveSmsEnrollment(
        _ tx: any StoreTransaction, _ request: FinalizeMfaEnrollmentRequest, _ enrollment: inout MfaEnrollment,
        user: UserRecord, scope: Scope, settings: ScopeSettings
    ) async throws -> AuthError? {
        guard let info = request.phoneVerificationInfo else {
            throw AuthError("INVALID_ARGUMENT", "((Missing phoneVerificationInfo.))")
        }
        if info.androidVerificationProof != nil { throw AuthError.notImplemented("androidVerificationProof") }
        guard let code = info.code, !code.isEmpty else { throw AuthError("MISSING_CODE") }
        guard let sessionInfo = info.sessionInfo, !sessionInfo.isEmpty else { throw AuthError("MISSING_SESSION_INFO") }
        guard let pending = try await tx.sms(sessionInfo: sessionInfo), pending.localId == user.localId else {
            throw AuthError("INVALID_SESSION_INFO")
        }
        switch try await checkCode(
            tx, sessionInfo: sessionInfo, code: code, scope: scope, purposes: [.mfaEnrollment], settings: settings)
        {
        case .rejected(let error), .wrong(let error): return error
        case .accepted(let message):
            if user.enrollments.contains(where: { $0.phoneInfo == message.phoneNumber }) {
                throw AuthError.secondFactorExists
            }
            enrollment.phoneInfo = message.phoneNumber
            enrollment.unobfuscatedPhoneInfo = message.phoneNumber
            return nil
        }
    }

    /// Removes a factor. Withdrawing the factor the session was verified with ends that session
    /// (its tokens now answer `TOKEN_EXPIRED`) and no tokens are returned; otherwise fresh ones.
    public func withdrawMfa(_ request: WithdrawMfaRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let (user, claims): (UserRecord, IdTokenClaims) = try await store.write { tx in
            try await self.enabledSettings(tx, scope)
            guard let idToken = request.idToken, !idToken.isEmpty else { throw AuthError.missingIdToken }
            let claims = try self.tokens.decodeIdToken(idToken)
            var user = try await Emulator.userForIdToken(tx, claims, scope: scope)
            guard let id = request.mfaEnrollmentId, !id.isEmpty else {
                throw AuthError("MISSING_MFA_ENROLLMENT_ID", "No second factor identifier is provided.")
            }
            guard user.enrollments.contains(where: { $0.mfaEnrollmentId == id }) else {
                throw AuthError.mfaEnrollmentNotFound
            }
            let remaining = user.enrollments.filter { $0.mfaEnrollmentId != id }
            user.mfaInfo = remaining.isEmpty ? nil : remaining
            try await tx.save(scope, user)
            return (user, claims)
        }
        if claims.secondFactor?.identifier == request.mfaEnrollmentId { return .object([:]) }
        var grant = SessionGrant(
            user: user, scope: scope, provider: claims.signInProvider, secondFactor: claims.secondFactor)
        grant.authTime = claims.authTime
        var response = try await issueTokens(grant)
        response["expiresIn"] = nil
        return .object(response)
    }
}
