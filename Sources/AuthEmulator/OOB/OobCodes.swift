import Foundation

/// `accounts:sendOobCode` (v3 `getOobConfirmationCode`).
public struct SendOobCodeRequest: Decodable, Sendable {
    public var requestType: OobRequestType?
    public var email: String?
    public var newEmail: String?
    public var idToken: String?
    public var continueUrl: String?
    public var canHandleCodeInApp: Bool?
    /// The Hosting domain of in-app links (`ActionCodeSettings.linkDomain`).
    public var linkDomain: String?
    public var returnOobLink: Bool?
    public var captchaResp: String?
    public var captchaResponse: String?
    public var clientType: String?
    public var recaptchaVersion: String?
}

/// `accounts:resetPassword`: inspect a code, or reset the password with it.
public struct ResetPasswordRequest: Decodable, Sendable {
    public var oobCode: String?
    public var newPassword: String?
    public var email: String?

    public init(oobCode: String?, newPassword: String?, email: String? = nil) {
        self.oobCode = oobCode
        self.newPassword = newPassword
        self.email = email
    }
}

extension Emulator {
    public func sendOobCode(_ request: SendOobCodeRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let code = random.base64URL(54)
        let options = self.options
        let created = clock.now().timeIntervalSince1970 * 1000
        let issued: OobCode? = try await writeWithBlockingFunctions(scope) { tx, hooks, _ in
            let settings = try await self.enabledSettings(tx, scope)
            let type = try Emulator.checkOobRequest(request, caller: caller)
            if !caller.isAdmin {
                try await Emulator.verifyPasswordRecaptcha(
                    tx, token: request.captchaResp ?? request.captchaResponse, clientType: request.clientType,
                    version: request.recaptchaVersion, scope: scope, settings: settings)
            }
            guard let target = try await self.oobTarget(tx, request, type: type, scope: scope, settings: settings)
            else {
                return nil
            }
            // An email goes out (not a link an admin asked for): production's beforeSendEmail first.
            if request.returnOobLink != true, let emailType = type.beforeSendEmailType {
                var shown = try await tx.users(scope, email: target.email).first ?? UserRecord(localId: "")
                if shown.email == nil { shown.email = target.email }
                var context = BlockingSignInContext(
                    signInMethod: type == .emailSignin ? "emailLink" : "password", clientIP: caller.clientIP)
                context.messageType = emailType
                try hooks.beforeSend(.beforeSendEmail, user: shown, settings: settings, scope: scope, context: context)
            }
            let linkDomain = try LinkDomain.checked(
                request.linkDomain, hostingDomains: settings.emulator.hostingDomains)
            var link = Emulator.actionLink(
                handler: settings.actionHandlerURL ?? "\(options.linkBase(for: caller))/emulator/action",
                mode: type.actionMode, code: code, continueUrl: request.continueUrl, tenantId: scope.tenantId)
            if let linkDomain, request.canHandleCodeInApp == true { link = LinkDomain.wrap(link, in: linkDomain) }
            let oob = OobCode(
                email: target.email, newEmail: target.newEmail, requestType: type, oobCode: code, oobLink: link,
                localId: target.localId, createdAt: created)
            try await tx.saveOobCode(scope, oob)
            return oob
        }
        var response: [String: JSONValue] = ["kind": "identitytoolkit#GetOobConfirmationCodeResponse"]
        response["email"] = .string(issued?.email ?? request.email ?? "")
        if let issued {
            logOobCode(issued, scope: scope)
            if request.returnOobLink == true {
                response["oobCode"] = .string(issued.oobCode)
                response["oobLink"] = .string(issued.oobLink)
            }
        }
        return .object(response)
    }

    /// The request type (one of those sent by email), and what only an admin may ask.
    static func checkOobRequest(_ request: SendOobCodeRequest, caller: Caller) throws -> OobRequestType {
        guard let type = request.requestType else { throw AuthError("MISSING_REQ_TYPE") }
        guard [.verifyEmail, .passwordReset, .emailSignin, .verifyAndChangeEmail].contains(type) else {
            throw AuthError.notImplemented("sendOobCode \(type.rawValue)")
        }
        if request.returnOobLink == true, !caller.isAdmin { throw AuthError.insufficientPermission }
        if let url = request.continueUrl, !url.isEmpty, !Validation.isAbsoluteURI(url) {
            throw AuthError("INVALID_CONTINUE_URI", "((expected an absolute URI with valid scheme and host))")
        }
        return type
    }

    /// Who an email action is for: the address it goes to, the new address of a change, the
    /// account. Nil for a password reset to an unknown address under improved email privacy.
    func oobTarget(
        _ tx: any StoreTransaction, _ request: SendOobCodeRequest, type: OobRequestType, scope: Scope,
        settings: ScopeSettings
    ) async throws -> (email: String, newEmail: String?, localId: String?)? {
        // As production: `returnOobLink` (admin only) without an ID token names the account by email.
        let byEmail = request.returnOobLink == true && request.idToken == nil
        switch type {
        case .verifyEmail:
            let user =
                byEmail
                ? try await Emulator.userNamedByEmail(tx, request.email, scope: scope)
                : try await Emulator.userForIdToken(tx, try tokens.decodeIdToken(request.idToken ?? ""), scope: scope)
            guard let address = user.email else { throw AuthError.missingEmail }
            return (address, nil, user.localId)
        case .passwordReset:
            guard let address = request.email, !address.isEmpty else { throw AuthError.missingEmail }
            guard Validation.isEmail(address) else { throw AuthError.invalidEmail }
            guard let user = try await tx.users(scope, email: address).first else {
                if settings.improvedEmailPrivacy { return nil }
                throw AuthError.emailNotFound
            }
            return (user.email ?? address.lowercased(), nil, user.localId)
        case .emailSignin:
            guard let address = request.email, !address.isEmpty else { throw AuthError.missingEmail }
            guard Validation.isEmail(address) else { throw AuthError.invalidEmail }
            if !settings.emailLinkEnabled { throw AuthError.operationNotAllowed }
            return (address.lowercased(), nil, nil)
        default:
            guard let target = request.newEmail, !target.isEmpty else { throw AuthError("MISSING_NEW_EMAIL") }
            let user: UserRecord
            if byEmail {
                user = try await Emulator.userNamedByEmail(tx, request.email, scope: scope)
            } else {
                guard let idToken = request.idToken else { throw AuthError.missingIdToken }
                user = try await Emulator.userForIdToken(tx, try tokens.decodeIdToken(idToken), scope: scope)
            }
            guard Validation.isEmail(target) else { throw AuthError.invalidEmail }
            if !(try await tx.users(scope, email: target).isEmpty) { throw AuthError.emailExists }
            return (user.email ?? "", target.lowercased(), user.localId)
        }
    }

    /// The account an admin's `returnOobLink` request names by `email`.
    static func userNamedByEmail(_ tx: any StoreTransaction, _ email: String?, scope: Scope) async throws -> UserRecord
    {
        guard let email, !email.isEmpty else { throw AuthError.missingEmail }
        guard let user = try await tx.users(scope, email: email.lowercased()).first else {
            throw AuthError.userNotFound
        }
        return user
    }

    /// The action URL: the emulator's page (`/emulator/action`) or the project's own handler, with
    /// production's query parameters.
    static func actionLink(handler: String, mode: String, code: String, continueUrl: String?, tenantId: String?)
        -> String
    {
        let separator = handler.contains("?") ? "&" : "?"
        var link = "\(handler)\(separator)mode=\(mode)&lang=en&oobCode=\(code)&apiKey=fake-api-key"
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        if let continueUrl, let encoded = continueUrl.addingPercentEncoding(withAllowedCharacters: allowed) {
            link += "&continueUrl=\(encoded)"
        }
        if let tenantId { link += "&tenantId=\(tenantId)" }
        return link
    }

    /// The "email" an action code stands for: one log line (console, journald) with its link.
    func logOobCode(_ code: OobCode, scope: Scope) {
        logger.info(
            "\(Emulator.oobLogLine(code))",
            metadata: ["event": "oob", "project": "\(scope.projectId)", "tenant": "\(scope.tenantId ?? "")"])
    }

    /// The firebase-tools console wording, so existing log scrapers keep working.
    static func oobLogLine(_ code: OobCode) -> String {
        switch code.requestType {
        case .verifyEmail: "To verify the email address \(code.email), follow this link: \(code.oobLink)"
        case .passwordReset:
            "To reset the password for \(code.email), follow this link: \(code.oobLink)&newPassword=NEW_PASSWORD_HERE"
        case .emailSignin: "To sign in as \(code.email), follow this link: \(code.oobLink)"
        case .verifyAndChangeEmail:
            "To verify and change the email address from \(code.email) to \(code.newEmail ?? ""), follow this link: \(code.oobLink)"
        default: "To reset your email address to \(code.email), follow this link: \(code.oobLink)"
        }
    }

    public func resetPassword(_ request: ResetPasswordRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let random = self.random
        let nowMillis = nowMillisString
        let now = clock.now()
        let oob: OobCode = try await store.write { tx in
            let settings = try await self.enabledSettings(tx, scope)
            if !settings.passwordSignUpEnabled { throw AuthError.passwordLoginDisabled }
            guard let code = request.oobCode, !code.isEmpty else { throw AuthError.missingOobCode }
            let oob = try await self.liveOobCode(tx, scope, code: code)
            guard let newPassword = request.newPassword else { return oob }
            guard oob.requestType == .passwordReset else { throw AuthError.invalidOobCode }
            try settings.passwordRules.check(newPassword: newPassword)
            guard var user = try await Emulator.oobUser(tx, oob, scope: scope) else { throw AuthError.invalidOobCode }
            user.setPassword(newPassword, random: random, nowMillis: nowMillis)
            user.validSince = String(now.epochSeconds)
            user.emailVerified = true
            try await tx.save(scope, user)
            try await tx.deleteOobCode(scope, code: code)
            return oob
        }
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#ResetPasswordResponse", "requestType": .string(oob.requestType.rawValue),
        ]
        if oob.requestType != .emailSignin { response["email"] = .string(oob.email) }
        if let newEmail = oob.newEmail { response["newEmail"] = .string(newEmail) }
        return .object(response)
    }

    /// The stored code, unless it is unknown (`INVALID_OOB_CODE`) or older than the scope's
    /// `oobCodeLifetimeSeconds` on the emulator's clock (`EXPIRED_OOB_CODE`).
    func liveOobCode(_ tx: any StoreTransaction, _ scope: Scope, code: String) async throws -> OobCode {
        guard let oob = try await tx.oobCode(scope, code: code) else { throw AuthError.invalidOobCode }
        let lifetime = try await self.settings(tx, scope).emulator.oobCodeLifetimeSeconds
        if let created = oob.createdAt, created + Double(lifetime) * 1000 <= clock.now().timeIntervalSince1970 * 1000 {
            throw AuthError.expiredOobCode
        }
        return oob
    }

    static func oobUser(_ tx: any StoreTransaction, _ oob: OobCode, scope: Scope) async throws -> UserRecord? {
        if let localId = oob.localId, let user = try await tx.user(scope, localId: localId) { return user }
        return try await tx.users(scope, email: oob.email).first
    }

    /// Applies a VERIFY_EMAIL, VERIFY_AND_CHANGE_EMAIL or RECOVER_EMAIL code (`accounts:update
    /// {oobCode}`, and the action page). As firebase-tools, a code is used up even when the change
    /// it asks for is refused (the address taken meanwhile).
    public func applyOobCode(_ code: String, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let outcome: Result<(UserRecord, String?), AuthError> = try await store.write { tx in
            let oob = try await self.liveOobCode(tx, scope, code: code)
            guard var user = try await Emulator.oobUser(tx, oob, scope: scope) else { throw AuthError.invalidOobCode }
            var newEmail: String?
            switch oob.requestType {
            case .verifyEmail:
                user.emailVerified = true
            case .verifyAndChangeEmail, .recoverEmail:
                let target = oob.requestType == .recoverEmail ? oob.email : oob.newEmail
                guard let target else { throw AuthError.invalidOobCode }
                if try await tx.users(scope, email: target).contains(where: { $0.localId != user.localId }) {
                    try await tx.deleteOobCode(scope, code: code)
                    return .failure(AuthError.emailExists)
                }
                if user.email != target {
                    if oob.requestType == .verifyAndChangeEmail {
                        user.initialEmail = user.initialEmail ?? user.email
                        newEmail = target
                    }
                    user.email = target
                    user.emailVerified = true
                    if user.hasPassword {
                        user.upsertProvider(
                            ProviderUserInfo(providerId: "password", rawId: target, federatedId: target, email: target))
                    }
                }
            default:
                throw AuthError.invalidOobCode
            }
            try await tx.save(scope, user)
            try await tx.deleteOobCode(scope, code: code)
            return .success((user, newEmail))
        }
        let (user, newEmail) = try outcome.get()
        var response = Emulator.accountInfoResponse(user)
        response.setIfPresent("newEmail", newEmail.map(JSONValue.string))
        return .object(response)
    }

    public func listOobCodes(_ scope: Scope) async throws -> JSONValue {
        let codes = try await store.read { tx in try await tx.listOobCodes(scope) }
        return .object(["oobCodes": .array(codes.map(\.listingValue))])
    }

    /// `GET …/oobCodes`: the scope's codes, oldest first, from the entries kept as they were issued.
    public func oobCodeListing(_ scope: Scope) async throws -> JSONListing {
        let now = clock.now()
        let entries = try await store.read { tx in
            try await self.codeListings.entries(scope, .oobCodes, now: now, in: tx) {
                (try await tx.oobCodeEntries(scope), nil)
            }
        }
        return JSONListing("oobCodes", entries)
    }
}
