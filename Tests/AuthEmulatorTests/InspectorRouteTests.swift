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
            _ = try await client.signUp("bob@example.com")
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
            #expect(right.headers[.setCookie] == "authemu_admin=owner; Path=/emulator/ui; HttpOnly; SameSite=Strict")
            let allowed = try await client.call(.get, Self.users, key: false, headers: [.cookie: "authemu_admin=owner"])
            #expect(allowed.status == 200)
            let bearer = try await client.call(.get, Self.users, admin: true, key: false)
            #expect(bearer.status == 200)
            let elsewhere = try await client.call(
                .post, "/emulator/ui/login", "_csrf=\(token)&token=owner&next=https://evil.example/", key: false,
                headers: headers)
            #expect(elsewhere.headers[.location] == "/emulator/ui/")
        }
    }
}
