import AuthEmulator
import Foundation
import Testing

/// firebase-tools' setAccountInfo.spec cases where authemu had answered differently.
@Suite("accounts:update as firebase-tools' setAccountInfo.spec")
struct AccountUpdateSpecTests {
    static func oobCodes(_ client: Harness.Client) async throws -> [JSONValue] {
        try await client.call(.get, "/emulator/v1/projects/example/oobCodes", key: false)["oobCodes"]?.arrayValue ?? []
    }

    @Test("changing a signed-in user's email keeps initialEmail and mails RECOVER_EMAIL; the code restores it")
    func recoverEmail() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let alice = try await client.signUp("alice@example.com", "notasecret")
            let changed = try await client.v1(
                "accounts:update", ["idToken": alice["idToken"]!, "email": "Bob@example.com"])
            #expect(changed.status == 200)
            #expect(changed.string("email") == "bob@example.com")
            #expect(changed.string("newEmail") == "bob@example.com")
            #expect(changed.string("idToken").jwtPayload["email"] == "bob@example.com")
            let user = try await client.v1("accounts:lookup", ["idToken": changed["idToken"]!])
            #expect(user["users"]?.arrayValue?.first?["initialEmail"] == "alice@example.com")
            let codes = try await Self.oobCodes(client)
            #expect(codes.count == 1)
            #expect(codes.first?["email"] == "alice@example.com")
            #expect(codes.first?["requestType"] == "RECOVER_EMAIL")
            #expect(codes.first?["oobLink"]?.stringValue?.contains("mode=recoverEmail") == true)
            let recovered = try await client.v1("accounts:update", ["oobCode": codes.first!["oobCode"]!])
            #expect(recovered.status == 200)
            #expect(recovered.string("email") == "alice@example.com")
            #expect(recovered["emailVerified"] == true)
            #expect(try await Self.oobCodes(client).isEmpty)
            let signIn = try await client.v1(
                "accounts:signInWithPassword", ["email": "alice@example.com", "password": "notasecret"])
            #expect(signIn.string("localId") == alice.string("localId"))

            // Someone took the old address meanwhile: EMAIL_EXISTS, and the code is used up.
            try await client.v1("accounts:update", ["idToken": signIn["idToken"]!, "email": "carol@example.com"]).ok()
            try await client.signUp("alice@example.com", "notasecreteither").ok()
            let code = try await Self.oobCodes(client).first!["oobCode"]!
            #expect(try await client.v1("accounts:update", ["oobCode": code]).errorMessage == "EMAIL_EXISTS")
            #expect(try await Self.oobCodes(client).isEmpty)

            // An anonymous user getting an address is not a change of address.
            let anonymous = try await client.v1("accounts:signUp", ["returnSecureToken": true])
            let named = try await client.v1(
                "accounts:update", ["idToken": anonymous["idToken"]!, "email": "dave@example.com"])
            #expect(named.string("idToken").jwtPayload["firebase"]?["sign_in_provider"] == "anonymous")
            #expect(try await Self.oobCodes(client).isEmpty)
        }
    }

    @Test("a password set on an anonymous account signs the new session in with it")
    func passwordProvider() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let anonymous = try await client.v1("accounts:signUp", ["returnSecureToken": true])
            let linked = try await client.v1(
                "accounts:update",
                ["idToken": anonymous["idToken"]!, "email": "alice@example.com", "password": "notasecreteither"])
            #expect(linked.status == 200)
            #expect(linked.string("idToken").jwtPayload["firebase"]?["sign_in_provider"] == "password")
            #expect(linked.string("idToken").jwtPayload["user_id"] == anonymous["localId"])
        }
    }

    @Test("VERIFY_AND_CHANGE_EMAIL: newEmail in the answer; a taken address uses the code up")
    func verifyAndChangeEmail() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let alice = try await client.signUp("alice@example.com", "notasecret")
            func send() async throws -> JSONValue {
                try await client.v1(
                    "accounts:sendOobCode",
                    [
                        "idToken": alice["idToken"]!, "newEmail": "bob@example.com",
                        "requestType": "VERIFY_AND_CHANGE_EMAIL",
                    ]
                ).ok()
                // Listed under the address the mail went to: the new one (the JS SDK's suite looks
                // it up there).
                let listed = try await Self.oobCodes(client).last!
                #expect(listed["email"] == "bob@example.com")
                #expect(listed["newEmail"] == "bob@example.com")
                #expect(
                    listed.objectValue.map { Set($0.keys) } == [
                        "email", "newEmail", "requestType", "oobCode", "oobLink",
                    ])
                return listed["oobCode"]!
            }
            let applied = try await client.v1("accounts:update", ["oobCode": try await send()])
            #expect(applied.string("email") == "bob@example.com")
            #expect(applied.string("newEmail") == "bob@example.com")
            #expect(applied["emailVerified"] == true)
            try await client.v1(
                "accounts:update", ["localId": alice["localId"]!, "email": "alice@example.com"], admin: true
            ).ok()
            let taken = try await send()
            try await client.signUp("bob@example.com", "notasecreteither").ok()
            #expect(try await client.v1("accounts:update", ["oobCode": taken]).errorMessage == "EMAIL_EXISTS")
            #expect(try await Self.oobCodes(client).allSatisfy { $0["requestType"] != "VERIFY_AND_CHANGE_EMAIL" })
        }
    }

    @Test("unlinking password drops the address; linkProviderUserInfo is kept as sent; null lists refused")
    func providersAndLists() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let alice = try await client.signUp("alice@example.com", "notasecret")
            let unlinked = try await client.v1(
                "accounts:update", ["idToken": alice["idToken"]!, "deleteProvider": .array(["password"])])
            #expect(unlinked.status == 200)
            #expect(unlinked["email"] == nil)
            #expect(unlinked["providerUserInfo"] == .array([]))
            let bob = try await client.signUp("bob@example.com", "notasecret")
            let info: JSONValue = .object([
                "providerId": "google.com", "rawId": "google_user_id", "email": "linked@example.com",
                "displayName": "Linked User", "photoUrl": "https://example.com/photo.jpg",
            ])
            let linked = try await client.v1(
                "accounts:update", ["idToken": bob["idToken"]!, "linkProviderUserInfo": info])
            let providers = linked["providerUserInfo"]?.arrayValue ?? []
            #expect(providers.count == 2)
            #expect(providers.contains(info))
            let noProvider = try await client.v1(
                "accounts:update",
                ["idToken": bob["idToken"]!, "linkProviderUserInfo": .object(["rawId": "x"])])
            #expect(noProvider.errorMessage == "MISSING_PROVIDER_ID")
            let nullList = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:update",
                #"{"localId":"anything","mfa":{"enrollments":null}}"#, admin: true)
            #expect(nullList.status == 400)
            #expect(nullList.errorMessage == "Invalid JSON payload received. /mfa/enrollments must be array")
        }
    }
}
