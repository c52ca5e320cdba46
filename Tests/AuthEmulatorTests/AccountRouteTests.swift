import AuthEmulator
import Foundation
import HTTPTypes
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
            _ = try await client.signUp("bob@example.com")
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

    @Test("sign-up without the admin credential: display name only for password accounts, photo URL never")
    func signUpProfileFields() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let profile: [String: JSONValue] = ["displayName": "Me", "photoUrl": "http://localhost/me.png"]
            let anonymous = try await client.v1("accounts:signUp", profile)
            #expect(anonymous.status == 200)
            #expect(anonymous["displayName"] == nil)
            let password = try await client.v1(
                "accounts:signUp", profile.merging(["email": "me@example.com", "password": "notasecret"]) { $1 })
            #expect(password.status == 200)
            #expect(password.string("displayName") == "Me")
            #expect(password["photoUrl"] == nil)
            let admin = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                #"{"localId":"profiled","displayName":"Admin","photoUrl":"http://localhost/a.png"}"#, admin: true)
            #expect(admin.status == 200)
            for (reply, name, photo) in [
                (anonymous, nil, nil), (password, "Me", nil), (admin, "Admin", "http://localhost/a.png"),
            ] as [(Harness.Reply, String?, String?)] {
                let lookup = try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:lookup",
                    #"{"localId":["\#(reply.string("localId"))"]}"#, admin: true)
                let user = lookup.json["users"]?.arrayValue?.first
                #expect(user?["localId"]?.stringValue == reply.string("localId"))
                #expect(user?["displayName"]?.stringValue == name)
                #expect(user?["photoUrl"]?.stringValue == photo)
            }
        }
    }

    @Test("sign-up with mfaInfo: a client's enrollment ids are drawn, an admin's kept; repeated phones collapse")
    func signUpEnrollmentIds() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func enrollments(_ reply: Harness.Reply) async throws -> [JSONValue] {
                let lookup = try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:lookup",
                    #"{"localId":["\#(reply.string("localId"))"]}"#, admin: true)
                return lookup.json["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue ?? []
            }
            let named: JSONValue = .array([
                .object(["phoneInfo": "+15555550100", "mfaEnrollmentId": "ignored1"]),
                .object(["phoneInfo": "+15555550100", "mfaEnrollmentId": "ignored2"]),
            ])
            let clientSignUp = try await client.v1(
                "accounts:signUp", ["email": "mfa@example.com", "password": "notasecret", "mfaInfo": named])
            #expect(clientSignUp.status == 200)
            let drawn = try await enrollments(clientSignUp)
            #expect(drawn.count == 1)
            #expect(drawn.first?["phoneInfo"]?.stringValue == "+15555550100")
            #expect(drawn.first?["mfaEnrollmentId"]?.stringValue?.count == 28)
            let adminSignUp = try await client.v1(
                "accounts:signUp", ["email": "mfa2@example.com", "password": "notasecret", "mfaInfo": named],
                admin: true)
            #expect(adminSignUp.status == 200)
            let kept = try await enrollments(adminSignUp)
            #expect(kept.map { $0["mfaEnrollmentId"]?.stringValue } == ["ignored1"])
        }
    }

    @Test("v2 project config: firebase-tools defaults, masked and full updates, blocking-function checks")
    func projectConfig() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let path = "/identitytoolkit.googleapis.com/v2/projects/example/config"
            let fresh = try await client.call(.get, path, admin: true)
            #expect(fresh.status == 200)
            #expect(fresh["signIn"] == .object(["allowDuplicateEmails": false]))
            #expect(fresh["blockingFunctions"] == .object([:]))
            let body =
                #"{"signIn":{"allowDuplicateEmails":true},"blockingFunctions":{"forwardInboundCredentials":{"idToken":true}}}"#
            let masked = try await client.call(
                .patch,
                path + "?updateMask=signIn.allowDuplicateEmails,blockingFunctions.forwardInboundCredentials.idToken",
                body, admin: true)
            #expect(masked.status == 200)
            #expect(masked["signIn"] == .object(["allowDuplicateEmails": true]))
            #expect(masked["blockingFunctions"] == .object(["forwardInboundCredentials": .object(["idToken": true])]))
            let unknownField = try await client.call(.patch, path + "?updateMask=displayName", "{}", admin: true)
            #expect(unknownField.status == 200)
            #expect(unknownField["displayName"] == nil)
            // An empty mask replaces everything with the defaults.
            let reset = try await client.call(.patch, path, "{}", admin: true)
            #expect(reset["signIn"] == .object(["allowDuplicateEmails": false]))
            #expect(reset["blockingFunctions"] == .object([:]))
            for (trigger, detail) in [
                (#"{"invalidEventTrigger":{"functionUri":"http://localhost"}}"#, "((Event type is invalid.))"),
                (
                    #"{"beforeCreate":{"functionUri":"invalidUri"}}"#,
                    "((Expected an absolute URI with valid scheme and host.))"
                ),
            ] {
                let refused = try await client.call(
                    .patch, path, #"{"blockingFunctions":{"triggers":\#(trigger)}}"#, admin: true)
                #expect(refused.status == 400)
                #expect(refused.errorMessage == "INVALID_BLOCKING_FUNCTION : \(detail)")
            }
            let after = try await client.call(.get, path, admin: true)
            #expect(after["blockingFunctions"] == .object([:]))
        }
    }

    @Test("batchCreate: duplicates in the request are a 400; per-user failures listed in production's words")
    func batchCreateErrors() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let path = "/identitytoolkit.googleapis.com/v1/projects/example/accounts:batchCreate"
            for (body, message) in [
                (#"{"users":[{"localId":"d1"},{"localId":"d1"}]}"#, "DUPLICATE_LOCAL_ID : d1"),
                (
                    #"{"sanityCheck":true,"users":[{"localId":"a","email":"x@example.com"},{"localId":"b","email":"x@example.com"}]}"#,
                    "DUPLICATE_EMAIL : x@example.com"
                ),
                (
                    #"{"sanityCheck":true,"users":[{"localId":"a","providerUserInfo":[{"providerId":"google.com","rawId":"r"}]},{"localId":"b","providerUserInfo":[{"providerId":"google.com","rawId":"r"}]}]}"#,
                    "DUPLICATE_RAW_ID : Provider id(google.com), Raw id(r)"
                ),
                (#"{"users":[]}"#, "MISSING_USER_ACCOUNT"),
            ] {
                let refused = try await client.call(.post, path, body, admin: true)
                #expect(refused.status == 400, "\(body)")
                #expect(refused.errorMessage == message)
            }
            let long = String(repeating: "x", count: 998)
            let users = [
                #"{"email":"foo@example.com"}"#, #"{"localId":"ok1"}"#, #"{"localId":"t2","email":"not#an$email"}"#,
                #"{"localId":"t3","phoneNumber":"not#a$phone"}"#, #"{"localId":"t4","customAttributes":"not json"}"#,
                #"{"localId":"t5","customAttributes":"{\"sub\":\"1\"}"}"#,
                #"{"localId":"t6","customAttributes":"{\"a\":\"\#(long)\"}"}"#,
                #"{"localId":"t7","providerUserInfo":[{"providerId":"google.com"}]}"#,
                #"{"localId":"t8","providerUserInfo":[{"federatedId":"f"}]}"#,
                #"{"localId":"t9","mfaInfo":[{"phoneInfo":"+15555550100"}]}"#,
                #"{"localId":"t10","email":"s@example.com","mfaInfo":[{"phoneInfo":"+15555550100"}]}"#,
                #"{"localId":"mfa","email":"m@example.com","emailVerified":true,"mfaInfo":[{"phoneInfo":"+15555550100"}]}"#,
            ]
            let reply = try await client.call(
                .post, path, #"{"users":[\#(users.joined(separator: ","))]}"#, admin: true)
            #expect(reply.status == 200)
            let listed = (reply.json["error"]?.arrayValue ?? []).map {
                "\($0["index"]?.doubleValue.map { Int($0) } ?? -1) \($0["message"]?.stringValue ?? "")"
            }
            #expect(
                listed == [
                    "0 localId is missing", "2 email is invalid", "3 phone number format is invalid",
                    "4 Invalid custom claims provided.", "5 Custom claims provided include a reserved claim.",
                    "6 Custom claims provided are too large.", "7 federatedId or (providerId & rawId) is required",
                    "8 ((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))",
                    "9 Second factor account requires email to be presented.",
                    "10 Second factor account requires email to be verified.",
                ])
            // The valid ones were stored; a factor without an id got one.
            let lookup = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:lookup",
                #"{"localId":["ok1","mfa"]}"#, admin: true)
            #expect(lookup.json["users"]?.arrayValue?.count == 2)
            let factor = lookup.json["users"]?.arrayValue?.first { $0["localId"] == "mfa" }?["mfaInfo"]?.arrayValue?
                .first
            #expect(factor?["mfaEnrollmentId"]?.stringValue?.count == 28)
            // Existing accounts: by local id (no overwrite) and by email with sanityCheck.
            let again = try await client.call(
                .post, path,
                #"{"sanityCheck":true,"users":[{"localId":"ok1"},{"localId":"new","email":"m@example.com"}]}"#,
                admin: true)
            #expect(
                again.json["error"]
                    == .array([
                        .object(["index": 0, "message": "localId belongs to an existing account - can not overwrite."]),
                        .object(["index": 1, "message": "email exists in other account in database"]),
                    ]))
        }
    }

    @Test("tenant PATCH: a mask path into a string or an array changes nothing; an empty mask resets")
    func tenantMaskIntoLeaves() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tenants = "/identitytoolkit.googleapis.com/v2/projects/example/tenants"
            let created = try await client.call(
                .post, tenants,
                #"{"displayName":"display","mfaConfig":{"enabledProviders":["PROVIDER_UNSPECIFIED","PHONE_SMS"]}}"#,
                admin: true)
            let path = "\(tenants)/\(created.string("tenantId"))"
            let masked = try await client.call(
                .patch, path + "?updateMask=displayName.0,mfaConfig.enabledProviders.nonexistentField",
                #"{"displayName":"unused","mfaConfig":{"enabledProviders":["PROVIDER_UNSPECIFIED"]}}"#, admin: true)
            #expect(masked.status == 200)
            #expect(masked["displayName"] == "display")
            #expect(
                masked.json.value(at: "mfaConfig.enabledProviders") == .array(["PROVIDER_UNSPECIFIED", "PHONE_SMS"]))
            let named = try await client.call(
                .patch, path + "?updateMask=displayName", #"{"displayName":"x"}"#, admin: true)
            #expect(named["displayName"] == "x")
            let reset = try await client.call(.patch, path, "{}", admin: true)
            #expect(reset["allowPasswordSignup"] == false)
            #expect(reset["mfaConfig"] == .object(["enabledProviders": .array([]), "state": "DISABLED"]))
        }
    }

    @Test("password sign-in on a tenant without password sign-in: PASSWORD_LOGIN_DISABLED before any field check")
    func passwordLoginDisabled() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tenant = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v2/projects/example/tenants",
                #"{"disableAuth":false,"allowPasswordSignup":false}"#, admin: true)
            let refused = try await client.v1("accounts:signInWithPassword", ["tenantId": tenant["tenantId"]!])
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "PASSWORD_LOGIN_DISABLED")
        }
    }

    @Test(
        "accounts:update mfa.enrollments: repeated phones collapse before ids are checked; a factor without phone is refused"
    )
    func updateEnrollmentsDeduplicate() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                #"{"email":"dedup@example.com","password":"notasecret","emailVerified":true}"#, admin: true)
            let localId = created.string("localId")
            func update(_ enrollments: String) async throws -> Harness.Reply {
                try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v1/accounts:update",
                    #"{"localId":"\#(localId)","mfa":{"enrollments":\#(enrollments)}}"#, admin: true)
            }
            func ids() async throws -> [String] {
                let lookup = try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:lookup",
                    #"{"localId":["\#(localId)"]}"#, admin: true)
                return (lookup.json["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue ?? []).compactMap {
                    $0["mfaEnrollmentId"]?.stringValue
                }
            }
            let a = #"{"phoneInfo":"+15555550100","mfaEnrollmentId":"#
            let b = #"{"phoneInfo":"+15555550101","mfaEnrollmentId":"#
            #expect(try await update("[\(a)\"e1\"},\(a)\"e1\"}]").status == 200)
            #expect(try await ids() == ["e1"])
            #expect(try await update("[\(a)\"e5\"},\(a)\"e6\"},\(b)\"e8\"},\(b)\"e9\"}]").status == 200)
            #expect(try await ids() == ["e5", "e8"])
            let clash = try await update("[\(a)\"same\"},\(b)\"same\"}]")
            #expect(clash.errorMessage == "DUPLICATE_MFA_ENROLLMENT_ID")
            let noPhone = try await update(#"[{"mfaEnrollmentId":"e5"}]"#)
            #expect(noPhone.errorMessage == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
        }
    }

    @Test("sendOobCode / resetPassword: firebase-tools' checks, order and the admin's by-email change-email link")
    func oobChecks() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await client.signUp("alice@example.com", "notasecret")
            let tenants = "/identitytoolkit.googleapis.com/v2/projects/example/tenants"
            let disabled = try await client.call(.post, tenants, #"{"disableAuth":true}"#, admin: true)
            let noPassword = try await client.call(.post, tenants, #"{"allowPasswordSignup":false}"#, admin: true)
            let path = "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode"
            for (body, admin, message) in [
                (#"{"tenantId":"\#(disabled.string("tenantId"))"}"#, false, "PROJECT_DISABLED"),
                (#"{"email":"alice@example.com","requestType":"VERIFY_EMAIL"}"#, false, "INVALID_ID_TOKEN"),
                (
                    #"{"email":"alice@example.com","requestType":"PASSWORD_RESET","continueUrl":"noSchemeOrHost"}"#,
                    false,
                    "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))"
                ),
                (#"{"newEmail":"bob@example.com","requestType":"VERIFY_AND_CHANGE_EMAIL"}"#, false, "MISSING_ID_TOKEN"),
                (#"{"email":"alice@example.com","requestType":"VERIFY_AND_CHANGE_EMAIL"}"#, false, "MISSING_NEW_EMAIL"),
                (
                    #"{"newEmail":"bob@example.com","returnOobLink":true,"requestType":"VERIFY_AND_CHANGE_EMAIL"}"#,
                    true,
                    "MISSING_EMAIL"
                ),
                (
                    #"{"email":"no@example.com","newEmail":"bob@example.com","returnOobLink":true,"requestType":"VERIFY_AND_CHANGE_EMAIL"}"#,
                    true, "USER_NOT_FOUND"
                ),
            ] {
                let refused = try await client.call(.post, path, body, admin: admin)
                #expect(refused.status == 400, "\(body)")
                #expect(refused.errorMessage == message, "\(body)")
            }
            // The Node Admin SDK's generateVerifyAndChangeEmailLink: by email, no ID token.
            let link = try await client.call(
                .post, path,
                #"{"email":"alice@example.com","newEmail":"bob@example.com","returnOobLink":true,"requestType":"VERIFY_AND_CHANGE_EMAIL"}"#,
                admin: true)
            #expect(link.status == 200)
            #expect(link.string("email") == "alice@example.com")
            #expect(link.string("oobLink").contains("mode=verifyAndChangeEmail"))
            let reset = try await client.v1("accounts:resetPassword", ["tenantId": noPassword["tenantId"]!])
            #expect(reset.errorMessage == "PASSWORD_LOGIN_DISABLED")
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
            var refresh = try RefreshToken.decode(created.string("refreshToken"))
            let refreshJSON = try JSONValue.parse(Data(base64Encoded: Base64.padded(refresh.encoded()))!)
            guard case .object(var object) = refreshJSON else {
                Issue.record("not an object")
                return
            }
            object["issuedAt"] = .number(1e300)
            let huge = Data(JSONValue.object(object).serialized()).base64EncodedString()
            refresh = try RefreshToken.decode(huge)
            #expect(refresh.issuedAt == nil)
            let refreshed = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                JSONValue.object(["grant_type": "refresh_token", "refresh_token": .string(huge)]).jsonString())
            #expect(refreshed.status == 200)
            #expect(refreshed.string("user_id") == localId)
            // Splitting "=" into key and value, and paging from a negative token, trapped as well.
            let idp = try await client.v1(
                "accounts:signInWithIdp",
                ["postBody": "=&providerId=google.com", "requestUri": "http://localhost", "returnSecureToken": true])
            #expect(idp.status == 400)
            #expect(
                idp.errorMessage
                    == "INVALID_IDP_RESPONSE : ((Unsupported or malformed id_token; the emulator needs an id_token with a sub claim.))"
            )
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

    @Test("CORS: every OPTIONS is a preflight (204, origin and headers reflected); other requests get the origin")
    func cors() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let privateNetwork = HTTPField.Name("Access-Control-Request-Private-Network")!
            // firebase-tools' own test: no Access-Control-Request-Method, on the root path.
            let preflight = try await client.call(
                .options, "/", key: false,
                headers: [
                    .origin: "example.com",
                    .accessControlRequestHeaders: "Authorization,X-Client-Version,X-Whatever-Header",
                    privateNetwork: "true",
                ])
            #expect(preflight.status == 204)
            #expect(preflight.headers[.accessControlAllowOrigin] == "example.com")
            #expect(preflight.headers[.accessControlAllowHeaders] == "Authorization,X-Client-Version,X-Whatever-Header")
            #expect(preflight.headers[.accessControlAllowMethods] == "GET,HEAD,PUT,PATCH,POST,DELETE")
            #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] == "true")
            // A browser's preflight of an API call, and one without an Origin (express `cors` answers it too).
            let api = try await client.call(
                .options, "/identitytoolkit.googleapis.com/v1/accounts:signUp", key: false,
                headers: [.origin: "http://localhost:5173", .accessControlRequestMethod: "POST"])
            #expect(api.status == 204)
            #expect(api.headers[.accessControlAllowOrigin] == "http://localhost:5173")
            #expect(api.headers[.accessControlAllowCredentials] == "true")
            let bare = try await client.call(.options, "/identitytoolkit.googleapis.com/v1/accounts:lookup", key: false)
            #expect(bare.status == 204)
            #expect(bare.headers[.accessControlAllowOrigin] == nil)
            // An actual request with an Origin gets it back; one without gets no CORS headers.
            let body = #"{"email":"cors@example.com","password":"secret123"}"#
            let signUp = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body,
                headers: [.origin: "http://localhost:5173"])
            #expect(signUp.status == 200)
            #expect(signUp.headers[.accessControlAllowOrigin] == "http://localhost:5173")
            let plain = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", body)
            #expect(plain.status == 200)
            #expect(plain.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
