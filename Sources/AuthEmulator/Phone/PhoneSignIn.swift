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
            let settings = try self.enabledSettings(tx, scope)
            guard let phone = request.phoneNumber, Validation.isPhoneNumber(phone) else {
                throw AuthError.invalidPhoneNumber
            }
            let owner = try tx.user(scope, phoneNumber: phone)
            if let owner, !owner.enrollments.isEmpty { throw Emulator.phoneMfaConflict }
            let path = try Emulator.verifyApp(
                tx, request, scope: scope, settings: settings, injectedFailure: injectedFailure)
            return try self.createSms(
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
        enum Outcome: Sendable {
            case signedIn(UserRecord, isNew: Bool, phone: String, sessionClaims: [String: JSONValue])
            case conflict(TemporaryProof)
            case failed(AuthError)
        }
        let outcome: Outcome = try await writeWithBlockingFunctions(scope) { tx, hooks, random in
            let settings = try self.enabledSettings(tx, scope)
            let phone: String
            if let proofText = request.temporaryProof, !proofText.isEmpty {
                guard let number = request.phoneNumber, !number.isEmpty else { throw AuthError("MISSING_PHONE_NUMBER") }
                guard let proof = try tx.temporaryProof(proofText), proof.phoneNumber == number,
                    proof.projectId == scope.projectId, proof.tenantId == scope.tenantId, proof.expiresAt > now
                else { throw AuthError("INVALID_TEMPORARY_PROOF") }
                phone = number
                if request.idToken != nil, let owner = try tx.user(scope, phoneNumber: phone) {
                    let me = try Emulator.userForIdToken(
                        tx, try self.tokens.decodeIdToken(request.idToken!), scope: scope)
                    if owner.localId != me.localId { throw AuthError.phoneNumberExists }
                }
                try tx.deleteTemporaryProof(proofText)
            } else {
                guard let sessionInfo = request.sessionInfo, !sessionInfo.isEmpty else {
                    throw AuthError("MISSING_SESSION_INFO")
                }
                guard let code = request.code, !code.isEmpty else { throw AuthError("MISSING_CODE") }
                switch try self.checkCode(
                    tx, sessionInfo: sessionInfo, code: code, scope: scope, purposes: [.signIn], settings: settings)
                {
                case .rejected(let error): return .failed(error)
                case .accepted(var message):
                    phone = message.phoneNumber
                    message.usedFor = Emulator.usedFor(operation: request.operation, hasIdToken: request.idToken != nil)
                    try tx.updateSms(message)
                }
            }
            let owner = try tx.user(scope, phoneNumber: phone)
            if let idToken = request.idToken {
                var user = try Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
                if let owner, owner.localId != user.localId {
                    let proof = TemporaryProof(
                        proof: random.base64URL(119), projectId: scope.projectId, tenantId: scope.tenantId,
                        phoneNumber: phone, expiresAt: now.addingTimeInterval(3600))
                    try tx.saveTemporaryProof(proof)
                    return .conflict(proof)
                }
                if !user.enrollments.isEmpty { throw Emulator.phoneMfaConflict }
                user.phoneNumber = phone
                user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
                self.markSignedIn(&user)
                let claims = try hooks.beforeSignIn(&user, settings: settings, scope: scope, context: context)
                try tx.save(scope, user)
                return .signedIn(user, isNew: false, phone: phone, sessionClaims: claims)
            }
            if request.operation == "REAUTH", owner == nil { throw AuthError.userNotFound }
            if var user = owner {
                if user.isDisabled { throw AuthError.userDisabled }
                if !user.enrollments.isEmpty { throw Emulator.phoneMfaConflict }
                self.markSignedIn(&user)
                let claims = try hooks.beforeSignIn(&user, settings: settings, scope: scope, context: context)
                try tx.save(scope, user)
                return .signedIn(user, isNew: false, phone: phone, sessionClaims: claims)
            }
            var user = UserRecord(localId: random.alphanumeric(28))
            user.createdAt = self.nowMillisString
            user.tenantId = scope.tenantId
            user.phoneNumber = phone
            user.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
            self.markSignedIn(&user)
            let claims = try hooks.beforeCreateAndSignIn(&user, settings: settings, scope: scope, context: context)
            try tx.save(scope, user)
            return .signedIn(user, isNew: true, phone: phone, sessionClaims: claims)
        }
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
            for (key, value) in try await issueTokens(grant) {
                response[key] = value
            }
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
