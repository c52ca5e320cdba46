import AuthEmulator
import Foundation
import Testing

/// A stand-in for the functions: answers by the URI's last path component, records every call.
final class FakeFunctions: BlockingFunctionTransport, @unchecked Sendable {
    struct Call {
        let url: String
        let claims: JSONValue
    }
    private let lock = NSLock()
    private var replies: [String: BlockingFunctionReply] = [:]
    private var failure: BlockingFunctionTransportError?
    private var recorded: [Call] = []

    func reply(_ event: String, status: Int = 200, _ body: String) {
        lock.withLock { replies[event] = BlockingFunctionReply(status: status, body: Array(body.utf8)) }
    }

    func fail(_ error: BlockingFunctionTransportError) { lock.withLock { failure = error } }

    var calls: [Call] { lock.withLock { recorded } }

    func post(url: String, json body: [UInt8], timeout: Duration) async throws -> BlockingFunctionReply {
        let jwt = (try JSONValue.parse(Data(body))).value(at: "data.jwt")?.stringValue ?? ""
        return try lock.withLock {
            recorded.append(Call(url: url, claims: jwt.jwtPayload))
            if let failure { throw failure }
            return replies[String(url.split(separator: "/").last ?? "")]
                ?? BlockingFunctionReply(status: 404, body: Array("no reply".utf8))
        }
    }
}

/// firebase-tools' "when blocking functions are present" cases (signUp, password, emailLink, idp,
/// phone and mfa specs), driven through the routes with a fake transport.
@Suite("Blocking functions (beforeCreate, beforeSignIn)")
struct BlockingFunctionTests {
    static let beforeCreate = "http://my-blocking-function.test/beforeCreate"
    static let beforeSignIn = "http://my-blocking-function.test/beforeSignIn"
    static let modify =
        #"{"userRecord":{"updateMask":"displayName,photoUrl,emailVerified,customClaims,sessionClaims","displayName":"Ada","photoUrl":"http://localhost/ada.png","emailVerified":true,"customClaims":{"customAttribute":"custom"},"sessionClaims":{"sessionAttribute":"session"}}}"#

    static func configure(_ client: Harness.Client, _ triggers: [String: String], extra: String = "")
        async throws
    {
        let entries = triggers.sorted { $0.key < $1.key }.map { #""\#($0.key)":{"functionUri":"\#($0.value)"}"# }
        let reply = try await client.call(
            .patch, "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=blockingFunctions",
            #"{"blockingFunctions":{"triggers":{\#(entries.joined(separator: ","))}\#(extra)}}"#, admin: true)
        #expect(reply.status == 200)
    }

    /// The claims an ID token carries from the `modify` answer.
    /// `email_verified` follows the record, also for a phone user without an address (firebase-tools).
    static func expectModified(_ idToken: String) {
        let claims = idToken.jwtPayload
        #expect(claims["name"] == "Ada")
        #expect(claims["picture"] == "http://localhost/ada.png")
        #expect(claims["email_verified"] == true)
        #expect(claims["customAttribute"] == "custom")
        #expect(claims["sessionAttribute"] == "session")
    }

    static func lookup(_ client: Harness.Client, _ localId: String) async throws -> JSONValue? {
        try await client.v1("accounts:lookup", ["localId": .array([.string(localId)])], admin: true)["users"]?[0]
    }

    @Test("signUp: beforeCreate sees the new user with its final uid, beforeSignIn's fields win, tokens carry both")
    func signUpRunsBothFunctions() async throws {
        let functions = FakeFunctions()
        functions.reply(
            "beforeCreate",
            #"{"userRecord":{"updateMask":"displayName,photoUrl,emailVerified,customClaims","displayName":"old","photoUrl":"old","emailVerified":false,"customClaims":{"customAttribute":"old"}}}"#
        )
        functions.reply("beforeSignIn", Self.modify)
        try await Harness().run(functions: functions) { client in
            try await Self.configure(client, ["beforeCreate": Self.beforeCreate, "beforeSignIn": Self.beforeSignIn])
            let signedUp = try await client.signUp("alice@example.com")
            #expect(signedUp.status == 200)
            Self.expectModified(signedUp.string("idToken"))
            let calls = functions.calls
            #expect(calls.map(\.url) == [Self.beforeCreate, Self.beforeSignIn])
            let create = calls[0].claims
            #expect(create["event_type"] == "beforeCreate")
            #expect(create["sign_in_method"] == "password")
            #expect(create["aud"] == .string(Self.beforeCreate))
            #expect(create["iss"] == "https://securetoken.google.com/example")
            #expect(create.value(at: "user_record.email") == "alice@example.com")
            #expect(create.value(at: "user_record.uid") == signedUp["localId"])
            #expect(create["sub"] == signedUp["localId"])
            #expect(create.value(at: "user_record.custom_claims") == .object([:]))
            // Milliseconds as numbers (the manual clock stands at 1,700,000,000 s).
            #expect(create.value(at: "user_record.metadata.creation_time") == .number(1_700_000_000_000))
            // beforeSignIn is shown the account with beforeCreate's changes.
            let signIn = calls[1].claims
            #expect(signIn["event_type"] == "beforeSignIn")
            #expect(signIn.value(at: "user_record.display_name") == "old")
            #expect(signIn.value(at: "user_record.email_verified") == false)
            #expect(signIn.value(at: "user_record.custom_claims") == .object(["customAttribute": "old"]))
            let stored = try await Self.lookup(client, signedUp.string("localId"))
            #expect(stored?["displayName"] == "Ada")
            #expect(stored?["customAttributes"] == #"{"customAttribute":"custom"}"#)
            // Session claims stay in refreshed tokens.
            let refreshed = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                #"{"grant_type":"refresh_token","refresh_token":"\#(signedUp.string("refreshToken"))"}"#)
            #expect(refreshed.string("id_token").jwtPayload["sessionAttribute"] == "session")
        }
    }

    @Test("signUp: a beforeCreate that disables the user keeps the account and answers USER_DISABLED")
    func disabledByBeforeCreate() async throws {
        let functions = FakeFunctions()
        functions.reply("beforeCreate", #"{"userRecord":{"updateMask":"disabled","disabled":true}}"#)
        functions.reply("beforeSignIn", Self.modify)
        try await Harness().run(functions: functions) { client in
            try await Self.configure(client, ["beforeCreate": Self.beforeCreate, "beforeSignIn": Self.beforeSignIn])
            let refused = try await client.signUp("alice@example.com")
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "USER_DISABLED")
            #expect(functions.calls.map(\.url) == [Self.beforeCreate])
            let stored = try await client.v1(
                "accounts:lookup", ["email": .array(["alice@example.com"])], admin: true)
            #expect(stored["users"]?[0]?["disabled"] == true)
        }
    }

    @Test("no function runs for admin requests, anonymous sign-up or a scope without triggers")
    func notCalledForPrivilegedRequests() async throws {
        let functions = FakeFunctions()
        functions.reply("beforeCreate", #"{"userRecord":{"updateMask":"disabled","disabled":true}}"#)
        try await Harness().run(functions: functions) { client in
            let before = try await client.signUp("first@example.com")
            #expect(before.status == 200)
            try await Self.configure(client, ["beforeCreate": Self.beforeCreate])
            let admin = try await client.v1(
                "accounts:signUp", ["email": "bob@example.com", "password": "secret123"], admin: true)
            #expect(admin.status == 200)
            #expect(admin["idToken"] == nil)
            let anonymous = try await client.v1("accounts:signUp", ["returnSecureToken": true])
            #expect(anonymous.status == 200)
            #expect(functions.calls.isEmpty)
        }
    }

    @Test("signInWithPassword: beforeSignIn updates the account; disabled after the write; MFA users wait")
    func passwordSignIn() async throws {
        let functions = FakeFunctions()
        functions.reply("beforeSignIn", Self.modify)
        try await Harness().run(functions: functions) { client in
            let created = try await client.signUp("alice@example.com")
            try await Self.configure(client, ["beforeSignIn": Self.beforeSignIn])
            let body: [String: JSONValue] = ["email": "alice@example.com", "password": "secret123"]
            let signedIn = try await client.v1("accounts:signInWithPassword", body)
            #expect(signedIn.status == 200)
            Self.expectModified(signedIn.string("idToken"))
            #expect(functions.calls.first?.claims["sign_in_method"] == "password")
            #expect(functions.calls.first?.claims.value(at: "user_record.uid") == created["localId"])
            // The sign-up's login time, in milliseconds as a number (the manual clock's 1,700,000,000 s).
            #expect(
                functions.calls.first?.claims.value(at: "user_record.metadata.last_sign_in_time")
                    == .number(1_700_000_000_000))

            functions.reply("beforeSignIn", #"{"userRecord":{"updateMask":"disabled","disabled":true}}"#)
            let refused = try await client.v1("accounts:signInWithPassword", body)
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "USER_DISABLED")
            #expect(try await Self.lookup(client, created.string("localId"))?["disabled"] == true)
        }
    }

    @Test("the Functions SDKs' photoURL is applied; an imported user gets its upload time as creation time")
    func functionsSdkSpelling() async throws {
        let functions = FakeFunctions()
        functions.reply(
            "beforeSignIn", #"{"userRecord":{"updateMask":"photoURL","photoURL":"http://localhost/sdk.png"}}"#)
        try await Harness().run(functions: functions) { client in
            let imported = try await client.v1(
                "projects/example/accounts:batchCreate",
                [
                    "users": .array([
                        .object(["localId": "imported-1", "email": "old@example.com", "rawPassword": "secret123"])
                    ])
                ],
                admin: true)
            #expect(imported.status == 200)
            try await Self.configure(client, ["beforeSignIn": Self.beforeSignIn])
            let signedIn = try await client.v1(
                "accounts:signInWithPassword", ["email": "old@example.com", "password": "secret123"])
            #expect(signedIn.string("idToken").jwtPayload["picture"] == "http://localhost/sdk.png")
            let record = functions.calls[0].claims["user_record"]
            let stored = try await Self.lookup(client, "imported-1")
            #expect(stored?["createdAt"]?.stringValue != nil)
            let storedMillis = stored?["createdAt"]?.stringValue.flatMap(Double.init)
            #expect(record?.value(at: "metadata.creation_time") == storedMillis.map(JSONValue.number))
            #expect(record?["provider_data"]?[0]?["uid"] == "old@example.com")
        }
    }

    @Test("mfaSignIn:finalize runs beforeSignIn with the second factor; the first factor does not")
    func mfaFinalize() async throws {
        let functions = FakeFunctions()
        functions.reply("beforeSignIn", Self.modify)
        try await Harness().run(functions: functions) { client in
            let created = try await client.v1(
                "accounts:signUp",
                [
                    "email": "mfa@example.com", "password": "secret123", "emailVerified": true,
                    "mfaInfo": .array([.object(["phoneInfo": "+15555550100"])]),
                ], admin: true)
            try await Self.configure(client, ["beforeSignIn": Self.beforeSignIn])
            let first = try await client.v1(
                "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
            #expect(first["mfaPendingCredential"] != nil)
            #expect(functions.calls.isEmpty)
            let enrollmentId = first["mfaInfo"]![0]!["mfaEnrollmentId"]!
            let start = try await MfaRouteTests.v2(
                client, "mfaSignIn:start",
                ["mfaPendingCredential": first["mfaPendingCredential"]!, "mfaEnrollmentId": enrollmentId])
            let codes = try await client.call(.get, "/emulator/v1/projects/example/verificationCodes", key: false)
            let finalize: [String: JSONValue] = [
                "mfaPendingCredential": first["mfaPendingCredential"]!,
                "phoneVerificationInfo": .object([
                    "sessionInfo": start["phoneResponseInfo"]!["sessionInfo"]!,
                    "code": codes["verificationCodes"]![0]!["code"]!,
                ]),
            ]
            let done = try await MfaRouteTests.v2(client, "mfaSignIn:finalize", finalize)
            #expect(done.status == 200)
            Self.expectModified(done.string("idToken"))
            #expect(done.string("idToken").jwtPayload.value(at: "firebase.sign_in_second_factor") == "phone")
            let call = functions.calls[0].claims
            #expect(call["sign_in_method"] == "password")
            #expect(call["sign_in_second_factor"] == "phone")
            #expect(call.value(at: "user_record.multi_factor.enrolled_factors")?[0]?["factor_id"] == "phone")
            #expect(call.value(at: "user_record.uid") == created["localId"])
        }
    }

    @Test("signInWithEmailLink: both functions for a new user, beforeSignIn for an existing one")
    func emailLink() async throws {
        let functions = FakeFunctions()
        functions.reply("beforeCreate", #"{"userRecord":{"updateMask":"displayName","displayName":"Not tested"}}"#)
        functions.reply("beforeSignIn", Self.modify)
        try await Harness().run(functions: functions) { client in
            try await Self.configure(client, ["beforeCreate": Self.beforeCreate, "beforeSignIn": Self.beforeSignIn])
            for round in 0..<2 {
                try await client.v1(
                    "accounts:sendOobCode", ["requestType": "EMAIL_SIGNIN", "email": "link@example.com"]
                ).ok()
                let oob = try await AccountUpdateSpecTests.oobCodes(client).last!["oobCode"]!
                let signedIn = try await client.v1(
                    "accounts:signInWithEmailLink", ["email": "link@example.com", "oobCode": oob])
                #expect(signedIn.status == 200)
                #expect(signedIn["isNewUser"] == .bool(round == 0))
                Self.expectModified(signedIn.string("idToken"))
            }
            let calls = functions.calls
            #expect(calls.map(\.url) == [Self.beforeCreate, Self.beforeSignIn, Self.beforeSignIn])
            #expect(calls[0].claims["sign_in_method"] == "emailLink")
            #expect(calls[0].claims.value(at: "user_record.email_verified") == true)
            #expect(calls[1].claims.value(at: "user_record.display_name") == "Not tested")
        }
    }

    @Test("signInWithIdp: provider, raw user info and forwarded credentials reach the functions")
    func idpSignIn() async throws {
        let functions = FakeFunctions()
        functions.reply("beforeCreate", #"{}"#)
        functions.reply("beforeSignIn", Self.modify)
        try await Harness().run(functions: functions) { client in
            try await Self.configure(
                client, ["beforeCreate": Self.beforeCreate, "beforeSignIn": Self.beforeSignIn],
                extra: #","forwardInboundCredentials":{"idToken":true,"accessToken":true}"#)
            let claims: [String: JSONValue] = ["sub": "12345", "email": "idp@example.com", "email_verified": true]
            let signedIn = try await IdpSignInTests.signIn(client, "google.com", claims)
            #expect(signedIn.status == 200)
            Self.expectModified(signedIn.string("idToken"))
            let create = functions.calls[0].claims
            #expect(create["sign_in_method"] == "google.com")
            #expect(create["raw_user_info"] == signedIn["rawUserInfo"])
            #expect(create["oauth_id_token"] == .string(JSONValue.object(claims).jsonString()))
            #expect(create["oauth_access_token"] == "FirebaseAuthEmulatorFakeAccessToken_google.com")
            #expect(create.value(at: "user_record.provider_data")?[0]?["provider_id"] == "google.com")
            #expect(create.value(at: "user_record.provider_data")?[0]?["uid"] == "12345")

            functions.reply("beforeSignIn", #"{"userRecord":{"updateMask":"disabled","disabled":true}}"#)
            let refused = try await IdpSignInTests.signIn(client, "google.com", claims)
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "USER_DISABLED")
        }
    }

    @Test("signInWithPhoneNumber: both functions for a new number; the uid shown is the one created")
    func phoneSignIn() async throws {
        let functions = FakeFunctions()
        functions.reply("beforeCreate", #"{"userRecord":{"updateMask":"displayName","displayName":"created"}}"#)
        functions.reply("beforeSignIn", Self.modify)
        try await Harness().run(functions: functions) { client in
            try await Self.configure(client, ["beforeCreate": Self.beforeCreate, "beforeSignIn": Self.beforeSignIn])
            let sent = try await client.v1("accounts:sendVerificationCode", PhoneRouteTests.jsSend())
            let codes = try await client.call(.get, "/emulator/v1/projects/example/verificationCodes", key: false)
            let signedIn = try await client.v1(
                "accounts:signInWithPhoneNumber",
                ["sessionInfo": sent["sessionInfo"]!, "code": codes["verificationCodes"]![0]!["code"]!])
            #expect(signedIn.status == 200)
            #expect(signedIn["isNewUser"] == true)
            Self.expectModified(signedIn.string("idToken"))
            #expect(signedIn.string("idToken").jwtPayload["email"] == nil)
            let calls = functions.calls
            #expect(calls.map(\.url) == [Self.beforeCreate, Self.beforeSignIn])
            #expect(calls[0].claims["sign_in_method"] == "phone")
            #expect(calls[0].claims.value(at: "user_record.phone_number") == PhoneRouteTests.jsSend()["phoneNumber"])
            #expect(calls[0].claims.value(at: "user_record.uid") == signedIn["localId"])
            #expect(calls[1].claims.value(at: "user_record.display_name") == "created")
        }
    }

    @Test("a failing function stops the sign-in with firebase-tools' messages and writes nothing")
    func failures() async throws {
        let functions = FakeFunctions()
        try await Harness().run(functions: functions) { client in
            try await Self.configure(client, ["beforeCreate": Self.beforeCreate])
            let cases: [(status: Int, body: String, code: Int, message: String)] = [
                (
                    403, #"{"error":{"message":"nope"}}"#, 400,
                    #"BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to http://my-blocking-function.test/beforeCreate returned HTTP error 403: {"error":{"message":"nope"}}))"#
                ),
                (200, "not json", 500, "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Response body is not valid JSON.))"),
                (
                    200, #"{"userRecord":{"displayName":"x"}}"#, 400,
                    "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Response UserRecord is missing updateMask.))"
                ),
                (
                    200, #"{"userRecord":{"updateMask":"customClaims","customClaims":{"sub":"x"}}}"#, 400,
                    "FORBIDDEN_CLAIM : sub"
                ),
            ]
            for item in cases {
                functions.reply("beforeCreate", status: item.status, item.body)
                let reply = try await client.signUp("alice@example.com")
                #expect(reply.status == item.code)
                #expect(reply.errorMessage == item.message)
            }
            functions.fail(.unreachable("connection refused"))
            let unreachable = try await client.signUp("alice@example.com")
            #expect(unreachable.status == 500)
            #expect(unreachable["error.status"] == "INTERNAL")
            #expect(
                unreachable.errorMessage
                    == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Failed to make request to http://my-blocking-function.test/beforeCreate.))"
            )
            functions.fail(.timedOut)
            let late = try await client.signUp("alice@example.com")
            #expect(
                late.errorMessage
                    == "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Deadline exceeded making request to http://my-blocking-function.test/beforeCreate.))"
            )
            let users = try await client.v1("accounts:lookup", ["email": .array(["alice@example.com"])], admin: true)
            #expect(users["users"] == nil)
        }
    }
}

extension JSONValue {
    fileprivate subscript(_ index: Int) -> JSONValue? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
