import AuthEmulator
import Foundation
import Testing

/// `auth_time` and session ends as in production (issue 22, part 5).
@Suite("token timing")
struct TokenTimingTests {
    static let admin = "/identitytoolkit.googleapis.com/v1/projects/example/accounts:update"

    static func refresh(_ client: Harness.Client, _ token: String) async throws -> Harness.Reply {
        try await client.call(
            .post, "/securetoken.googleapis.com/v1/token",
            #"{"grant_type":"refresh_token","refresh_token":"\#(token)"}"#)
    }

    @Test("auth_time is the sign-in's: kept by refreshes, profile edits and password changes; a new sign-in moves it")
    func authTime() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let user = try await client.signUp("timing@example.com")
            #expect(user.string("idToken").jwtPayload["auth_time"] == 1_700_000_000)
            harness.clock.advance(by: 100)
            let edit = try await client.v1(
                "accounts:update", ["idToken": user["idToken"]!, "displayName": "Edited", "returnSecureToken": true])
            #expect(edit.status == 200)
            let refreshed = try await Self.refresh(client, user.string("refreshToken"))
            #expect(refreshed.string("id_token").jwtPayload["auth_time"] == 1_700_000_000)
            #expect(refreshed.string("id_token").jwtPayload["iat"] == 1_700_000_100)
            harness.clock.advance(by: 100)
            let password = try await client.v1(
                "accounts:update", ["idToken": user["idToken"]!, "password": "another123", "returnSecureToken": true])
            #expect(password.string("idToken").jwtPayload["auth_time"] == 1_700_000_000)
            #expect(password.string("idToken").jwtPayload["iat"] == 1_700_000_200)
            harness.clock.advance(by: 100)
            let again = try await client.v1(
                "accounts:signInWithPassword", ["email": "timing@example.com", "password": "another123"])
            #expect(again.string("idToken").jwtPayload["auth_time"] == 1_700_000_300)
            let againRefreshed = try await Self.refresh(client, again.string("refreshToken"))
            #expect(againRefreshed.string("id_token").jwtPayload["auth_time"] == 1_700_000_300)
        }
    }

    @Test("admin edits of name, photo, claims or disabled: false keep sessions; password, email and revoke end them")
    func adminEdits() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let user = try await client.signUp("sessions@example.com")
            let localId = user["localId"]!
            harness.clock.advance(by: 10)
            for edit in [
                #"{"displayName":"N"}"#, #"{"photoUrl":"http://localhost/p.png"}"#,
                #"{"customAttributes":"{\"role\":\"admin\"}"}"#, #"{"disableUser":false}"#,
            ] {
                let body = "{\"localId\":\(localId.jsonString()),\(edit.dropFirst())"
                let reply = try await client.call(.post, Self.admin, body, admin: true)
                #expect(reply.status == 200, "\(edit)")
                let lookup = try await client.v1("accounts:lookup", ["idToken": user["idToken"]!])
                #expect(lookup.status == 200, "\(edit)")
                #expect(try await Self.refresh(client, user.string("refreshToken")).status == 200, "\(edit)")
            }
            let endings: [(edit: String, email: String, password: String)] = [
                (#"{"password":"changed123"}"#, "sessions@example.com", "secret123"),
                (#"{"email":"moved@example.com"}"#, "sessions@example.com", "changed123"),
                (#"{"validSince":"1700001000"}"#, "moved@example.com", "changed123"),
            ]
            for (edit, email, password) in endings {
                let fresh = try await client.v1(
                    "accounts:signInWithPassword", ["email": .string(email), "password": .string(password)])
                #expect(fresh.status == 200, "\(edit)")
                harness.clock.advance(by: 10)
                let body = "{\"localId\":\(localId.jsonString()),\(edit.dropFirst())"
                let reply = try await client.call(.post, Self.admin, body, admin: true)
                #expect(reply.status == 200, "\(edit)")
                let lookup = try await client.v1("accounts:lookup", ["idToken": fresh["idToken"]!])
                #expect(lookup.errorMessage == "TOKEN_EXPIRED", "\(edit)")
                let refreshed = try await Self.refresh(client, fresh.string("refreshToken"))
                #expect(refreshed.errorMessage == "TOKEN_EXPIRED", "\(edit)")
            }
        }
    }
}
