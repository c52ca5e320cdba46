import AuthEmulator
import Foundation
import HTTPTypes
import Testing

/// Cases of firebase-tools' own auth emulator specs (src/emulator/auth/*.spec.ts), replayed where
/// authemu had answered differently: each sends the spec's request and checks its answer.
@Suite("firebase-tools spec cases")
struct SpecParityTests {
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
            try await client.signUp("alice@example.com", "notasecret").ok()
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

    @Test(
        "MFA state ENABLED asks for the second factor whatever providers are listed; withdraw: PROJECT_DISABLED first")
    func mfaStateAlone() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tenants = "/identitytoolkit.googleapis.com/v2/projects/example/tenants"
            let tenant = try await client.call(
                .post, tenants, #"{"allowPasswordSignup":true,"mfaConfig":{"state":"ENABLED"}}"#, admin: true)
            let tenantId = tenant["tenantId"]!
            let factor: JSONValue = .array([.object(["displayName": "Cell Phone", "phoneInfo": "+15555550100"])])
            let signUp = try await client.v1(
                "accounts:signUp",
                ["email": "alice@example.com", "password": "notasecret", "mfaInfo": factor, "tenantId": tenantId])
            #expect(signUp.status == 200)
            let signIn = try await client.v1(
                "accounts:signInWithPassword",
                ["email": "alice@example.com", "password": "notasecret", "tenantId": tenantId])
            #expect(signIn.status == 200)
            #expect(signIn["idToken"] == nil)
            #expect(signIn["mfaPendingCredential"]?.stringValue != nil)
            #expect(signIn["mfaInfo"]?.arrayValue?.first?["phoneInfo"] == "+*******0100")
            let disabled = try await client.call(.post, tenants, #"{"disableAuth":true}"#, admin: true)
            let withdraw = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:withdraw",
                #"{"tenantId":"\#(disabled.string("tenantId"))"}"#)
            #expect(withdraw.status == 400)
            #expect(withdraw.errorMessage == "PROJECT_DISABLED")
        }
    }

    @Test("TOTP factors leave batchGet with emulatorTotpSecret (never lookup) and batchCreate takes them back")
    func totpExportImport() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.call(
                .patch, "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=mfa",
                MfaRouteTests.enableTotp, admin: true
            ).ok()
            let user = try await MfaRouteTests.verifiedUser(client)
            let start = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])])
            let secret = start.string("totpSessionInfo.sharedSecretKey")
            let enrolled = try await MfaRouteTests.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "totpVerificationInfo": .object([
                        "sessionInfo": start["totpSessionInfo.sessionInfo"]!,
                        "verificationCode": .string(MfaRouteTests.code(secret, at: harness.clock.now())),
                    ]),
                ])
            #expect(enrolled.status == 200)
            let lookup = try await client.v1("accounts:lookup", ["idToken": enrolled["idToken"]!])
            #expect(lookup["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first?["emulatorTotpSecret"] == nil)
            #expect(!lookup.json.jsonString().contains(secret))
            let batch = "/identitytoolkit.googleapis.com/v1/projects/example/accounts"
            let exported = try await client.call(.get, batch + ":batchGet?maxResults=-1", admin: true)
            let users = exported["users"]!
            #expect(
                users.arrayValue?.first?["mfaInfo"]?.arrayValue?.first?["emulatorTotpSecret"]?.stringValue == secret)
            try await client.call(.delete, "/emulator/v1/projects/example/accounts", key: false).ok()
            let imported = try await client.call(
                .post, batch + ":batchCreate", JSONValue.object(["users": users]).jsonString(), admin: true)
            #expect(imported.status == 200)
            #expect(imported["error"] == nil)
            harness.clock.advance(by: 30)
            let pending = try await client.v1(
                "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
            let signedIn = try await MfaRouteTests.v2(
                client, "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": pending["mfaPendingCredential"]!,
                    "mfaEnrollmentId": pending["mfaInfo"]!.arrayValue!.first!["mfaEnrollmentId"]!,
                    "totpVerificationInfo": .object([
                        "verificationCode": .string(MfaRouteTests.code(secret, at: harness.clock.now()))
                    ]),
                ])
            #expect(signedIn.status == 200)
            #expect(signedIn.string("idToken").jwtPayload["firebase"]?["sign_in_second_factor"] == "totp")
            // Without its secret no authenticator app could produce codes: refused, as firebase-tools.
            let secretless = try await client.call(
                .post, batch + ":batchCreate",
                #"{"users":[{"localId":"t2","email":"t2@example.com","emailVerified":true,"mfaInfo":[{"mfaEnrollmentId":"e","totpInfo":{}}]}]}"#,
                admin: true)
            #expect(secretless["error"] == .array([.object(["index": 0, "message": "Second factor not supported."])]))
        }
    }

    @Test(
        "/ points at /emulator/openapi.json: every route keyed relative to its server, with parameters and credential")
    func openAPIDocument() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let root = try await client.call(.get, "/", key: false)
            let spec = try await client.call(.get, root.string("authEmulator.apiSpec"), key: false)
            #expect(spec.status == 200)
            #expect(spec["openapi"] == "3.0.3")
            // As firebase-tools' document: the default server is the identitytoolkit host.
            let daemon = "http://127.0.0.1:9099"
            #expect(spec["servers"] == .array([.object(["url": .string("\(daemon)/identitytoolkit.googleapis.com")])]))
            let paths = spec["paths"]?.objectValue ?? [:]
            let signUp = paths["/v1/accounts:signUp"]
            #expect(signUp?["servers"] == nil)
            #expect(
                signUp?["post"]?["security"]
                    == .array([
                        .object(["apiKey": .array([])]), .object(["apiKeyHeader": .array([])]),
                        .object(["admin": .array([])]),
                    ]))
            #expect(paths["/identitytoolkit.googleapis.com/v1/accounts:signUp"] == nil)
            let legacy = paths["/identitytoolkit/v3/relyingparty/signupNewUser"]
            #expect(legacy?["servers"] == .array([.object(["url": .string("\(daemon)/www.googleapis.com")])]))
            #expect(legacy?["post"] != nil)
            #expect(
                paths["/v1/token"]?["servers"]
                    == .array([.object(["url": .string("\(daemon)/securetoken.googleapis.com")])]))
            let codes = paths["/emulator/v1/projects/{project}/tenants/{tenant}/verificationCodes"]
            #expect(codes?["servers"] == .array([.object(["url": .string(daemon)])]))
            // No credential, or the admin's (which an admin_token of one's own needs off loopback).
            #expect(codes?["get"]?["security"] == .array([.object([:]), .object(["admin": .array([])])]))
            #expect(
                codes?["get"]?["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                    "project", "tenant",
                ])
            // Parameters inside a segment are declared too.
            let cookie = paths["/v1/projects/{project}/tenants/{tenant}:createSessionCookie"]?["post"]
            #expect(cookie?["parameters"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["project", "tenant"])
            let idpConfig = paths["/v2/projects/{project}/oauthIdpConfigs/{config}"]
            #expect(idpConfig?["delete"]?["security"] == .array([.object(["admin": .array([])])]))
            #expect(paths["/emulator/openapi.json"]?["get"] != nil)
            // Every parameter-free GET it lists without a credential answers at its server (none is a 404).
            for (path, item) in paths where item["get"] != nil && !path.contains("{") {
                guard item["get"]?["security"] == nil else { continue }
                let server =
                    item["servers"]?.arrayValue?.first?["url"]?.stringValue
                    ?? "\(daemon)/identitytoolkit.googleapis.com"
                let reply = try await client.call(.get, String(server.dropFirst(daemon.count)) + path, key: false)
                #expect(reply.status != 404, "\(server) \(path)")
            }
        }
    }
}
