import AuthEmulator
import AuthEmulatorSQLite
import Foundation
import Testing

/// The clock tests can move (`/emulator/v1/clock`): every expiry reads it.
@Suite("the movable clock")
struct ClockRouteTests {
    static let start = "2023-11-14T22:13:20.000Z"  // ManualClock's 1_700_000_000

    static func move(_ client: Harness.Client, _ operation: String, _ body: String = "{}") async throws
        -> Harness.Reply
    {
        try await client.call(.post, "/emulator/v1/clock:\(operation)", body, key: false)
    }

    @Test("GET, advance, set and reset answer the time and the offset; bad input is refused")
    func moves() async throws {
        try await Harness().run { client in
            let initial = try await client.call(.get, "/emulator/v1/clock", key: false)
            #expect(initial.json == .object(["now": .string(Self.start), "offsetSeconds": 0, "frozen": false]))
            let advanced = try await Self.move(client, "advance", #"{"seconds":3601}"#)
            #expect(
                advanced.json == .object(["now": "2023-11-14T23:13:21.000Z", "offsetSeconds": 3601, "frozen": false]))
            let root = try await client.call(.get, "/", key: false)
            #expect(root["authEmulator.clock.offsetSeconds"] == 3601)
            let set = try await Self.move(client, "set", #"{"time":"2030-01-01T00:00:00Z"}"#)
            #expect(
                set.json == .object(["now": "2030-01-01T00:00:00.000Z", "offsetSeconds": 193_456_000, "frozen": false]))
            let zoned = try await Self.move(client, "set", #"{"time":"2030-01-01T02:00:00.250+02:00"}"#)
            #expect(zoned["now"] == "2030-01-01T00:00:00.250Z")
            let reset = try await Self.move(client, "reset")
            #expect(reset.json == .object(["now": .string(Self.start), "offsetSeconds": 0, "frozen": false]))
            let failures: [(String, String, String)] = [
                ("advance", "{}", "MISSING_SECONDS : seconds is required."),
                ("advance", #"{"seconds":"soon"}"#, "Invalid JSON payload received. /seconds must be number"),
                ("advance", #"{"seconds":1e12}"#, "INVALID_SECONDS : seconds must be a number of at most 3155760000."),
                ("set", "{}", "MISSING_TIME : time is required."),
                (
                    "set", #"{"time":"next tuesday"}"#,
                    "INVALID_TIME : time must be an RFC 3339 date-time, e.g. 2030-01-01T00:00:00Z."
                ),
                (
                    "set", #"{"time":"2999-01-01T00:00:00Z"}"#,
                    "INVALID_TIME : the clock can move at most 100 years from the real time."
                ),
            ]
            for (operation, body, message) in failures {
                let reply = try await Self.move(client, operation, body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.errorMessage == message, "\(body)")
            }
            let unchanged = try await client.call(.get, "/emulator/v1/clock", key: false)
            #expect(unchanged["offsetSeconds"] == 0)
        }
    }

    @Test("an ID token from before advance 3601 is TOKEN_EXPIRED on lookup, update and MFA; a refresh works")
    func idTokenExpiry() async throws {
        try await Harness().run { client in
            let user = try await MfaRouteTests.verifiedUser(client, "clock@example.com")
            let idToken = user["idToken"]!
            let almostAnHour = try await Self.move(client, "advance", #"{"seconds":3599}"#)
            #expect(almostAnHour.status == 200)
            let stillValid = try await client.v1("accounts:lookup", ["idToken": idToken])
            #expect(stillValid.status == 200)
            let pastTheHour = try await Self.move(client, "advance", #"{"seconds":2}"#)
            #expect(pastTheHour.status == 200)
            let lookup = try await client.v1("accounts:lookup", ["idToken": idToken])
            #expect(lookup.status == 400)
            #expect(lookup.errorMessage == "TOKEN_EXPIRED")
            let update = try await client.v1("accounts:update", ["idToken": idToken, "displayName": "late"])
            #expect(update.errorMessage == "TOKEN_EXPIRED")
            let mfa = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start",
                ["idToken": idToken, "phoneEnrollmentInfo": .object(["phoneNumber": "+15555550123"])])
            #expect(mfa.errorMessage == "TOKEN_EXPIRED")
            let refreshed = try await client.call(
                .post, "/securetoken.googleapis.com/v1/token",
                #"{"grant_type":"refresh_token","refresh_token":"\#(user.string("refreshToken"))"}"#)
            #expect(refreshed.status == 200)
            let fresh = refreshed.string("id_token")
            #expect(fresh.jwtPayload["iat"] == .number(1_700_003_601))
            #expect(fresh.jwtPayload["exp"] == .number(1_700_007_201))
            let freshLookup = try await client.v1("accounts:lookup", ["idToken": .string(fresh)])
            #expect(freshLookup.status == 200)
        }
    }

    @Test("SMS codes, MFA pending credentials and email action codes expire on the moved clock; times follow it")
    func otherExpiries() async throws {
        try await Harness().run { client in
            let sent = try await client.v1("accounts:sendVerificationCode", ["phoneNumber": "+15555550177"])
            let codes = try await client.call(
                .get, "/emulator/v1/projects/example/smsMessages?phoneNumber=%2B15555550177", key: false)
            let code = codes["smsMessages"]?.arrayValue?.last?["code"] ?? .null
            let pastSmsLifetime = try await Self.move(client, "advance", #"{"seconds":601}"#)
            #expect(pastSmsLifetime.status == 200)
            let late = try await client.v1(
                "accounts:signInWithPhoneNumber", ["sessionInfo": sent["sessionInfo"]!, "code": code])
            #expect(late.errorMessage == "SESSION_EXPIRED")

            let link = try await client.v1(
                "accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "clock@example.com", "returnOobLink": true], admin: true)
            #expect(link.status == 400)  // no such account yet: create it, then ask again
            let user = try await client.signUp("clock@example.com")
            #expect(user["idToken"]?.stringValue?.jwtPayload["iat"] == .number(1_700_000_601))
            let lookup = try await client.v1("accounts:lookup", ["idToken": user["idToken"]!])
            #expect(lookup["users"]?.arrayValue?.first?["createdAt"] == "1700000601000")
            #expect(lookup["users"]?.arrayValue?.first?["lastLoginAt"] == "1700000601000")
            let reset = try await client.v1(
                "accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "clock@example.com", "returnOobLink": true], admin: true)
            let oobCode = reset.string("oobLink").split(separator: "oobCode=")[1].split(separator: "&")[0]
            let pastOobLifetime = try await Self.move(client, "advance", #"{"seconds":3600}"#)
            #expect(pastOobLifetime.status == 200)
            let expired = try await client.v1("accounts:resetPassword", ["oobCode": .string(String(oobCode))])
            #expect(expired.status == 400)
            #expect(expired.errorMessage == "EXPIRED_OOB_CODE")
        }
    }

    @Test("TOTP codes and enrollment sessions follow the moved clock")
    func totp() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let config = try await client.call(
                .patch, "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=mfa",
                MfaRouteTests.enableTotp, admin: true)
            #expect(config.status == 200)
            let user = try await MfaRouteTests.verifiedUser(client, "totp-clock@example.com")
            let start = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])])
            let info = start["totpSessionInfo"]!
            let secret = info["sharedSecretKey"]!.stringValue!
            let pastEnrollmentLifetime = try await Self.move(client, "advance", #"{"seconds":601}"#)
            #expect(pastEnrollmentLifetime.status == 200)
            let moved = harness.clock.now().addingTimeInterval(601)
            func finalize(_ sessionInfo: JSONValue, _ code: String) async throws -> Harness.Reply {
                try await MfaRouteTests.v2(
                    client, "mfaEnrollment:finalize",
                    [
                        "idToken": user["idToken"]!,
                        "totpVerificationInfo": .object(["sessionInfo": sessionInfo, "verificationCode": .string(code)]
                        ),
                    ])
            }
            let late = try await finalize(info["sessionInfo"]!, MfaRouteTests.code(secret, at: moved))
            #expect(late.errorMessage == "SESSION_EXPIRED")
            let again = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])])
            let secret2 = again["totpSessionInfo.sharedSecretKey"]!.stringValue!
            // A code of the real time is 20 steps off the moved clock: refused; the moved time's is taken.
            let realTime = try await finalize(
                again["totpSessionInfo.sessionInfo"]!, MfaRouteTests.code(secret2, at: harness.clock.now()))
            #expect(realTime.errorMessage == "INVALID_CODE")
            let finalized = try await finalize(
                again["totpSessionInfo.sessionInfo"]!, MfaRouteTests.code(secret2, at: moved))
            #expect(finalized.status == 200)
            let helper = try await client.call(
                .get, "/emulator/v1/projects/example/totpCodes?localId=\(user.string("localId"))", key: false)
            #expect(helper["code"]?.stringValue == MfaRouteTests.code(secret2, at: moved))
        }
    }

    @Test("the offset is state: a daemon started again on the same store keeps it")
    func offsetSurvives() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let aDayLater = try await Self.move(client, "advance", #"{"seconds":86400}"#)
            #expect(aDayLater.status == 200)
        }
        let restarted = await Emulator(store: harness.store, clock: harness.clock)
        #expect(restarted.movableClock.offsetSeconds == 0)
        try await restarted.restoreClockSetting()
        #expect(restarted.movableClock.offsetSeconds == 86400)
        #expect(restarted.clockState()["now"] == "2023-11-15T22:13:20.000Z")
    }

    @Test("off loopback the clock needs the admin credential")
    func offLoopback() async throws {
        try await Harness(host: "0.0.0.0").run { client in
            let anonymous = try await client.call(.get, "/emulator/v1/clock", key: false)
            #expect(anonymous.status == 403)
            #expect(
                anonymous.errorMessage
                    == "The daemon listens beyond loopback: this endpoint needs the admin credential (Authorization: Bearer …)."
            )
            let moved = try await client.call(
                .post, "/emulator/v1/clock:advance", #"{"seconds":60}"#, admin: true, key: false)
            #expect(moved["offsetSeconds"] == 60)
        }
    }
}
