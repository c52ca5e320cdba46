import AuthEmulator
import Foundation
import Testing

/// Production's lockouts: wrong passwords lock password sign-in, wrong second-factor codes lock
/// the factor and use up the pending credential; the emulator's clock or a reset ends a lock.
@Suite("Lockouts")
struct LockoutTests {
    static let locked =
        "TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled due to many failed login "
        + "attempts. You can immediately restore it by resetting your password or you can try again later."

    /// Sets `emulatorSettings` of the project (whole, as the update mask names it).
    static func settings(_ client: Harness.Client, _ settings: String) async throws -> Harness.Reply {
        try await client.call(
            .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings",
            #"{"emulatorSettings":\#(settings)}"#, admin: true)
    }

    static func signIn(_ client: Harness.Client, _ password: String) async throws -> Harness.Reply {
        try await client.v1(
            "accounts:signInWithPassword", ["email": "lock@example.com", "password": .string(password)])
    }

    @Test("wrong passwords lock sign-in with production's message, the right one too, until the clock moves on")
    func passwordLock() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.settings(client, #"{"passwordMaxAttempts":3,"passwordLockoutSeconds":900}"#).ok()
            try await client.signUp("lock@example.com").ok()
            for _ in 1...2 {
                let wrong = try await Self.signIn(client, "wrong-one")
                #expect(wrong.status == 400 && wrong.errorMessage == "INVALID_PASSWORD")
            }
            let third = try await Self.signIn(client, "wrong-one")
            #expect(third.status == 400 && third.errorMessage == Self.locked)
            let right = try await Self.signIn(client, "secret123")
            #expect(right.status == 400 && right.errorMessage == Self.locked)
            // The counters are the daemon's own: no lookup or download shows them.
            let download = try await client.call(
                .get, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:batchGet", admin: true)
            #expect(download.status == 200)
            #expect(download["users"]?.arrayValue?[0].objectValue?.keys.contains("signInAttempts") == false)
            harness.clock.advance(by: 899)
            #expect(try await Self.signIn(client, "secret123").errorMessage == Self.locked)
            harness.clock.advance(by: 2)
            let after = try await Self.signIn(client, "secret123")
            #expect(after.status == 200 && after["idToken"] != nil)
        }
    }

    @Test("the right password starts the count again; wrong ones further apart than the lockout do not add up")
    func countInARow() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.settings(client, #"{"passwordMaxAttempts":3,"passwordLockoutSeconds":60}"#).ok()
            try await client.signUp("lock@example.com").ok()
            for _ in 1...2 { #expect(try await Self.signIn(client, "nope").errorMessage == "INVALID_PASSWORD") }
            #expect(try await Self.signIn(client, "secret123").status == 200)
            for _ in 1...2 { #expect(try await Self.signIn(client, "nope").errorMessage == "INVALID_PASSWORD") }
            harness.clock.advance(by: 61)
            for _ in 1...2 { #expect(try await Self.signIn(client, "nope").errorMessage == "INVALID_PASSWORD") }
            #expect(try await Self.signIn(client, "nope").errorMessage == Self.locked)
        }
    }

    @Test("a password reset or a new password set by the admin ends a lock at once")
    func resetEndsLock() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.settings(client, #"{"passwordMaxAttempts":2}"#).ok()
            let user = try await client.signUp("lock@example.com").ok()
            for _ in 1...2 { _ = try await Self.signIn(client, "nope") }
            #expect(try await Self.signIn(client, "secret123").errorMessage == Self.locked)
            try await client.v1(
                "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "lock@example.com"]
            ).ok()
            let codes = try await client.call(.get, "/emulator/v1/projects/example/oobCodes", key: false)
            let oobCode = codes["oobCodes"]!.arrayValue!.last!["oobCode"]!
            try await client.v1("accounts:resetPassword", ["oobCode": oobCode, "newPassword": "secret456"]).ok()
            #expect(try await Self.signIn(client, "secret456").status == 200)

            for _ in 1...2 { _ = try await Self.signIn(client, "nope") }
            #expect(try await Self.signIn(client, "secret456").errorMessage == Self.locked)
            try await client.v1(
                "projects/example/accounts:update", ["localId": user["localId"]!, "password": "secret789"], admin: true
            ).ok()
            #expect(try await Self.signIn(client, "secret789").status == 200)
        }
    }

    @Test("passwordMaxAttempts 0 turns the lock off; the default locks at the tenth wrong password")
    func offAndDefault() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.signUp("lock@example.com").ok()
            for _ in 1...9 { #expect(try await Self.signIn(client, "nope").errorMessage == "INVALID_PASSWORD") }
            #expect(try await Self.signIn(client, "nope").errorMessage == Self.locked)
            try await Self.settings(client, #"{"passwordMaxAttempts":0}"#).ok()
            #expect(try await Self.signIn(client, "secret123").status == 200)
            for _ in 1...25 { #expect(try await Self.signIn(client, "nope").errorMessage == "INVALID_PASSWORD") }
            #expect(try await Self.signIn(client, "secret123").status == 200)
        }
    }

    @Test(
        "settings out of range name the key",
        arguments: [
            (#"{"passwordMaxAttempts":-1}"#, "passwordMaxAttempts must be an integer from 0 to 1000"),
            (#"{"mfaMaxAttempts":1001}"#, "mfaMaxAttempts must be an integer from 0 to 1000"),
            (#"{"passwordLockoutSeconds":0}"#, "passwordLockoutSeconds must be an integer from 1 to 86400"),
            (#"{"mfaLockoutSeconds":"9"}"#, "mfaLockoutSeconds must be an integer from 1 to 86400"),
        ])
    func badSettings(settings: String, detail: String) async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await Self.settings(client, settings)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "INVALID_CONFIG : emulatorSettings.\(detail)")
        }
    }

    /// TOTP turned on and an enrollment started for `mfa@example.com`: its ID token, session and secret.
    static func startedTotp(_ client: Harness.Client) async throws -> (idToken: JSONValue, session: JSONValue, String) {
        try await client.call(
            .patch, "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=mfa",
            MfaRouteTests.enableTotp, admin: true
        ).ok()
        let user = try await MfaRouteTests.verifiedUser(client)
        let start = try await MfaRouteTests.v2(
            client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])]
        ).ok()
        return (
            user["idToken"]!, start["totpSessionInfo.sessionInfo"]!, start.string("totpSessionInfo.sharedSecretKey")
        )
    }

    static func finalizeEnrollment(_ client: Harness.Client, _ idToken: JSONValue, _ session: JSONValue, _ code: String)
        async throws -> Harness.Reply
    {
        try await MfaRouteTests.v2(
            client, "mfaEnrollment:finalize",
            [
                "idToken": idToken,
                "totpVerificationInfo": .object(["sessionInfo": session, "verificationCode": .string(code)]),
            ])
    }

    /// A TOTP factor enrolled for `mfa@example.com`; its enrollment id and secret.
    static func enrolledTotp(_ client: Harness.Client, _ harness: Harness) async throws -> (JSONValue, String) {
        let (idToken, session, secret) = try await startedTotp(client)
        let done = try await finalizeEnrollment(
            client, idToken, session, MfaRouteTests.code(secret, at: harness.clock.now())
        ).ok()
        return (done.string("idToken").jwtPayload.value(at: "firebase.second_factor_identifier")!, secret)
    }

    static func pending(_ client: Harness.Client) async throws -> JSONValue {
        try await client.v1("accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"])
            .ok()["mfaPendingCredential"]!
    }

    static func finalizeTotp(_ client: Harness.Client, _ pending: JSONValue, _ factor: JSONValue, _ code: String)
        async throws -> Harness.Reply
    {
        try await MfaRouteTests.v2(
            client, "mfaSignIn:finalize",
            [
                "mfaPendingCredential": pending, "mfaEnrollmentId": factor,
                "totpVerificationInfo": .object(["verificationCode": .string(code)]),
            ])
    }

    @Test("wrong TOTP codes lock the factor for every pending credential until the clock moves on")
    func totpFactorLock() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.settings(
                client,
                #"{"mfaMaxAttempts":3,"mfaLockoutSeconds":900,"mfaPendingCredentialLifetimeSeconds":3600,"totpReplayProtection":false}"#
            ).ok()
            let (factor, secret) = try await Self.enrolledTotp(client, harness)
            let code = { MfaRouteTests.code(secret, at: harness.clock.now()) }
            let wrong = code() == "000000" ? "111111" : "000000"
            let first = try await Self.pending(client)
            for _ in 1...2 {
                let reply = try await Self.finalizeTotp(client, first, factor, wrong)
                #expect(reply.status == 400 && reply.errorMessage == "INVALID_CODE")
            }
            let third = try await Self.finalizeTotp(client, first, factor, wrong)
            #expect(third.status == 400 && third.errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(
                try await Self.finalizeTotp(client, first, factor, code()).errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER"
            )
            let second = try await Self.pending(client)
            #expect(
                try await Self.finalizeTotp(client, second, factor, code()).errorMessage
                    == "TOO_MANY_ATTEMPTS_TRY_LATER")
            harness.clock.advance(by: 901)
            let signedIn = try await Self.finalizeTotp(client, second, factor, code())
            #expect(signedIn.status == 200 && signedIn["idToken"] != nil, "\(signedIn.json)")
        }
    }

    @Test("one pending credential gets at most mfaMaxAttempts wrong codes, even when sign-ins succeed between")
    func pendingCredentialBound() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.settings(client, #"{"mfaMaxAttempts":3,"totpReplayProtection":false}"#).ok()
            let (factor, secret) = try await Self.enrolledTotp(client, harness)
            let code = { MfaRouteTests.code(secret, at: harness.clock.now()) }
            let wrong = code() == "000000" ? "111111" : "000000"
            let guessing = try await Self.pending(client)
            for _ in 1...2 {
                #expect(try await Self.finalizeTotp(client, guessing, factor, wrong).errorMessage == "INVALID_CODE")
            }
            // The owner signs in: the factor's count starts again, the guessing credential's does not.
            #expect(try await Self.finalizeTotp(client, try await Self.pending(client), factor, code()).status == 200)
            let spent = try await Self.finalizeTotp(client, guessing, factor, wrong)
            #expect(spent.errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(
                try await Self.finalizeTotp(client, guessing, factor, code()).errorMessage
                    == "TOO_MANY_ATTEMPTS_TRY_LATER")
            let owner = try await Self.finalizeTotp(client, try await Self.pending(client), factor, code())
            #expect(owner.status == 200, "\(owner.json)")
        }
    }

    @Test("wrong SMS codes count across sessions against the factor; a locked factor is sent no code")
    func smsFactorLock() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.settings(client, #"{"mfaMaxAttempts":3}"#).ok()
            let user = try await MfaRouteTests.verifiedUser(client)
            let start = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start",
                ["idToken": user["idToken"]!, "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550100"])]
            ).ok()
            let outbox = { (purpose: String) in
                try await client.call(.get, "/emulator/v1/projects/example/smsMessages?purpose=\(purpose)", key: false)[
                    "smsMessages"]!.arrayValue!
            }
            try await MfaRouteTests.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "phoneVerificationInfo": .object([
                        "sessionInfo": start["phoneSessionInfo.sessionInfo"]!,
                        "code": try await outbox("MFA_ENROLLMENT")[0]["code"]!,
                    ]),
                ]
            ).ok()
            let first = try await client.v1(
                "accounts:signInWithPassword", ["email": "mfa@example.com", "password": "secret123"]
            ).ok()
            let pending = first["mfaPendingCredential"]!
            let factor = first["mfaInfo"]!.arrayValue![0]["mfaEnrollmentId"]!
            func send() async throws -> Harness.Reply {
                try await MfaRouteTests.v2(
                    client, "mfaSignIn:start", ["mfaPendingCredential": pending, "mfaEnrollmentId": factor])
            }
            func finalize(_ session: JSONValue, _ code: String) async throws -> Harness.Reply {
                try await MfaRouteTests.v2(
                    client, "mfaSignIn:finalize",
                    [
                        "mfaPendingCredential": pending,
                        "phoneVerificationInfo": .object(["sessionInfo": session, "code": .string(code)]),
                    ])
            }
            let one = try await send().ok()["phoneResponseInfo.sessionInfo"]!
            let sent = try await outbox("MFA_SIGN_IN")[0]["code"]!.stringValue!
            let wrong = sent == "000000" ? "111111" : "000000"
            for _ in 1...2 { #expect(try await finalize(one, wrong).errorMessage == "INVALID_CODE") }
            let two = try await send().ok()["phoneResponseInfo.sessionInfo"]!
            let third = try await finalize(two, wrong)
            #expect(third.status == 400 && third.errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            let refused = try await send()
            #expect(refused.status == 400 && refused.errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await outbox("MFA_SIGN_IN").count == 2)
        }
    }

    @Test("wrong codes at TOTP enrollment use the session up; its right code then finds no session")
    func totpEnrollmentLock() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.settings(client, #"{"mfaMaxAttempts":3}"#).ok()
            let (idToken, session, secret) = try await Self.startedTotp(client)
            let right = MfaRouteTests.code(secret, at: harness.clock.now())
            func finalize(_ code: String) async throws -> Harness.Reply {
                try await Self.finalizeEnrollment(client, idToken, session, code)
            }
            let wrong = right == "000000" ? "111111" : "000000"
            for _ in 1...2 { #expect(try await finalize(wrong).errorMessage == "INVALID_CODE") }
            #expect(try await finalize(wrong).errorMessage == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await finalize(right).errorMessage == "INVALID_SESSION_INFO")
        }
    }
}
