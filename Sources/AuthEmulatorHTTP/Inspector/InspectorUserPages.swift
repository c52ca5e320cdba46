import AuthEmulator
import Foundation
import Hummingbird

/// The users pages and their actions.
extension InspectorPages {
    func users(_ request: Request, _ scope: Scope, error: String? = nil, form: [String: String] = [:]) async throws
        -> Response
    {
        let query = request.uri.queryParameters.get("q") ?? ""
        let after = request.uri.queryParameters.get("after")
        let page = try await emulator.inspectorUsers(scope, query: query, after: after)
        var values = Self.base(scope, title: "Users · \(InspectorViews.scopeLabel(scope))")
        // Absent, not "", when nothing was searched: a section on "" would still render.
        values["query"] = query.isEmpty ? nil : query
        values["users"] = page.users.map { InspectorViews.userRow($0, scope: scope) }
        values["next"] = page.nextAfter.map {
            "\(InspectorViews.scopePath(scope))/users?\(InspectorViews.query([("q", query), ("after", $0)]))"
        }
        values["notice"] = Self.notice(request)
        values["error"] = error
        values["form"] = form
        values["openCreate"] = error != nil
        return self.page("users", values, request: request, status: error == nil ? .ok : .badRequest)
    }

    /// The admin `signUp` the Admin SDKs' createUser sends, then the claims; a refusal shows on the page.
    func createUser(_ request: Request, _ scope: Scope, _ form: [String: String]) async throws -> Response {
        let caller = Caller(scope: scope, isAdmin: true)
        var body: [String: JSONValue] = [:]
        for key in ["email", "password", "phoneNumber", "displayName"] {
            if let value = form[key], !value.isEmpty { body[key] = .string(value) }
        }
        if form["emailVerified"] == "true" { body["emailVerified"] = true }
        do {
            let claims = form["customClaims"].flatMap { $0.isEmpty ? nil : $0 }
            if let claims { _ = try CustomClaims.validate(claims) }
            let created = try await emulator.signUp(
                try LenientDecoder.decode(SignUpRequest.self, from: .object(body)), caller: caller)
            let localId = created["localId"]?.stringValue ?? ""
            if let claims {
                _ = try await emulator.updateAccount(
                    try LenientDecoder.decode(
                        UpdateAccountRequest.self,
                        from: .object(["localId": .string(localId), "customAttributes": .string(claims)])),
                    caller: caller)
            }
            return Self.redirect(
                "\(InspectorViews.scopePath(scope))/users/\(InspectorViews.escapePath(localId))",
                notice: "User created.")
        } catch let error as AuthError {
            return try await users(request, scope, error: error.message, form: form)
        }
    }

    func clearUsers(_ request: Request, _ scope: Scope, _ form: [String: String]) async throws -> Response {
        let path = InspectorViews.scopePath(scope)
        guard form["confirm"] == "yes" else {
            return confirmation(
                request, scope, question: "Delete every user of \(InspectorViews.scopeLabel(scope))?",
                detail:
                    "Their accounts, factors and sessions go, and with them the scope's email codes, SMS and APNs "
                    + "messages and armed app-verification failures; configuration stays.",
                action: "\(path)/users/clear", verb: "Delete every user", back: "\(path)/users")
        }
        _ = try await emulator.deleteAllAccounts(scope)
        return Self.redirect("\(path)/users", notice: "Every user was deleted.")
    }

    func user(_ request: Request, _ scope: Scope, localId: String, editError: String? = nil) async throws -> Response {
        guard let user = try await emulator.inspectorUser(scope, localId: localId) else {
            throw AuthError("USER_NOT_FOUND", "No user \(localId) in \(InspectorViews.scopeLabel(scope)).")
        }
        var values = Self.base(scope, title: user.displayName ?? user.localId)
        values["localId"] = user.localId
        values["userPath"] = "\(InspectorViews.scopePath(scope))/users/\(InspectorViews.escapePath(user.localId))"
        values["email"] = user.email ?? ""
        values["emailVerified"] = user.emailVerified ?? false
        values["phoneNumber"] = user.phoneNumber ?? ""
        values["displayName"] = user.displayName ?? ""
        values["photoUrl"] = user.photoUrl ?? ""
        values["disabled"] = user.isDisabled
        values["created"] = InspectorViews.time(millis: user.createdAt)
        values["lastSignIn"] = InspectorViews.time(millis: user.lastLoginAt)
        values["validSince"] = InspectorViews.time(seconds: user.validSince)
        values["providers"] = user.providers.map {
            ["providerId": $0.providerId, "rawId": $0.rawId ?? "", "email": $0.email ?? ""]
        }
        values["claims"] = InspectorViews.claims(user)
        values["factors"] = try await factors(of: user, scope: scope)
        let phones = Set([user.phoneNumber].compactMap { $0 } + user.enrollments.compactMap(\.phoneInfo))
        let sms = try await emulator.smsMessages(scope, SmsQuery(), wait: 0).filter {
            $0.localId == user.localId || phones.contains($0.phoneNumber)
        }
        values["sms"] = sms.reversed().map(InspectorViews.smsRow)
        values["lastSmsId"] = String(sms.last?.id ?? 0)
        values["smsFilter"] = user.phoneNumber.map { InspectorViews.query([("phoneNumber", $0)]) } ?? "phoneNumber=none"
        values["oob"] = InspectorViews.oobRows(try await emulator.listOobCodes(scope), email: user.email ?? "")
        values["oobEmail"] = user.email ?? "-"
        values["notice"] = Self.notice(request)
        values["editError"] = editError
        return page("user", values, request: request, status: editError == nil ? .ok : .badRequest)
    }

    private func factors(of user: UserRecord, scope: Scope) async throws -> [[String: Any]] {
        var rows: [[String: Any]] = []
        for enrollment in user.enrollments {
            var row: [String: Any] = [
                "mfaEnrollmentId": enrollment.mfaEnrollmentId, "displayName": enrollment.displayName ?? "",
                "kind": enrollment.totpInfo != nil ? "TOTP" : "SMS", "phoneInfo": enrollment.phoneInfo ?? "",
            ]
            if enrollment.totpInfo != nil {
                let current = try await emulator.currentTotpCode(
                    scope, localId: user.localId, enrollmentId: enrollment.mfaEnrollmentId)
                row["totp"] = [
                    "localId": user.localId, "mfaEnrollmentId": enrollment.mfaEnrollmentId,
                    "code": current["code"]?.stringValue ?? "",
                    "seconds": Int(current["validForSeconds"]?.doubleValue ?? 0),
                ]
            }
            rows.append(row)
        }
        for passkey in user.passkeyInfo ?? [] {
            rows.append([
                "mfaEnrollmentId": passkey.credentialId, "displayName": passkey.name ?? "", "kind": "Passkey",
                "passkey": ["credentialId": passkey.credentialId],
            ])
        }
        return rows
    }

    /// disable, enable, revoke (sessions end: valid since now) and delete (after a confirmation).
    func userAction(_ request: Request, _ scope: Scope, localId: String, action: String, form: [String: String])
        async throws -> Response
    {
        let caller = Caller(scope: scope, isAdmin: true)
        let userPath = "\(InspectorViews.scopePath(scope))/users/\(InspectorViews.escapePath(localId))"
        if let response = try await factorAction(request, scope, localId: localId, action: action, form: form) {
            return response
        }
        var update: [String: JSONValue] = ["localId": .string(localId)]
        let notice: String
        switch action {
        case "edit":
            return try await editUser(request, scope, localId: localId, form: form)
        case "disable", "enable":
            update["disableUser"] = .bool(action == "disable")
            notice = action == "disable" ? "The user is disabled." : "The user is enabled."
        case "revoke":
            update["validSince"] = .string(String(emulator.clock.now().epochSeconds))
            notice = "The user's sessions were revoked."
        case "delete":
            guard form["confirm"] == "yes" else {
                return confirmation(
                    request, scope, question: "Delete the user \(localId)?",
                    detail: "The account, its factors and its sessions are removed.", action: "\(userPath)/delete",
                    verb: "Delete the user", back: userPath)
            }
            _ = try await emulator.deleteAccount(idToken: nil, localId: localId, caller: caller)
            return Self.redirect("\(InspectorViews.scopePath(scope))/users", notice: "User \(localId) was deleted.")
        default:
            throw AuthError("NOT_FOUND", "No action \(action).")
        }
        _ = try await emulator.updateAccount(
            try LenientDecoder.decode(UpdateAccountRequest.self, from: .object(update)), caller: caller)
        return Self.redirect(userPath, notice: notice)
    }

    /// The step before a destructive action: the same POST again, with `confirm=yes`.
    func confirmation(
        _ request: Request, _ scope: Scope, question: String, detail: String, action: String, verb: String,
        back: String
    ) -> Response {
        var values = Self.base(scope, title: verb)
        values["question"] = question
        values["detail"] = detail
        values["action"] = action
        values["verb"] = verb
        values["back"] = back
        return page("confirm", values, request: request)
    }

    /// add-sms, add-totp (then the secret, its URI and QR code, shown once) and remove-factor;
    /// nil for other actions.
    func factorAction(_ request: Request, _ scope: Scope, localId: String, action: String, form: [String: String])
        async throws -> Response?
    {
        let userPath = "\(InspectorViews.scopePath(scope))/users/\(InspectorViews.escapePath(localId))"
        switch action {
        case "add-sms":
            _ = try await emulator.addSecondFactor(
                scope, localId: localId, phoneNumber: form["phoneNumber"] ?? "", displayName: form["displayName"])
            return Self.redirect(userPath, notice: "SMS factor added.")
        case "remove-factor":
            try await emulator.removeSecondFactor(scope, localId: localId, enrollmentId: form["mfaEnrollmentId"] ?? "")
            return Self.redirect(userPath, notice: "Factor removed.")
        case "add-totp":
            let enrollment = try await emulator.addSecondFactor(
                scope, localId: localId, phoneNumber: nil, displayName: form["displayName"])
            let user = try await emulator.inspectorUser(scope, localId: localId)
            let secret = enrollment.totpSecret ?? ""
            let uri = Emulator.totpURI(secret: secret, account: user?.email ?? localId, issuer: scope.projectId)
            let current = try await emulator.currentTotpCode(
                scope, localId: localId, enrollmentId: enrollment.mfaEnrollmentId)
            var values = Self.base(scope, title: "TOTP factor added")
            values["userPath"] = userPath
            values["localId"] = localId
            values["mfaEnrollmentId"] = enrollment.mfaEnrollmentId
            values["secret"] = secret
            values["uri"] = uri
            values["qr"] = QRCodeImage.dataURI(uri) ?? ""
            values["code"] = current["code"]?.stringValue ?? ""
            values["seconds"] = Int(current["validForSeconds"]?.doubleValue ?? 0)
            return page("totpAdded", values, request: request)
        default:
            return nil
        }
    }

    /// The Admin SDKs' updateUser: changed fields only; an emptied field is deleted (display name,
    /// photo, phone), as `deleteAttribute` / `deleteProvider` do. A refusal shows on the page.
    func editUser(_ request: Request, _ scope: Scope, localId: String, form: [String: String]) async throws
        -> Response
    {
        guard let user = try await emulator.inspectorUser(scope, localId: localId) else { throw AuthError.userNotFound }
        var update: [String: JSONValue] = ["localId": .string(localId)]
        var deletes: [JSONValue] = []
        func field(_ name: String, _ current: String?, delete attribute: String?) {
            let value = form[name] ?? ""
            guard value != (current ?? "") else { return }
            if value.isEmpty, let attribute {
                deletes.append(.string(attribute))
            } else if !value.isEmpty {
                update[name] = .string(value)
            }
        }
        field("email", user.email, delete: nil)
        field("displayName", user.displayName, delete: "DISPLAY_NAME")
        field("photoUrl", user.photoUrl, delete: "PHOTO_URL")
        if let password = form["password"], !password.isEmpty { update["password"] = .string(password) }
        let phone = form["phoneNumber"] ?? ""
        if phone != (user.phoneNumber ?? "") {
            if phone.isEmpty {
                update["deleteProvider"] = .array(["phone"])
            } else {
                update["phoneNumber"] = .string(phone)
            }
        }
        if !deletes.isEmpty { update["deleteAttribute"] = .array(deletes) }
        let verified = form["emailVerified"] == "true"
        if verified != (user.emailVerified ?? false) { update["emailVerified"] = .bool(verified) }
        let claims = (form["customClaims"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if claims != InspectorViews.claims(user) {
            update["customAttributes"] = .string(claims.isEmpty ? "{}" : claims)
        }
        do {
            _ = try await emulator.updateAccount(
                try LenientDecoder.decode(UpdateAccountRequest.self, from: .object(update)),
                caller: Caller(scope: scope, isAdmin: true))
        } catch let error as AuthError {
            return try await self.user(request, scope, localId: localId, editError: error.message)
        }
        return Self.redirect(
            "\(InspectorViews.scopePath(scope))/users/\(InspectorViews.escapePath(localId))", notice: "Saved.")
    }
}
