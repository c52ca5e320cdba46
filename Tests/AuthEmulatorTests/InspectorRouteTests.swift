import AuthEmulator
import Foundation
import HTTPTypes
import Testing

/// `/emulator/ui`: pages, escaping, CSRF and the credential off loopback.
@Suite("inspector pages")
struct InspectorRouteTests {
    static let users = "/emulator/ui/projects/example/users"

    static func cookie(_ reply: Harness.Reply) -> String {
        let header = reply.headers[.setCookie] ?? ""
        return String(header.split(separator: ";").first ?? "")
    }

    static func html(_ reply: Harness.Reply) -> String { reply.json.stringValue ?? "" }

    @Test("pages answer HTML with the CSP, escape a hostile display name, and list users by search prefix")
    func pages() async throws {
        try await Harness().run { client in
            let created = try await client.v1(
                "accounts:signUp",
                ["email": "ada@example.com", "password": "secret123", "displayName": "<img src=x onerror=alert(1)>"])
            #expect(created.status == 200)
            #expect(try await client.signUp("bob@example.com").status == 200)
            let overview = try await client.call(.get, "/emulator/ui/", key: false)
            #expect(overview.status == 200)
            #expect(overview.headers[.contentType] == "text/html; charset=utf-8")
            #expect(
                overview.headers[HTTPField.Name("Content-Security-Policy")!]?.hasPrefix(
                    "default-src 'none'; script-src 'self'") == true)
            #expect(Self.html(overview).contains(#"data-scope="/emulator/ui/projects/example""#))
            let list = try await client.call(.get, Self.users, key: false)
            let page = Self.html(list)
            #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(!page.contains("<img src=x"))
            #expect(page.components(separatedBy: #"data-testid="user-row""#).count == 3)
            let search = Self.html(try await client.call(.get, "\(Self.users)?q=ADA", key: false))
            #expect(search.components(separatedBy: #"data-testid="user-row""#).count == 2)
            #expect(search.contains(#"data-uid="\#(created.string("localId"))""#))
            let miss = Self.html(try await client.call(.get, "\(Self.users)?q=zz", key: false))
            #expect(miss.contains("No users whose uid, email, phone or display name starts with “zz”."))
            let uid = Self.html(
                try await client.call(.get, "\(Self.users)?q=\(created.string("localId").prefix(6))", key: false))
            #expect(uid.contains(#"data-uid="\#(created.string("localId"))""#))
            let detail = try await client.call(.get, "\(Self.users)/\(created.string("localId"))", key: false)
            #expect(detail.status == 200)
            #expect(Self.html(detail).contains("&lt;img src=x onerror=alert(1)&gt;"))
            let missing = try await client.call(.get, "\(Self.users)/nobody", key: false)
            #expect(missing.status == 400)
            #expect(Self.html(missing).contains("No user nobody in example."))
            let messages = try await client.call(.get, "/emulator/ui/projects/example/messages", key: false)
            #expect(messages.status == 200)
        }
    }

    @Test("a POST needs the CSRF token of its page's cookie; then it creates the user through the domain")
    func csrf() async throws {
        try await Harness().run { client in
            let page = try await client.call(.get, Self.users, key: false)
            let cookie = Self.cookie(page)
            let token = String(cookie.dropFirst("authemu_csrf=".count))
            #expect(token.count == 43)
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            var withCookie = form
            withCookie[.cookie] = cookie
            let forged = try await client.call(
                .post, Self.users, "email=x%40example.com&password=secret123", key: false, headers: withCookie)
            #expect(forged.status == 403)
            let noCookie = try await client.call(
                .post, Self.users, "_csrf=\(token)&email=x%40example.com&password=secret123", key: false, headers: form)
            #expect(noCookie.status == 403)
            let created = try await client.call(
                .post, Self.users,
                "_csrf=\(token)&email=new%40example.com&password=secret123&customClaims=%7B%22role%22%3A%22admin%22%7D",
                key: false, headers: withCookie)
            #expect(created.status == 303)
            #expect(created.headers[.location]?.hasPrefix("\(Self.users)/") == true)
            let lookup = try await client.v1(
                "accounts:signInWithPassword", ["email": "new@example.com", "password": "secret123"])
            #expect(lookup.string("idToken").jwtPayload["role"] == "admin")
            let refused = try await client.call(
                .post, Self.users, "_csrf=\(token)&email=new%40example.com&password=secret123", key: false,
                headers: withCookie)
            #expect(refused.status == 400)
            #expect(Self.html(refused).contains("EMAIL_EXISTS"))
        }
    }

    @Test("off loopback: pages redirect to the login form, the admin token sets an HttpOnly SameSite cookie")
    func login() async throws {
        try await Harness(host: "0.0.0.0").run { client in
            let page = try await client.call(.get, Self.users, key: false)
            #expect(page.status == 303)
            #expect(page.headers[.location] == "/emulator/ui/login?next=/emulator/ui/projects/example/users")
            let form = try await client.call(.get, "/emulator/ui/login?next=\(Self.users)", key: false)
            let cookie = Self.cookie(form)
            let token = cookie.dropFirst("authemu_csrf=".count)
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: cookie]
            let wrong = try await client.call(
                .post, "/emulator/ui/login", "_csrf=\(token)&token=guess&next=\(Self.users)", key: false,
                headers: headers)
            #expect(wrong.status == 403)
            let right = try await client.call(
                .post, "/emulator/ui/login", "_csrf=\(token)&token=owner&next=\(Self.users)", key: false,
                headers: headers)
            #expect(right.status == 303)
            #expect(right.headers[.location] == Self.users)
            // The cookie holds a session value the daemon issued, never the token.
            let setCookie = right.headers[.setCookie] ?? ""
            let session = String(setCookie.prefix { $0 != ";" })
            #expect(setCookie.hasSuffix("; Path=/emulator/ui; HttpOnly; SameSite=Strict"))
            #expect(session.hasPrefix("authemu_admin=") && session.count == "authemu_admin=".count + 22 + 1 + 43)
            let allowed = try await client.call(.get, Self.users, key: false, headers: [.cookie: session])
            #expect(allowed.status == 200)
            for forged in ["authemu_admin=owner", String(session.dropLast()) + (session.hasSuffix("A") ? "B" : "A")] {
                let refused = try await client.call(.get, Self.users, key: false, headers: [.cookie: forged])
                #expect(refused.status == 303, "\(forged)")
            }
            let bearer = try await client.call(.get, Self.users, admin: true, key: false)
            #expect(bearer.status == 200)
            let elsewhere = try await client.call(
                .post, "/emulator/ui/login", "_csrf=\(token)&token=owner&next=https://evil.example/", key: false,
                headers: headers)
            #expect(elsewhere.headers[.location] == "/emulator/ui/")
        }
    }
}

/// The inspector's settings page and factor actions.
@Suite("inspector settings and factors")
struct InspectorSettingsTests {
    static let base = "/emulator/ui/projects/example"

    /// A page's CSRF cookie and token, for the POSTs after it.
    static func session(_ client: Harness.Client, _ path: String) async throws -> (HTTPFields, String) {
        let page = try await client.call(.get, path, key: false)
        let cookie = InspectorRouteTests.cookie(page)
        let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .cookie: cookie]
        return (headers, String(cookie.dropFirst("authemu_csrf=".count)))
    }

    @Test("test phone numbers and a JSON section save through the config API; its errors show on the page")
    func settings() async throws {
        try await Harness().run { client in
            let (headers, token) = try await Self.session(client, "\(Self.base)/config")
            let numbers = try await client.call(
                .post, "\(Self.base)/config/test-phone-numbers", "_csrf=\(token)&numbers=%2B15555550188+654321",
                key: false, headers: headers)
            #expect(numbers.status == 303)
            let sent = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": "+15555550188"])
            let signedIn = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": sent["sessionInfo"]!, "code": "654321"])
            #expect(signedIn.status == 200)
            let bad = try await client.call(
                .post, "\(Self.base)/config", "_csrf=\(token)&section=mfa&value=%7B%22state%22%3A%22SOMETIMES%22%7D",
                key: false, headers: headers)
            #expect(bad.status == 400)
            let html = InspectorRouteTests.html(bad)
            #expect(html.contains(#"data-testid="config-error">INVALID_CONFIG"#))
            #expect(html.contains("SOMETIMES"))
            let good = try await client.call(
                .post, "\(Self.base)/config",
                "_csrf=\(token)&section=emulatorSettings&value=%7B%22smsCodeLifetimeSeconds%22%3A60%7D", key: false,
                headers: headers)
            #expect(good.status == 303)
            let config = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v2/projects/example/config", admin: true)
            #expect(config["emulatorSettings"] == .object(["smsCodeLifetimeSeconds": 60]))
            let notJSON = try await client.call(
                .post, "\(Self.base)/config", "_csrf=\(token)&section=mfa&value=%7Bnope", key: false, headers: headers)
            #expect(InspectorRouteTests.html(notJSON).contains("INVALID_JSON : the text is not JSON"))
        }
    }

    @Test("a TOTP factor added in the page shows its secret, otpauth URI and a QR code; remove drops it")
    func totpFactor() async throws {
        try await Harness().run { client in
            let user = try await MfaRouteTests.verifiedUser(client, "qr@example.com")
            let userPath = "\(Self.base)/users/\(user.string("localId"))"
            let (headers, token) = try await Self.session(client, userPath)
            let added = try await client.call(
                .post, "\(userPath)/add-totp", "_csrf=\(token)&displayName=Phone+app", key: false, headers: headers)
            #expect(added.status == 200)
            let html = InspectorRouteTests.html(added)
            let secret = html.components(separatedBy: #"data-testid="totp-secret">"#)[1].prefix(32)
            #expect(
                html.contains(
                    "otpauth://totp/example:qr@example.com?secret=\(secret)&amp;issuer=example&amp;algorithm=SHA1&amp;digits=6&amp;period=30"
                ))
            #expect(html.contains(#"src="data:image/svg+xml;base64,"#))
            let lookup = try await client.v1("accounts:lookup", ["localId": .array([user["localId"]!])], admin: true)
            let factor = lookup["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first
            #expect(factor?["displayName"] == "Phone app")
            let removed = try await client.call(
                .post, "\(userPath)/remove-factor",
                "_csrf=\(token)&mfaEnrollmentId=\(factor?["mfaEnrollmentId"]?.stringValue ?? "")",
                key: false, headers: headers)
            #expect(removed.status == 303)
            let after = try await client.v1("accounts:lookup", ["localId": .array([user["localId"]!])], admin: true)
            #expect(after["users"]?.arrayValue?.first?["mfaInfo"] == nil)
        }
    }
}

/// The inspector's tools page.
@Suite("inspector tools")
struct InspectorToolTests {
    static let base = "/emulator/ui/projects/example"

    @Test("mint a credential, download the users, upload them into a new tenant")
    func tools() async throws {
        try await Harness().run { client in
            #expect(try await client.signUp("export@example.com").status == 200)
            let (headers, token) = try await InspectorSettingsTests.session(client, "\(Self.base)/tools")
            let minted = try await client.call(
                .post, "\(Self.base)/tools/credential", "_csrf=\(token)&kind=RECAPTCHA_ENTERPRISE&valid=true",
                key: false,
                headers: headers)
            #expect(minted.status == 200)
            #expect(
                InspectorRouteTests.html(minted).contains(
                    #"data-testid="app-credential">authemu-recaptcha_enterprise-"#))
            let exported = try await client.call(.get, "\(Self.base)/tools/export", key: false)
            #expect(exported.headers[.contentDisposition] == #"attachment; filename="accounts.json""#)
            let users = exported["users"]?.arrayValue ?? []
            #expect(users.map { $0["email"] } == ["export@example.com"])
            let tenant = try await client.call(
                .post, "\(Self.base)/tools/tenant", "_csrf=\(token)&displayName=Imported", key: false, headers: headers)
            #expect(tenant.status == 303)
            let tenantUsers = tenant.headers[.location]?.components(separatedBy: "?").first ?? ""
            #expect(tenantUsers.hasPrefix("\(Self.base)/tenants/") && tenantUsers.hasSuffix("/users"))
            let tenantBase = String(tenantUsers.dropLast("/users".count))
            let body = JSONValue.object(["users": .array(users)]).jsonString()
            let encoded = body.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let imported = try await client.call(
                .post, "\(tenantBase)/tools/import", "_csrf=\(token)&accounts=\(encoded)", key: false, headers: headers)
            #expect(imported.status == 303)
            #expect(imported.headers[.location]?.contains("Imported%201%20user") == true)
            let page = InspectorRouteTests.html(try await client.call(.get, tenantUsers, key: false))
            #expect(page.contains("export@example.com"))
            let garbage = try await client.call(
                .post, "\(tenantBase)/tools/import", "_csrf=\(token)&accounts=%7Bnope", key: false, headers: headers)
            #expect(garbage.status == 400)
        }
    }
}

/// Editing a user in the inspector.
@Suite("inspector user edit")
struct InspectorEditTests {
    @Test("edit changes only what changed, an emptied name is deleted, and a refusal shows on the page")
    func edit() async throws {
        try await Harness().run { client in
            let user = try await client.v1(
                "accounts:signUp", ["email": "edit@example.com", "password": "secret123", "displayName": "Old"])
            let other = try await client.signUp("taken@example.com")
            #expect(other.status == 200)
            let path = "/emulator/ui/projects/example/users/\(user.string("localId"))"
            let (headers, token) = try await InspectorSettingsTests.session(client, path)
            let saved = try await client.call(
                .post, "\(path)/edit",
                "_csrf=\(token)&email=edit%40example.com&displayName=&phoneNumber=%2B15555550142&emailVerified=true&customClaims=%7B%22tier%22%3A1%7D",
                key: false, headers: headers)
            #expect(saved.status == 303)
            let lookup = try await client.v1("accounts:lookup", ["localId": .array([user["localId"]!])], admin: true)
            let record = lookup["users"]?.arrayValue?.first
            #expect(record?["displayName"] == nil)
            #expect(record?["phoneNumber"] == "+15555550142")
            #expect(record?["emailVerified"] == true)
            #expect(record?["customAttributes"] == #"{"tier":1}"#)
            let signIn = try await client.v1(
                "accounts:signInWithPassword", ["email": "edit@example.com", "password": "secret123"])
            #expect(signIn.status == 200)
            let refused = try await client.call(
                .post, "\(path)/edit", "_csrf=\(token)&email=taken%40example.com&phoneNumber=%2B15555550142",
                key: false,
                headers: headers)
            #expect(refused.status == 400)
            #expect(InspectorRouteTests.html(refused).contains(#"data-testid="edit-error">EMAIL_EXISTS"#))
        }
    }
}

/// The inspector's other actions, each through the domain, destructive ones after a confirmation.
@Suite("inspector actions")
struct InspectorActionTests {
    static let base = "/emulator/ui/projects/example"

    @Test("disable, enable, revoke, add an SMS factor, delete and clear (confirmed), clear the outbox")
    func actions() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let user = try await MfaRouteTests.verifiedUser(client, "acts@example.com")
            let path = "\(Self.base)/users/\(user.string("localId"))"
            let (headers, token) = try await InspectorSettingsTests.session(client, path)
            func post(_ action: String, _ extra: String = "") async throws -> Harness.Reply {
                try await client.call(.post, action, "_csrf=\(token)\(extra)", key: false, headers: headers)
            }
            #expect(try await post("\(path)/disable").status == 303)
            let disabled = try await client.v1(
                "accounts:signInWithPassword", ["email": "acts@example.com", "password": "secret123"])
            #expect(disabled.errorMessage == "USER_DISABLED")
            #expect(try await post("\(path)/enable").status == 303)
            harness.clock.advance(by: 1)
            #expect(try await post("\(path)/revoke").status == 303)
            let revoked = try await client.v1("accounts:lookup", ["idToken": user["idToken"]!])
            #expect(revoked.errorMessage == "TOKEN_EXPIRED")
            #expect(try await post("\(path)/add-sms", "&phoneNumber=%2B15555550143&displayName=Work").status == 303)
            let lookup = try await client.v1("accounts:lookup", ["localId": .array([user["localId"]!])], admin: true)
            #expect(lookup["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first?["phoneInfo"] == "+15555550143")
            let badPhone = try await post("\(path)/add-sms", "&phoneNumber=12")
            #expect(badPhone.status == 400)
            #expect(InspectorRouteTests.html(badPhone).contains("INVALID_MFA_PHONE_NUMBER"))
            let ask = try await post("\(path)/delete")
            #expect(ask.status == 200)
            #expect(InspectorRouteTests.html(ask).contains(#"data-action="confirm""#))
            #expect(try await post("\(path)/delete", "&confirm=yes").status == 303)
            #expect(try await client.call(.get, path, key: false).status == 400)
            #expect(try await client.signUp("left@example.com").status == 200)
            let askAll = InspectorRouteTests.html(try await post("\(Self.base)/users/clear"))
            #expect(askAll.contains("Delete every user"))
            #expect(askAll.contains("email codes, SMS and APNs messages"))
            #expect(try await post("\(Self.base)/users/clear", "&confirm=yes").status == 303)
            let count = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:query",
                #"{"returnUserInfo":false}"#,
                admin: true)
            #expect(count["recordsCount"] == "0")
            #expect(try await client.v1("accounts:sendVerificationCode", ["phoneNumber": "+15555550144"]).status == 200)
            #expect(try await post("\(Self.base)/messages/clear").status == 303)
            let outbox = try await client.call(.get, "/emulator/v1/projects/example/smsMessages", key: false)
            #expect(outbox["smsMessages"] == .array([]))
        }
    }

    @Test("the overview pages through projects, 20 a page, and through a project's tenants")
    func overviewPages() async throws {
        try await Harness().run { client in
            for index in 0..<22 {
                let id = String(format: "p%02d", index)
                let config = try await client.call(.get, "/emulator/v1/projects/\(id)/config", key: false)
                #expect(config.status == 200)
                #expect(try await client.v1("projects/\(id)/accounts", ["localId": "u"], admin: true).status == 200)
            }
            for index in 0..<23 {
                let path =
                    "/identitytoolkit.googleapis.com/v1/projects/p00/tenants/t\(String(format: "%02d", index))/accounts"
                #expect(try await client.call(.post, path, #"{"localId":"u"}"#, admin: true).status == 200)
            }
            func rows(_ html: String) -> [String] {
                html.components(separatedBy: #"data-scope=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
            }
            let first = InspectorRouteTests.html(try await client.call(.get, "/emulator/ui/", key: false))
            let firstRows = rows(first)
            // The default project first, then 20 projects, each with at most 20 tenants.
            #expect(firstRows.first == "/emulator/ui/projects/example")
            #expect(firstRows.filter { !$0.contains("/tenants/") }.count == 21)
            #expect(firstRows.filter { $0.hasPrefix("/emulator/ui/projects/p00/tenants/") }.count == 20)
            #expect(
                first.contains(#"href="/emulator/ui/?project=p00&amp;tenantsAfter=t19" data-testid="more-tenants""#))
            #expect(first.contains(#"href="/emulator/ui/?after=p19" data-testid="next-page""#))
            let second = rows(
                InspectorRouteTests.html(try await client.call(.get, "/emulator/ui/?after=p19", key: false)))
            #expect(second == ["/emulator/ui/projects/p20", "/emulator/ui/projects/p21"])
            let tenants = InspectorRouteTests.html(
                try await client.call(.get, "/emulator/ui/?project=p00&tenantsAfter=t19", key: false))
            #expect(
                rows(tenants) == [
                    "/emulator/ui/projects/p00", "/emulator/ui/projects/p00/tenants/t20",
                    "/emulator/ui/projects/p00/tenants/t21", "/emulator/ui/projects/p00/tenants/t22",
                ])
            #expect(!tenants.contains("next-page"))
            let bad = try await client.call(.get, "/emulator/ui/?project=a%2Fb", key: false)
            #expect(bad.status == 400)
        }
    }
}
