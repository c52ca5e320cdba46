import AuthEmulator
import Foundation
import Testing

/// firebase-tools' idp.spec cases: the fake IdP's response shapes and the account rules of
/// `accounts:signInWithIdp` (linking, one account per email, confirmation, SAML).
@Suite("signInWithIdp as firebase-tools' idp.spec")
struct IdpSignInTests {
    static func postBody(_ providerId: String, _ claims: [String: JSONValue]) -> JSONValue {
        let token = JSONValue.object(claims).jsonString()
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
        return .string("providerId=\(providerId)&id_token=\(encoded)")
    }

    static func signIn(
        _ client: Harness.Client, _ providerId: String, _ claims: [String: JSONValue],
        _ extra: [String: JSONValue] = [:]
    ) async throws -> Harness.Reply {
        var body: [String: JSONValue] = [
            "postBody": postBody(providerId, claims), "requestUri": "http://localhost", "returnSecureToken": true,
        ]
        for (key, value) in extra { body[key] = value }
        return try await client.v1("accounts:signInWithIdp", body)
    }

    static func methods(_ client: Harness.Client, _ email: String) async throws -> [String] {
        let reply = try await client.v1(
            "accounts:createAuthUri", ["identifier": .string(email), "continueUri": "http://example.com/"])
        return reply["signinMethods"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    static func lookup(_ client: Harness.Client, _ idToken: String) async throws -> JSONValue? {
        try await client.v1("accounts:lookup", ["idToken": .string(idToken)])["users"]?.arrayValue?.first
    }

    @Test("google.com answers in Google's shape; other IdPs echo the claims; the user gets the profile")
    func responseShapes() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let claims: [String: JSONValue] = [
                "sub": "123456789012345678901", "name": "Ada Lovelace", "given_name": "Ada", "family_name": "Lovelace",
                "picture": "http://localhost/ada.png", "screen_name": "ada",
            ]
            let google = try await Self.signIn(client, "google.com", claims, ["returnIdpCredential": true])
            #expect(google.status == 200)
            #expect(google["isNewUser"] == true)
            #expect(google.string("federatedId") == "https://accounts.google.com/123456789012345678901")
            #expect(google.string("firstName") == "Ada")
            #expect(google.string("lastName") == "Lovelace")
            #expect(google.string("fullName") == "Ada Lovelace")
            #expect(google.string("oauthAccessToken") == "FirebaseAuthEmulatorFakeAccessToken_google.com")
            let raw = try JSONValue.parse(Data(google.string("rawUserInfo").utf8))
            #expect(
                raw
                    == .object([
                        "granted_scopes": "openid https://www.googleapis.com/auth/userinfo.profile",
                        "id": "123456789012345678901", "name": "Ada Lovelace", "given_name": "Ada",
                        "family_name": "Lovelace", "verified_email": false, "locale": "en",
                        "picture": "http://localhost/ada.png",
                    ]))
            let user = try await Self.lookup(client, google.string("idToken"))
            #expect(user?["screenName"]?.stringValue == "ada")
            #expect(user?["displayName"]?.stringValue == "Ada Lovelace")
            let again = try await Self.signIn(client, "google.com", claims)
            #expect(again.string("localId") == google.string("localId"))
            #expect(again["isNewUser"] == nil)

            let apple = try await Self.signIn(client, "Apple.com", ["sub": "a-1", "email": "A@Example.com"])
            #expect(apple.string("providerId") == "apple.com")
            #expect(apple.string("federatedId") == "a-1")
            #expect(apple.string("email") == "a@example.com")
            #expect(
                try JSONValue.parse(Data(apple.string("rawUserInfo").utf8))
                    == .object(["sub": "a-1", "email": "A@Example.com"]))
        }
    }

    @Test("bad credentials: no providerId, no or non-string sub, unparsable JSON, relative requestUri, no id_token")
    func credentialErrors() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func attempt(_ postBody: String, _ requestUri: String = "http://localhost") async throws -> Harness.Reply {
                try await client.v1(
                    "accounts:signInWithIdp", ["postBody": .string(postBody), "requestUri": .string(requestUri)])
            }
            let noProvider = try await attempt("id_token=%7B%22sub%22%3A%22x%22%7D")
            #expect(noProvider.status == 400)
            #expect(
                noProvider.errorMessage?.hasPrefix(
                    "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: http://localhost?") == true)
            #expect(
                try await attempt("providerId=google.com&id_token={}").errorMessage
                    == #"INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. ((Missing "sub" field. This field is required and must be a unique identifier.))"#
            )
            #expect(
                try await attempt(#"providerId=google.com&id_token={"sub":12345}"#).errorMessage
                    == #"INVALID_IDP_RESPONSE : ((The "sub" field must be a string.))"#)
            #expect(
                try await attempt("providerId=google.com&id_token={nope").errorMessage
                    == "INVALID_IDP_RESPONSE : Unable to parse id_token: {nope ((Auth Emulator failed to parse fake id_token as strict JSON.))"
            )
            #expect(
                try await attempt("providerId=google.com&id_token=x", "relative").errorMessage == "INVALID_REQUEST_URI")
            // An access token alone signs in, as production: JSON claims like an id_token, an opaque
            // string as a user keyed by it (the same token is the same user), for any provider.
            for provider in ["facebook.com", "google.com", "github.com"] {
                let first = try await attempt("providerId=\(provider)&access_token=opaque-\(provider)")
                #expect(first.status == 200)
                #expect(first["isNewUser"] == true)
                #expect(first["federatedId"]?.stringValue?.hasSuffix("opaque-\(provider)") == true)
                #expect(first["email"] == nil)
                #expect(first["displayName"] == nil)
                #expect(first.string("oauthAccessToken") == "opaque-\(provider)")
                let again = try await attempt("providerId=\(provider)&access_token=opaque-\(provider)")
                #expect(again["localId"] == first["localId"])
                #expect(again["isNewUser"] == nil || again["isNewUser"] == false)
            }
            let long = String(repeating: "t", count: 200)
            let hashed = try await attempt("providerId=github.com&access_token=\(long)")
            #expect(hashed.status == 200)
            #expect(
                hashed.string("federatedId")
                    == "sha256:8cbeafc05ce09a3eac73af9f501dfe20dc47081e87ab7ed00a1437c8bac3f3b5")
            let claimsToken = try await attempt(
                "providerId=facebook.com&access_token=%7B%22sub%22%3A%22fb-9%22%2C%22email%22%3A%22fb%40example.com%22%7D"
            )
            #expect(claimsToken.string("federatedId") == "fb-9")
            #expect(claimsToken.string("email") == "fb@example.com")
            // Parameters may come in requestUri's query (and fragment) instead of postBody.
            let inUri = try await client.v1(
                "accounts:signInWithIdp",
                ["requestUri": "http://localhost?providerId=google.com#id_token=%7B%22sub%22%3A%22q%22%7D"])
            #expect(inUri.status == 200)
            #expect(inUri.string("federatedId") == "https://accounts.google.com/q")
        }
    }

    @Test("one account per email: unverified match needs confirmation; verified IdP takes over an unverified account")
    func emailMatching() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let facebook = try await Self.signIn(
                client, "facebook.com", ["sub": "f-1", "email": "bar@example.com", "name": "Bar"])
            let unverified = try await Self.signIn(
                client, "google.com", ["sub": "g-1", "email": "bar@example.com", "name": "Foo"])
            #expect(unverified.status == 200)
            #expect(unverified["needConfirmation"] == true)
            #expect(unverified.string("localId") == facebook.string("localId"))
            #expect(unverified["verifiedProvider"] == .array(["facebook.com"]))
            #expect(unverified["idToken"] == nil)
            #expect(try await Self.methods(client, "bar@example.com") == ["facebook.com"])

            let owner = try await client.v1(
                "accounts:signUp", ["email": "foo@example.com", "password": "notasecret", "displayName": "Foo"])
            harness.clock.advance(by: 2)
            let verified = try await Self.signIn(
                client, "google.com",
                ["sub": "g-2", "email": "foo@example.com", "email_verified": true, "picture": "http://localhost/p.png"])
            #expect(verified.string("localId") == owner.string("localId"))
            #expect(try await Self.methods(client, "foo@example.com") == ["google.com"])
            let user = try await Self.lookup(client, verified.string("idToken"))
            #expect(user?["emailVerified"] == true)
            #expect(user?["photoUrl"]?.stringValue == "http://localhost/p.png")
            #expect(user?["displayName"] == nil)
            #expect(user?["passwordHash"] == nil)
            // The password's holder is signed out: its tokens predate the takeover.
            let stale = try await client.v1("accounts:lookup", ["idToken": .string(owner.string("idToken"))])
            #expect(stale.errorMessage == "TOKEN_EXPIRED")
            // The address still has an account: its dropped password is a wrong one, not an unknown email.
            for privacy in [true, false] {  // ends with privacy off, as before
                let config = try await client.call(
                    .patch,
                    "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=emailPrivacyConfig",
                    #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":\#(privacy)}}"#, admin: true)
                #expect(config.status == 200)
                let passwordGone = try await client.v1(
                    "accounts:signInWithPassword", ["email": "foo@example.com", "password": "notasecret"])
                #expect(passwordGone.status == 400)
                #expect(passwordGone.errorMessage == (privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD"))
            }
            // The same provider with another subject for this address: the IdP recycled it.
            let recycled = try await Self.signIn(
                client, "google.com", ["sub": "g-3", "email": "foo@example.com", "email_verified": true])
            #expect(recycled["emailRecycled"] == true)
            #expect(recycled.string("localId") == owner.string("localId"))
        }
    }

    @Test("linking by ID token: already linked, email of another account, email copied to a phone account")
    func linking() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let claims: [String: JSONValue] = ["sub": "g-1", "email": "alice@example.com"]
            let linked = try await Self.signIn(client, "google.com", claims)
            let same = try await Self.signIn(
                client, "google.com", claims,
                ["idToken": .string(linked.string("idToken")), "returnIdpCredential": true])
            #expect(same.status == 200)
            #expect(same.string("errorMessage") == "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(same["localId"] == nil)
            #expect(same["refreshToken"] == nil)
            let other = try await client.signUp("foo@example.com")
            let taken = try await Self.signIn(
                client, "google.com", claims, ["idToken": .string(other.string("idToken"))])
            #expect(taken.status == 400)
            #expect(taken.errorMessage == "FEDERATED_USER_ID_ALREADY_LINKED")
            let clash = try await Self.signIn(
                client, "facebook.com", ["sub": "f-1", "email": "alice@example.com"],
                ["idToken": .string(other.string("idToken"))])
            #expect(clash.errorMessage == "EMAIL_EXISTS")
            #expect(try await Self.methods(client, "foo@example.com") == ["password"])

            let anonymous = try await client.v1("accounts:signUp", ["returnSecureToken": true])
            let copied = try await Self.signIn(
                client, "facebook.com", ["sub": "f-2", "email": "new@example.com"],
                ["idToken": .string(anonymous.string("idToken"))])
            #expect(copied.string("localId") == anonymous.string("localId"))
            #expect(copied["isNewUser"] == nil)
            let identities = copied.string("idToken").jwtPayload["firebase"]?["identities"]
            #expect(identities == .object(["facebook.com": .array(["f-2"]), "email": .array(["new@example.com"])]))
            let user = try await Self.lookup(client, copied.string("idToken"))
            #expect(user?["email"]?.stringValue == "new@example.com")
            #expect(user?["emailVerified"] == false)
        }
    }

    @Test("createAuthUri finds an address that only a linked IdP has, in link order")
    func providerEmails() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.signIn(client, "google.com", ["sub": "g-1", "email": "foo@example.com"]).ok()
            try await Self.signIn(client, "google.com", ["sub": "g-1", "email": "bar@example.com"]).ok()
            #expect(try await Self.methods(client, "bar@example.com") == ["google.com"])
            #expect(try await Self.methods(client, "foo@example.com") == ["google.com"])
            let unknown = try await client.v1(
                "accounts:createAuthUri", ["identifier": "baz@example.com", "continueUri": "http://example.com/"])
            #expect(unknown["registered"] == false)
            #expect(unknown["signinMethods"] == nil)
        }
    }

    @Test("SAML: the assertion is checked; its nameId is the email and its attributes reach the token")
    func saml() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func attempt(_ saml: String) async throws -> Harness.Reply {
                try await client.v1(
                    "accounts:signInWithIdp",
                    [
                        "postBody": .string(#"providerId=saml.acme&id_token={"sub":"s-1"}&SAMLResponse="# + saml),
                        "requestUri": "http://localhost",
                    ])
            }
            #expect(
                try await attempt("{}").errorMessage == "INVALID_IDP_RESPONSE ((Missing assertion in SAMLResponse.))")
            #expect(
                try await attempt(#"{"assertion":{}}"#).errorMessage
                    == "INVALID_IDP_RESPONSE ((Missing assertion.subject in SAMLResponse.))")
            #expect(
                try await attempt(#"{"assertion":{"subject":{}}}"#).errorMessage
                    == "INVALID_IDP_RESPONSE ((Missing assertion.subject.nameId in SAMLResponse.))")
            let signedIn = try await attempt(
                #"{"assertion":{"subject":{"nameId":"jane@example.com"},"attributeStatements":{"name":"Jane"}}}"#)
            #expect(signedIn.status == 200)
            #expect(signedIn.string("email") == "jane@example.com")
            #expect(signedIn["emailVerified"] == true)
            #expect(signedIn.string("rawUserInfo") == #"{"name":"Jane"}"#)
            let firebase = signedIn.string("idToken").jwtPayload["firebase"]
            #expect(firebase?["sign_in_attributes"] == .object(["name": "Jane"]))
            #expect(firebase?["sign_in_provider"]?.stringValue == "saml.acme")
        }
    }

    @Test("the IdP widget lists the provider's accounts (escaped), per tenant; its event signs in through requestUri")
    func widgetPages() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.signIn(
                client, "google.com", ["sub": "g-1", "email": "a@example.com", "name": "A <b>&\"'"]
            ).ok()
            try await Self.signIn(client, "facebook.com", ["sub": "f-1", "email": "f@example.com"]).ok()
            let page = try await client.call(
                .get, "/emulator/auth/handler?apiKey=k&appName=app&authType=signInViaPopup&providerId=google.com",
                key: false)
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = page.json.stringValue ?? ""
            #expect(html.contains("<b>A &lt;b&gt;&amp;&quot;&#39;</b>"))
            #expect(html.contains("&quot;sub&quot;:&quot;g-1&quot;"))
            #expect(!html.contains("f@example.com"))
            #expect(!html.contains("A <b>"))
            let tenantPage = try await client.call(
                .get, "/emulator/auth/handler?apiKey=k&appName=app&providerId=google.com&tid=other", key: false)
            #expect(tenantPage.json.stringValue?.contains("No google.com accounts exist") == true)
            let missing = try await client.call(.get, "/emulator/auth/handler?providerId=google.com", key: false)
            #expect(missing.status == 400)
            #expect(missing["authEmulator.error"] == "missing apiKey or providerId query parameters")
            let frame = try await client.call(.get, "/emulator/auth/iframe?apiKey=k&appName=app", key: false)
            #expect(frame.status == 200)
            #expect(frame.json.stringValue?.contains("webStorageSupport") == true)
            // The auth event's urlResponse, as the SDK sends it on: signs in as the listed account.
            let claims = #"{"sub":"g-1","email":"a@example.com","email_verified":true}"#
            let encoded = claims.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let signedIn = try await client.v1(
                "accounts:signInWithIdp",
                [
                    "requestUri": .string(
                        "http://127.0.0.1:9099/emulator/auth/handler?providerId=google.com&id_token=\(encoded)"),
                    "postBody": "", "sessionId": "unused-by-authemu", "returnIdpCredential": true,
                ])
            #expect(signedIn.status == 200)
            #expect(signedIn["isNewUser"] == nil)
            #expect(signedIn.string("email") == "a@example.com")
        }
    }

    @Test("v2 accounts:revokeToken (JS revokeAccessToken): the ID token is checked, then {}")
    func revokeToken() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let claims: [String: JSONValue] = ["sub": "apple-1", "email": "a@example.com", "email_verified": true]
            let signedIn = try await Self.signIn(client, "apple.com", claims)
            let path = "/identitytoolkit.googleapis.com/v2/accounts:revokeToken"
            let body: [String: JSONValue] = [
                "providerId": "apple.com", "tokenType": "ACCESS_TOKEN", "token": "apple-access-token",
                "idToken": signedIn["idToken"]!,
            ]
            let revoked = try await client.call(.post, path, JSONValue.object(body).jsonString())
            #expect(revoked.status == 200)
            #expect(revoked.json == .object([:]))
            let missing = try await client.call(.post, path, #"{"token":"t","tokenType":"ACCESS_TOKEN"}"#)
            #expect(missing.errorMessage == "MISSING_ID_TOKEN")
            let bad = try await client.call(.post, path, #"{"token":"t","idToken":"not-a-token"}"#)
            #expect(bad.errorMessage == "INVALID_ID_TOKEN")
            let noKey = try await client.call(.post, path, JSONValue.object(body).jsonString(), key: false)
            #expect(noKey.status == 403)
        }
    }
}
