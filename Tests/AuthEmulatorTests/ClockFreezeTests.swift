import AuthEmulator
import Foundation
import Testing

/// The frozen clock (`clock:set` with `freeze`, `clock:resume`): the real time moves on (the
/// harness's base clock is advanced), the daemon's does not.
@Suite("the frozen clock")
struct ClockFreezeTests {
    static let newYear = "2030-01-01T00:00:00.000Z"
    static let newYearSeconds = 1_893_456_000.0

    static func clock(_ client: Harness.Client) async throws -> JSONValue {
        try await client.call(.get, "/emulator/v1/clock", key: false).json
    }

    static func freezeAtNewYear(_ client: Harness.Client) async throws {
        let frozen = try await ClockRouteTests.move(client, "set", #"{"time":"2030-01-01T00:00:00Z","freeze":true}"#)
        #expect(frozen.status == 200)
    }

    static func state(_ now: String, _ offset: Double, frozen: Bool) -> JSONValue {
        .object(["now": .string(now), "offsetSeconds": .number(offset), "frozen": .bool(frozen)])
    }

    @Test("freeze, advance and set while frozen, resume from the frozen instant, reset")
    func freezeAndResume() async throws {
        let harness = try Harness()
        let real = 1_700_000_000.0
        try await harness.run { client in
            let frozen = try await ClockRouteTests.move(
                client, "set", #"{"time":"2030-01-01T00:00:00Z","freeze":true}"#)
            #expect(frozen.json == Self.state(Self.newYear, Self.newYearSeconds - real, frozen: true))
            harness.clock.advance(by: 5)
            #expect(
                try await Self.clock(client) == Self.state(Self.newYear, Self.newYearSeconds - real - 5, frozen: true))
            let root = try await client.call(.get, "/", key: false)
            #expect(root["authEmulator.clock.frozen"] == true)

            let advanced = try await ClockRouteTests.move(client, "advance", #"{"seconds":60}"#)
            #expect(advanced["now"] == "2030-01-01T00:01:00.000Z")
            #expect(advanced["frozen"] == true)
            let set = try await ClockRouteTests.move(client, "set", #"{"time":"2030-06-01T12:00:00.5Z"}"#)
            #expect(set["now"] == "2030-06-01T12:00:00.500Z")
            #expect(set["frozen"] == true)
            harness.clock.advance(by: 5)
            #expect(try await Self.clock(client)["now"] == "2030-06-01T12:00:00.500Z")

            let resumed = try await ClockRouteTests.move(client, "resume")
            #expect(resumed["now"] == "2030-06-01T12:00:00.500Z")
            #expect(resumed["frozen"] == false)
            harness.clock.advance(by: 10)
            #expect(try await Self.clock(client)["now"] == "2030-06-01T12:00:10.500Z")
            let resumedAgain = try await ClockRouteTests.move(client, "resume")
            #expect(resumedAgain["now"] == "2030-06-01T12:00:10.500Z")

            let here = try await ClockRouteTests.move(client, "set", #"{"freeze":true}"#)
            #expect(here["now"] == "2030-06-01T12:00:10.500Z")
            #expect(here["frozen"] == true)
            let running = try await ClockRouteTests.move(client, "set", #"{"freeze":false}"#)
            #expect(running["frozen"] == false)
            let reset = try await ClockRouteTests.move(client, "reset")
            #expect(reset.json == Self.state("2023-11-14T22:13:40.000Z", 0, frozen: false))
        }
    }

    @Test("bad freeze input is refused and changes nothing")
    func badInput() async throws {
        try await Harness().run { client in
            let failures: [(String, String, String)] = [
                ("set", #"{"freeze":"soon"}"#, "Invalid JSON payload received. /freeze must be boolean"),
                (
                    "set", #"{"time":"never","freeze":true}"#,
                    "INVALID_TIME : time must be an RFC 3339 date-time, e.g. 2030-01-01T00:00:00Z."
                ),
                (
                    "set", #"{"time":"2999-01-01T00:00:00Z","freeze":true}"#,
                    "INVALID_TIME : the clock can move at most 100 years from the real time."
                ),
            ]
            for (operation, body, message) in failures {
                let reply = try await ClockRouteTests.move(client, operation, body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.errorMessage == message, "\(body)")
            }
            #expect(try await Self.clock(client) == Self.state(ClockRouteTests.start, 0, frozen: false))
        }
    }

    @Test("while frozen, stored times, token claims and enrolledAt are the frozen instant to the millisecond")
    func frozenTimes() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.freezeAtNewYear(client)
            harness.clock.advance(by: 0.004)
            let user = try await MfaRouteTests.verifiedUser(client, "frozen@example.com")
            let claims = user.string("idToken").jwtPayload
            #expect(claims["iat"] == .number(Self.newYearSeconds))
            #expect(claims["auth_time"] == .number(Self.newYearSeconds))
            #expect(claims["exp"] == .number(Self.newYearSeconds + 3600))
            harness.clock.advance(by: 0.004)
            let config = try await client.call(
                .patch, "/identitytoolkit.googleapis.com/admin/v2/projects/example/config?updateMask=mfa",
                MfaRouteTests.enableTotp, admin: true)
            #expect(config.status == 200)
            let start = try await MfaRouteTests.v2(
                client, "mfaEnrollment:start", ["idToken": user["idToken"]!, "totpEnrollmentInfo": .object([:])])
            let secret = start["totpSessionInfo.sharedSecretKey"]!.stringValue!
            #expect(start["totpSessionInfo.finalizeEnrollmentTime"] == "2030-01-01T00:10:00.000Z")
            let code = MfaRouteTests.code(secret, at: Date(timeIntervalSince1970: Self.newYearSeconds))
            let finalized = try await MfaRouteTests.v2(
                client, "mfaEnrollment:finalize",
                [
                    "idToken": user["idToken"]!,
                    "totpVerificationInfo": .object([
                        "sessionInfo": start["totpSessionInfo.sessionInfo"]!, "verificationCode": .string(code),
                    ]),
                ])
            #expect(finalized.status == 200)
            let lookup = try await client.v1("accounts:lookup", ["idToken": finalized["idToken"]!])
            let record = lookup["users"]?.arrayValue?.first
            #expect(record?["createdAt"] == "1893456000000")
            #expect(record?["lastLoginAt"] == "1893456000000")
            #expect(record?["lastRefreshAt"] == .string(Self.newYear))
            #expect(record?["mfaInfo"]?.arrayValue?.first?["enrolledAt"] == .string(Self.newYear))
        }
    }

    @Test("the frozen clock is state: a daemon started again on the same store stands at the same instant")
    func frozenSurvives() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await Self.freezeAtNewYear(client)
        }
        harness.clock.advance(by: 3600)
        let restarted = await Emulator(store: harness.store, clock: harness.clock)
        try await restarted.restoreClockSetting()
        #expect(restarted.clockState() == Self.state(Self.newYear, Self.newYearSeconds - 1_700_003_600, frozen: true))
    }
}
