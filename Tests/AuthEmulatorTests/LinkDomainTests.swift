import AuthEmulator
import Foundation
import Testing

/// `ActionCodeSettings.linkDomain` (issue 31, part 2): in-app links on a Hosting domain, as the
/// Admin SDK's integration suite takes them apart.
@Suite("email action links on a custom domain")
struct LinkDomainTests {
    static let domain = "kobayashimaru.testdomaindonotuse.com"
    static let continueUrl = "http://localhost/?a=1&b=2#c=3"

    static func resetLink(_ client: Harness.Client, _ settings: [String: JSONValue]) async throws -> Harness.Reply {
        var body: [String: JSONValue] = [
            "requestType": "PASSWORD_RESET", "email": "links@example.com", "returnOobLink": true,
            "continueUrl": .string(continueUrl),
        ]
        body.merge(settings) { _, new in new }
        return try await client.v1("projects/example/accounts:sendOobCode", body, admin: true)
    }

    /// The action URL in the `link` parameter, as `extractLinkUrl` of the Admin SDK's suite reads it.
    static func actionURL(_ link: String) -> URLComponents? {
        let inner = URLComponents(string: link)?.queryItems?.first { $0.name == "link" }?.value
        return inner.flatMap { URLComponents(string: $0) }
    }

    @Test(
        "with canHandleCodeInApp the link is https://<linkDomain>/__/auth/links?link=<action URL>, and its code works")
    func wrappedLink() async throws {
        try await Harness().run { client in
            try await client.signUp("links@example.com").ok()
            let reply = try await Self.resetLink(
                client, ["canHandleCodeInApp": true, "linkDomain": .string(Self.domain)])
            #expect(reply.status == 200)
            let link = reply.string("oobLink")
            let outer = URLComponents(string: link)
            #expect(outer?.scheme == "https")
            #expect(outer?.host == Self.domain)
            #expect(outer?.path == "/__/auth/links")
            let action = try #require(Self.actionURL(link))
            let query = Dictionary(uniqueKeysWithValues: (action.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(action.path == "/emulator/action")
            #expect(query["mode"] == "resetPassword")
            #expect(query["oobCode"] == reply.string("oobCode"))
            #expect(query["continueUrl"] == Self.continueUrl)
            #expect(query["apiKey"] != nil)
            let listed = try await client.call(.get, "/emulator/v1/projects/example/oobCodes", key: false)
            #expect(listed["oobCodes"]?.arrayValue?.last?["oobLink"] == .string(link))
            let reset = try await client.v1(
                "accounts:resetPassword", ["oobCode": .string(query["oobCode"] ?? ""), "newPassword": "another123"])
            #expect(reset.status == 200)
            #expect(reset["requestType"] == "PASSWORD_RESET")
        }
    }

    @Test("without canHandleCodeInApp, or without linkDomain, the link is the emulator's action URL")
    func plainLinks() async throws {
        try await Harness().run { client in
            try await client.signUp("links@example.com").ok()
            for settings: [String: JSONValue] in [
                ["canHandleCodeInApp": false, "linkDomain": .string(Self.domain)], ["canHandleCodeInApp": true],
                ["canHandleCodeInApp": true, "linkDomain": ""],
            ] {
                let reply = try await Self.resetLink(client, settings)
                #expect(URLComponents(string: reply.string("oobLink"))?.path == "/emulator/action", "\(settings)")
            }
        }
    }

    @Test("a default Hosting domain is refused, the project's own too; listed hostingDomains restrict the rest")
    func domainChecks() async throws {
        try await Harness().run { client in
            try await client.signUp("links@example.com").ok()
            let refusal =
                "INVALID_HOSTING_LINK_DOMAIN : The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. This cannot be a default hosting domain (web.app or firebaseapp.com)."
            for domain in [
                "invaliddomain.firebaseapp.com", "other.web.app", "example.firebaseapp.com", "EXAMPLE.web.app",
                "https://links.example.com", "no_dots",
            ] {
                let reply = try await Self.resetLink(
                    client, ["canHandleCodeInApp": true, "linkDomain": .string(domain)])
                #expect(reply.status == 400, "\(domain)")
                #expect(reply.errorMessage == refusal, "\(domain)")
            }
            for domain in ["Links.Example.com", "cool.link"] {
                let reply = try await Self.resetLink(
                    client, ["canHandleCodeInApp": true, "linkDomain": .string(domain)])
                #expect(URLComponents(string: reply.string("oobLink"))?.host == domain.lowercased(), "\(domain)")
            }
            let listed = try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings",
                #"{"emulatorSettings":{"hostingDomains":["links.example.com"]}}"#, admin: true)
            #expect(listed.status == 200)
            let unlisted = try await Self.resetLink(
                client, ["canHandleCodeInApp": true, "linkDomain": "other.example.org"])
            #expect(unlisted.errorMessage == refusal)
            let allowed = try await Self.resetLink(
                client, ["canHandleCodeInApp": true, "linkDomain": "links.example.com"])
            #expect(allowed.status == 200)
            let bad = try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings",
                #"{"emulatorSettings":{"hostingDomains":["https://links.example.com"]}}"#, admin: true)
            #expect(bad.status == 400)
            #expect(bad.errorMessage == "INVALID_CONFIG : emulatorSettings.hostingDomains must be a list of host names")
        }
    }

    @Test("a client's email-link sign-in on a custom domain: the listed link's code signs in")
    func clientEmailLink() async throws {
        try await Harness().run { client in
            let sent = try await client.v1(
                "accounts:sendOobCode",
                [
                    "requestType": "EMAIL_SIGNIN", "email": "inapp@example.com", "canHandleCodeInApp": true,
                    "continueUrl": .string(Self.continueUrl), "linkDomain": .string(Self.domain),
                ])
            #expect(sent.status == 200)
            let listed = try await client.call(.get, "/emulator/v1/projects/example/oobCodes", key: false)
            let link = listed["oobCodes"]?.arrayValue?.last?["oobLink"]?.stringValue ?? ""
            #expect(URLComponents(string: link)?.host == Self.domain)
            let code = Self.actionURL(link)?.queryItems?.first { $0.name == "oobCode" }?.value ?? ""
            let signedIn = try await client.v1(
                "accounts:signInWithEmailLink", ["email": "inapp@example.com", "oobCode": .string(code)])
            #expect(signedIn.status == 200)
            #expect(signedIn["email"] == "inapp@example.com")
        }
    }

    @Test(
        "notification.sendEmail.callbackUri: links open the project's own action handler, with production's parameters")
    func customActionHandler() async throws {
        try await Harness().run { client in
            try await client.signUp("links@example.com").ok()
            func handler(_ uri: String) async throws -> Harness.Reply {
                try await client.call(
                    .patch,
                    "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=notification.sendEmail.callbackUri",
                    #"{"notification":{"sendEmail":{"callbackUri":"\#(uri)"}}}"#, admin: true)
            }
            #expect(try await handler("https://app.example.com/auth/action").status == 200)
            let plain = try await Self.resetLink(client, [:])
            let code = plain.string("oobCode")
            #expect(
                plain.string("oobLink")
                    == "https://app.example.com/auth/action?mode=resetPassword&lang=en&oobCode=\(code)&apiKey=fake-api-key&continueUrl=http%3A%2F%2Flocalhost%2F%3Fa%3D1%26b%3D2%23c%3D3"
            )
            let wrapped = try await Self.resetLink(
                client, ["canHandleCodeInApp": true, "linkDomain": .string(Self.domain)])
            #expect(Self.actionURL(wrapped.string("oobLink"))?.host == "app.example.com")
            #expect(try await handler("https://app.example.com/a?x=1").status == 200)
            #expect(
                try await Self.resetLink(client, [:]).string("oobLink").hasPrefix("https://app.example.com/a?x=1&mode=")
            )
            let bad = try await handler("not a url")
            #expect(bad.status == 400)
            #expect(bad.errorMessage == "INVALID_CONFIG : notification.sendEmail.callbackUri must be an absolute URL")
            let reset = try await client.v1(
                "accounts:resetPassword", ["oobCode": .string(code), "newPassword": "another123"])
            #expect(reset.status == 200)
        }
    }
}
