import AuthEmulator
import Foundation
import Testing

@Suite("Client account APIs")
struct AccountRouteTests {
    @Test("email sign-up returns tokens whose claims match the reference")
    func signUpIssuesTokens() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await client.signUp("Alice@Example.com")
            #expect(reply.status == 200)
            #expect(reply.string("kind") == "identitytoolkit#SignupNewUserResponse")
            #expect(reply.string("email") == "alice@example.com")
            #expect(reply.string("expiresIn") == "3600")
            let token = reply.string("idToken")
            #expect(token.hasSuffix("."))
            let claims = token.jwtPayload
            #expect(claims["aud"] == "example")
            #expect(claims["iss"] == "https://securetoken.google.com/example")
            #expect(claims["sub"]?.stringValue == reply.string("localId"))
            #expect(claims.value(at: "firebase.sign_in_provider") == "password")
            #expect(claims.value(at: "firebase.identities.email") == .array(["alice@example.com"]))
            #expect(claims["email_verified"] == false)
            #expect(claims["auth_time"]?.doubleValue == Double(harness.clock.now().epochSeconds))
            #expect(claims["exp"]?.doubleValue == Double(harness.clock.now().epochSeconds + 3600))
        }
    }

    @Test("sign-up errors: duplicate, weak password, missing password, bad email")
    func signUpErrors() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.signUp("bob@example.com").ok()
            #expect(try await client.signUp("BOB@example.com").errorMessage == "EMAIL_EXISTS")
            #expect(
                try await client.signUp("c@example.com", "12345").errorMessage
                    == "WEAK_PASSWORD : Password should be at least 6 characters")
            #expect(
                try await client.v1("accounts:signUp", ["email": "d@example.com"]).errorMessage == "MISSING_PASSWORD")
            let bad = try await client.signUp("not-an-email")
            #expect(bad.status == 400)
            #expect(bad.errorMessage == "INVALID_EMAIL")
            #expect(
                bad["error.errors"]
                    == .array([.object(["message": "INVALID_EMAIL", "reason": "invalid", "domain": "global"])]))
            #expect(bad["error.status"] == nil)
            #expect(
                try await client.v1("accounts:signUp", ["localId": "x"]).errorMessage
                    == "UNEXPECTED_PARAMETER : User ID")
        }
    }

    @Test("anonymous sign-up and linking email/password to it keeps the uid")
    func anonymousThenLink() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let anonymous = try await client.v1("accounts:signUp", ["returnSecureToken": true])
            #expect(anonymous.status == 200)
            #expect(anonymous.string("idToken").jwtPayload.value(at: "firebase.sign_in_provider") == "anonymous")
            #expect(anonymous.string("idToken").jwtPayload["provider_id"] == "anonymous")
            let linked = try await client.v1(
                "accounts:signUp",
                ["idToken": anonymous["idToken"]!, "email": "link@example.com", "password": "secret123"])
            #expect(linked.status == 200)
            #expect(linked.string("localId") == anonymous.string("localId"))
            #expect(linked.string("idToken").jwtPayload.value(at: "firebase.sign_in_provider") == "password")
        }
    }

    @Test("password sign-in: success, wrong password, unknown email, disabled user, email privacy")
    func passwordSignIn() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.signUp("carol@example.com")
            let ok = try await client.v1(
                "accounts:signInWithPassword", ["email": "carol@example.com", "password": "secret123"])
            #expect(ok.status == 200)
            #expect(ok["registered"] == true)
            #expect(ok.string("localId") == created.string("localId"))
            #expect(ok["mfaPendingCredential"] == nil)
            let wrong = try await client.v1(
                "accounts:signInWithPassword", ["email": "carol@example.com", "password": "nope123"])
            #expect(wrong.errorMessage == "INVALID_PASSWORD")
            let unknown = try await client.v1(
                "accounts:signInWithPassword", ["email": "who@example.com", "password": "secret123"])
            #expect(unknown.errorMessage == "EMAIL_NOT_FOUND")
            let disable = try await client.v1(
                "projects/example/accounts:update", ["localId": created["localId"]!, "disableUser": true], admin: true)
            #expect(disable.status == 200)
            let disabled = try await client.v1(
                "accounts:signInWithPassword", ["email": "carol@example.com", "password": "secret123"])
            #expect(disabled.errorMessage == "USER_DISABLED")
            let privacy = try await client.call(
                .patch, "/emulator/v1/projects/example/config",
                #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#,
                key: false)
            #expect(privacy["emailPrivacyConfig.enableImprovedEmailPrivacy"] == true)
            let hidden = try await client.v1(
                "accounts:signInWithPassword", ["email": "who@example.com", "password": "secret123"])
            #expect(hidden.errorMessage == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test("an ENFORCEd password policy refuses new passwords and, with forceUpgradeOnSignin, sign-ins")
    func passwordPolicy() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let old = try await client.signUp("old@example.com", "secret123")
            func policy(_ state: String, forceUpgrade: Bool = false) async throws {
                let body =
                    #"{"passwordPolicyConfig":{"passwordPolicyEnforcementState":"\#(state)","forceUpgradeOnSignin":\#(forceUpgrade),"passwordPolicyVersions":[{"customStrengthOptions":{"minPasswordLength":8,"containsUppercaseCharacter":true,"containsNumericCharacter":true,"containsNonAlphanumericCharacter":true}}]}}"#
                let reply = try await client.call(
                    .patch,
                    "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=passwordPolicyConfig",
                    body, admin: true)
                #expect(reply.status == 200, "\(reply.json)")
            }
            try await policy("AUDIT")
            #expect(try await client.signUp("audit@example.com", "simple").status == 200)
            #expect(
                try await client.signUp("short@example.com", "abc").errorMessage
                    == "WEAK_PASSWORD : Password should be at least 6 characters")
            try await policy("ENFORCE")
            let weak = try await client.signUp("weak@example.com", "secret1")
            #expect(weak.status == 400)
            #expect(
                weak.errorMessage
                    == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain at least 8 characters, Password must contain an upper case character, Password must contain a non-alphanumeric character]"
            )
            let strong = try await client.signUp("strong@example.com", "Secret12!")
            #expect(strong.status == 200)
            let admin = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts",
                #"{"email":"made@example.com","password":"Lowercase!x"}"#, admin: true)
            #expect(
                admin.errorMessage
                    == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain a numeric character]"
            )
            let update = try await client.v1(
                "accounts:update", ["idToken": strong["idToken"]!, "password": "NOSPECIAL123"])
            #expect(
                update.errorMessage
                    == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain a non-alphanumeric character]"
            )
            // Existing passwords keep signing in unless the policy forces an upgrade at sign-in.
            let signIn: [String: JSONValue] = ["email": "old@example.com", "password": "secret123"]
            #expect(try await client.v1("accounts:signInWithPassword", signIn).status == 200)
            try await policy("ENFORCE", forceUpgrade: true)
            #expect(
                try await client.v1("accounts:signInWithPassword", signIn).errorMessage
                    == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain an upper case character, Password must contain a non-alphanumeric character]"
            )
            #expect(
                try await client.v1("accounts:signInWithPassword", ["email": "old@example.com", "password": "wrong"])
                    .errorMessage == "INVALID_PASSWORD")
            #expect(
                try await client.v1(
                    "accounts:signInWithPassword", ["email": "strong@example.com", "password": "Secret12!"]
                ).status == 200)
            #expect(old.status == 200)
        }
    }

    @Test("lookup by idToken redacts the password hash; update with a new password revokes old tokens")
    func lookupUpdateRevocation() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.signUp("dan@example.com")
            let lookup = try await client.v1("accounts:lookup", ["idToken": created["idToken"]!])
            #expect(lookup.status == 200)
            #expect(lookup["users"]?.arrayValue?.count == 1)
            #expect(lookup["users"]?.arrayValue?.first?["passwordHash"] == "UkVEQUNURUQ=")
            #expect(lookup["users"]?.arrayValue?.first?["salt"] == nil)
            harness.clock.advance(by: 10)
            let updated = try await client.v1(
                "accounts:update", ["idToken": created["idToken"]!, "password": "newsecret1", "displayName": "Dan"])
            #expect(updated.status == 200)
            #expect(updated.string("displayName") == "Dan")
            #expect(updated["idToken"] != nil)
            let stale = try await client.v1("accounts:lookup", ["idToken": created["idToken"]!])
            #expect(stale.errorMessage == "TOKEN_EXPIRED")
            let fresh = try await client.v1("accounts:lookup", ["idToken": updated["idToken"]!])
            #expect(fresh["users"]?.arrayValue?.first?["displayName"] == "Dan")
            let refresh = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                "grant_type=refresh_token&refresh_token=\(created.string("refreshToken").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(refresh.errorMessage == "TOKEN_EXPIRED")
        }
    }

    @Test("securetoken accepts form and camelCase JSON bodies and answers snake_case")
    func tokenRefresh() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.signUp("erin@example.com")
            let refreshToken = created.string("refreshToken")
            let json = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                JSONValue.object(["grantType": "refresh_token", "refreshToken": .string(refreshToken)]).jsonString())
            #expect(json.status == 200)
            #expect(json.string("token_type") == "Bearer")
            #expect(json.string("user_id") == created.string("localId"))
            #expect(json.string("expires_in") == "3600")
            #expect(json["access_token"] == json["id_token"])
            #expect(json.string("project_id") == "12345")
            let snake = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                JSONValue.object(["grant_type": "refresh_token", "refresh_token": .string(refreshToken)]).jsonString())
            #expect(snake.status == 200)
            // The form body the JS SDK sends: a percent-encoded token; `+` is a space, `%zz` stays as it is.
            let encoded = refreshToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let form = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token", "grant_type=refresh_token&refresh_token=\(encoded)",
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(form.status == 200)
            #expect(form.string("user_id") == created.string("localId"))
            let badForm = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token", "grant_type=refresh+token&refresh_token=%zz",
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(badForm.errorMessage == "INVALID_GRANT_TYPE")
            let badFormToken = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token", "grant_type=refresh_token&refresh_token=%zz%4",
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(badFormToken.errorMessage == "INVALID_REFRESH_TOKEN")
            let bad = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token", #"{"grant_type":"password","refresh_token":"x"}"#)
            #expect(bad.errorMessage == "INVALID_GRANT_TYPE")
            let garbage = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token", #"{"grant_type":"refresh_token","refresh_token":"x"}"#)
            #expect(garbage.errorMessage == "INVALID_REFRESH_TOKEN")
            let noKey = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token", #"{"grant_type":"refresh_token"}"#, key: false)
            #expect(noKey.status == 403)
        }
    }

    @Test("custom tokens: JSON and unsigned JWT sign-in, claims, audience and reserved-claim errors")
    func customTokens() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let json = try await client.v1(
                "accounts:signInWithCustomToken", ["token": #"{"uid":"u1","claims":{"role":"admin"}}"#])
            #expect(json.status == 200)
            #expect(json["isNewUser"] == true)
            let claims = json.string("idToken").jwtPayload
            #expect(claims["role"] == "admin")
            #expect(claims.value(at: "firebase.sign_in_provider") == "custom")
            let again = try await client.v1("accounts:signInWithCustomToken", ["token": #"{"uid":"u1"}"#])
            #expect(again["isNewUser"] == false)
            let reserved = try await client.v1(
                "accounts:signInWithCustomToken", ["token": #"{"uid":"u2","claims":{"sub":"x"}}"#])
            #expect(reserved.errorMessage == "FORBIDDEN_CLAIM : sub")
            let header = Data(#"{"alg":"none"}"#.utf8).base64EncodedString()
            let body = Data(#"{"aud":"wrong","uid":"u3"}"#.utf8).base64EncodedString()
                .replacingOccurrences(of: "=", with: "")
            let wrongAud = try await client.v1(
                "accounts:signInWithCustomToken", ["token": .string("\(header).\(body).")])
            #expect(wrongAud.errorMessage?.hasPrefix("INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): wrong") == true)
            #expect(try await client.v1("accounts:signInWithCustomToken", [:]).errorMessage == "MISSING_CUSTOM_TOKEN")
            #expect(
                try await client.v1("accounts:signInWithCustomToken", ["token": #"{"claims":{}}"#]).errorMessage
                    == "MISSING_IDENTIFIER")
        }
    }
}

@Suite("Out-of-range numbers from clients")
struct OutOfRangeNumberTests {
    static func unsignedToken(_ claims: JSONValue) -> String {
        func part(_ value: JSONValue) -> String {
            Data(value.serialized()).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return part(.object(["alg": "none", "typ": "JWT"])) + "." + part(claims) + "."
    }

    @Test(
        "tokens with iat/issuedAt beyond 64 bits, negative paging, a bare \"=\" in an IdP post body: answers, not traps"
    )
    func hugeNumbers() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.signUp("range@example.com")
            let localId = created.string("localId")
            // Converting 1e300 to an integer traps: these used to take the daemon down.
            let token = Self.unsignedToken(
                .object([
                    "user_id": .string(localId), "sub": .string(localId), "aud": "example", "iat": .number(1e300),
                ]))
            let lookup = try await client.v1("accounts:lookup", ["idToken": .string(token)])
            #expect(lookup.status == 200)
            #expect(lookup["users"]?.arrayValue?.first?["localId"]?.stringValue == localId)
            let refreshJSON = try JSONValue.parse(
                Data(base64Encoded: Base64.padded(created.string("refreshToken")))!)
            guard case .object(var object) = refreshJSON else {
                Issue.record("not an object")
                return
            }
            // An edited refresh token is refused (its seal no longer holds), never a trap.
            object["issuedAt"] = .number(1e300)
            let huge = Data(JSONValue.object(object).serialized()).base64EncodedString()
            let refreshed = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                JSONValue.object(["grant_type": "refresh_token", "refresh_token": .string(huge)]).jsonString())
            #expect(refreshed.status == 400)
            #expect(refreshed.errorMessage == "INVALID_REFRESH_TOKEN")
            // Splitting "=" into key and value, and paging from a negative token, trapped as well.
            let idp = try await client.v1(
                "accounts:signInWithIdp",
                ["postBody": "=&providerId=google.com", "requestUri": "http://localhost", "returnSecureToken": true])
            #expect(idp.status == 501)
            #expect(idp.errorMessage == "The Auth Emulator only supports sign-in with credentials (id_token required).")
            let configs = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v2/projects/example/oauthIdpConfigs?pageToken=-5", admin: true)
            #expect(configs.errorMessage == "INVALID_PAGE_SELECTION : Invalid page token.")
            for paging: [String: JSONValue] in [["offset": -1], ["limit": -3], ["limit": .number(1e300)]] {
                let query = try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:query",
                    JSONValue.object(paging).jsonString(), admin: true)
                if paging["limit"] == .number(1e300) {
                    #expect(query.status == 200)
                    #expect(query.string("recordsCount") == "1")
                } else {
                    #expect(query.status == 400)
                    #expect(query.errorMessage == "INVALID_ARGUMENT : limit and offset must not be negative")
                }
            }
        }
    }

    @Test("routing: exact paths and the router's other spellings of them answer alike; other methods 404")
    func routing() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let body = #"{"email":"route@example.com","password":"secret123","returnSecureToken":true}"#
            let exact = try await client.call(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body)
            #expect(exact.status == 200)
            #expect(exact.string("email") == "route@example.com")
            // A trailing or doubled slash is not in the exact table: the router's trie still finds it.
            let signIn = #"{"email":"route@example.com","password":"secret123"}"#
            for path in [
                "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword/",
                "//identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
            ] {
                let reply = try await client.call(.post, path, signIn)
                #expect(reply.status == 200, "\(path)")
                #expect(reply.string("localId") == exact.string("localId"), "\(path)")
            }
            // Credentials are still checked on the exact path.
            let keyless = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", signIn, key: false)
            #expect(keyless.status == 403)
            #expect(keyless.errorMessage == "The request is missing a valid API key.")
            #expect(keyless.string("error.status") == "PERMISSION_DENIED")
            // A method the path does not take falls through to the router: the enveloped 404.
            let get = try await client.call(.get, "/identitytoolkit.googleapis.com/v1/accounts:signUp")
            #expect(get.status == 404)
            #expect(get.errorMessage == "Not Found")
            #expect(get.string("error.status") == "NOT_FOUND")
            // Paths with a project parameter are the router's alone.
            let admin = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:lookup",
                #"{"localId":["\#(exact.string("localId"))"]}"#, admin: true)
            #expect(admin.status == 200)
            #expect(admin.json.value(at: "users")?.arrayValue?.count == 1)
        }
    }
}
