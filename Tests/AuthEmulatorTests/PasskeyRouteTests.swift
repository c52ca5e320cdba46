import AuthEmulator
import Foundation
import Testing

@Suite("Passkeys (mock WebAuthn, as firebase-tools)")
struct PasskeyRouteTests {
    static func v2(_ client: Harness.Client, _ operation: String, _ body: [String: JSONValue]) async throws
        -> Harness.Reply
    {
        try await client.call(
            .post, "/identitytoolkit.googleapis.com/v2/accounts/\(operation)", JSONValue.object(body).jsonString())
    }

    static func enroll(_ client: Harness.Client, _ idToken: JSONValue, _ id: String, _ extra: [String: JSONValue] = [:])
        async throws -> Harness.Reply
    {
        var body = extra
        body["idToken"] = idToken
        body["authenticatorRegistrationResponse"] = .object(["id": .string(id)])
        return try await v2(client, "passkeyEnrollment:finalize", body)
    }

    @Test("enrolment options, enrolment, lookup, sign-in with the credential id, errors")
    func enrolAndSignIn() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.signUp("pk@example.com")
            let idToken = created["idToken"]!
            let options = try await Self.v2(client, "passkeyEnrollment:start", ["idToken": idToken])
            #expect(options.status == 200)
            #expect(options["credentialCreationOptions.rp.id"] == "localhost")
            #expect(
                options["credentialCreationOptions.user.id"]
                    == .string(Data(created.string("localId").utf8).base64EncodedString()))
            #expect(options["credentialCreationOptions.user.name"] == "pk@example.com")
            #expect(options["credentialCreationOptions.user.displayName"] == "User")
            #expect(options["credentialCreationOptions.challenge"]?.stringValue?.count == 44)
            #expect(options["credentialCreationOptions.attestation"] == "none")

            let enrolled = try await Self.enroll(client, idToken, "cred-1", ["name": "My Security Key"])
            #expect(enrolled.status == 200)
            #expect(enrolled.string("localId") == created.string("localId"))
            #expect(enrolled.string("idToken").jwtPayload.value(at: "firebase.sign_in_provider") == "passkey")
            let lookup = try await client.v1("accounts:lookup", ["idToken": idToken])
            #expect(
                lookup["users"]?.arrayValue?.first?["passkeyInfo"]
                    == .array([.object(["credentialId": "cred-1", "name": "My Security Key"])]))
            #expect(try await Self.enroll(client, idToken, "cred-1").errorMessage == "CREDENTIAL_ALREADY_IN_USE")

            let start = try await Self.v2(client, "passkeySignIn:start", [:])
            #expect(start["credentialRequestOptions.rpId"] == "localhost")
            #expect(start["credentialRequestOptions.userVerification"] == "required")
            harness.clock.advance(by: 60)
            let signIn = try await Self.v2(
                client, "passkeySignIn:finalize", ["authenticatorAuthenticationResponse": .object(["id": "cred-1"])])
            #expect(signIn.status == 200)
            #expect(signIn.string("localId") == created.string("localId"))
            #expect(signIn.string("idToken").jwtPayload.value(at: "firebase.sign_in_provider") == "passkey")
            #expect(signIn.string("idToken").jwtPayload["email"] == "pk@example.com")
            let unknown = try await Self.v2(
                client, "passkeySignIn:finalize", ["authenticatorAuthenticationResponse": .object(["id": "nope"])])
            #expect(unknown.status == 400)
            #expect(unknown.errorMessage == "PASSKEY_CREDENTIAL_NOT_FOUND")

            try await client.v1(
                "accounts:update", ["localId": created["localId"]!, "disableUser": true], admin: true
            ).ok()
            #expect(
                try await Self.v2(
                    client, "passkeySignIn:finalize", ["authenticatorAuthenticationResponse": .object(["id": "cred-1"])]
                ).errorMessage == "USER_DISABLED")
        }
    }

    @Test("names fall back to displayName, then \"Unnamed Passkey\"; deletePasskey removes one; missing fields")
    func namesDeletionAndMissingFields() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let user = try await client.signUp("names@example.com")
            let idToken = user["idToken"]!
            #expect(try await Self.enroll(client, idToken, "a", ["displayName": "Shown Name"]).status == 200)
            #expect(try await Self.enroll(client, idToken, "b").status == 200)
            let both = try await client.v1("accounts:lookup", ["idToken": idToken])
            #expect(
                both["users"]?.arrayValue?.first?["passkeyInfo"]
                    == .array([
                        .object(["credentialId": "a", "name": "Shown Name"]),
                        .object(["credentialId": "b", "name": "Unnamed Passkey"]),
                    ]))
            #expect(
                try await client.v1("accounts:update", ["idToken": idToken, "deletePasskey": .array(["a"])]).status
                    == 200)
            #expect(
                try await client.v1("accounts:update", ["idToken": idToken, "deletePasskey": .array(["zz"])]).status
                    == 200)
            let left = try await client.v1("accounts:lookup", ["idToken": idToken])
            #expect(
                left["users"]?.arrayValue?.first?["passkeyInfo"]
                    == .array([.object(["credentialId": "b", "name": "Unnamed Passkey"])]))
            // A deleted credential no longer signs in, and can be enrolled again.
            #expect(
                try await Self.v2(
                    client, "passkeySignIn:finalize", ["authenticatorAuthenticationResponse": .object(["id": "a"])]
                )
                .errorMessage == "PASSKEY_CREDENTIAL_NOT_FOUND")
            #expect(try await Self.enroll(client, idToken, "a").status == 200)

            #expect(try await Self.v2(client, "passkeyEnrollment:start", [:]).errorMessage == "MISSING_ID_TOKEN")
            #expect(
                try await Self.v2(
                    client, "passkeyEnrollment:finalize", ["authenticatorRegistrationResponse": .object(["id": "x"])]
                ).errorMessage == "MISSING_ID_TOKEN")
            #expect(
                try await Self.v2(client, "passkeyEnrollment:finalize", ["idToken": "some_token"]).errorMessage
                    == "MISSING_AUTHENTICATOR_RESPONSE")
            #expect(
                try await Self.v2(
                    client, "passkeyEnrollment:finalize",
                    ["idToken": idToken, "authenticatorRegistrationResponse": .object([:])]
                ).errorMessage == "INVALID_CREDENTIAL_ID")
            #expect(
                try await Self.v2(client, "passkeySignIn:finalize", [:]).errorMessage
                    == "MISSING_AUTHENTICATOR_RESPONSE")
        }
    }
}
