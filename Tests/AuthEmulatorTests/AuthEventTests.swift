import Foundation
import Synchronization
import Testing

@testable import AuthEmulator

/// A Functions emulator that is up or down as the test says, and keeps what reached it.
final class SwitchableFunctionsEmulator: FunctionsEmulatorLink {
    let up = Mutex(false)
    private let received = Mutex<[String]>([])

    var bodies: [String] { received.withLock { $0 } }
    var startupDescription: String { "a test's Functions emulator" }

    func locate(projectId: String, lookAgain: Bool) async -> FunctionsEmulatorAddress? {
        FunctionsEmulatorAddress(origin: "http://functions.test", foundThrough: "the test")
    }

    func send(_ event: AuthEvent, to address: FunctionsEmulatorAddress) async throws -> Int {
        guard up.withLock({ $0 }) else { throw URLError(.cannotConnectToHost) }
        received.withLock { $0.append(String(decoding: event.body, as: UTF8.self)) }
        return 200
    }

    /// Waits (at most 10 s) until `count` events have arrived.
    func waitFor(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while bodies.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
    }
}

/// The time a delivery reads, moved by the test.
final class SteppedTime: Sendable {
    private let start = ContinuousClock.now
    private let offset = Mutex(Duration.zero)

    func advance(_ by: Duration) { offset.withLock { $0 += by } }

    var timing: AuthEventDelivery.Timing {
        AuthEventDelivery.Timing(
            now: { self.start + self.offset.withLock { $0 } },
            pause: { _ in try? await Task.sleep(for: .milliseconds(1)) })
    }
}

@Suite struct AuthEventTests {
    @Test func theBodyIsFirebaseToolsOwnFieldForField() throws {
        var user = UserRecord(localId: "uid-1")
        user.email = "a@example.com"
        user.emailVerified = true
        user.displayName = "A"
        user.photoUrl = "https://example.com/a.png"
        user.phoneNumber = "+15555550100"
        user.disabled = false
        user.createdAt = "1700000000123"
        user.lastLoginAt = "1700000001000"
        user.customAttributes = #"{"role":"admin"}"#
        user.passwordHash = "secret-hash"
        user.salt = "salt"
        user.tenantId = "t-1"
        user.providerUserInfo = [
            ProviderUserInfo(
                providerId: "password", rawId: "a@example.com", federatedId: "a@example.com", email: "a@example.com")
        ]
        user.mfaInfo = [
            MfaEnrollment(
                mfaEnrollmentId: "m1", displayName: "phone", enrolledAt: "2023-11-14T22:13:20Z",
                phoneInfo: "+15555550100")
        ]
        let event = AuthEvent(
            .create, user: user, scope: Scope(projectId: "proj", tenantId: "t-1"),
            at: Date(timeIntervalSince1970: 1_700_000_002.5),
            eventId: UUID(uuidString: "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")!)
        let expected =
            #"{"eventId":"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0","eventType":"providers/firebase.auth/eventTypes/user.create","#
            + #""resource":{"name":"projects/proj","service":"firebaseauth.googleapis.com"},"params":{},"#
            + #""timestamp":"2023-11-14T22:13:22.500Z","data":{"uid":"uid-1","email":"a@example.com","emailVerified":true,"#
            + #""displayName":"A","photoURL":"https://example.com/a.png","phoneNumber":"+15555550100","disabled":false,"#
            + #""metadata":{"creationTime":"2023-11-14T22:13:20.123Z","lastSignInTime":"2023-11-14T22:13:21.000Z"},"#
            + #""customClaims":{"role":"admin"},"providerData":[{"rawId":"a@example.com","providerId":"password","#
            + #""email":"a@example.com","federatedId":"a@example.com"}],"tenantId":"t-1","#
            + #""mfaInfo":[{"displayName":"phone","enrolledAt":"2023-11-14T22:13:20Z","mfaEnrollmentId":"m1","phoneInfo":"+15555550100","#
            + #""unobfuscatedPhoneInfo":"+15555550100"}]}}"#
        #expect(String(decoding: event.body, as: UTF8.self) == expected)
        #expect(event.path == "/functions/projects/proj/trigger_multicast")
    }

    @Test func absentFieldsAreLeftOutAndClaimsAndMetadataStay() {
        let event = AuthEvent(
            .delete, user: UserRecord(localId: "anon"), scope: Scope(projectId: "p"),
            at: Date(timeIntervalSince1970: 0),
            eventId: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!)
        #expect(
            String(decoding: event.body, as: UTF8.self)
                == #"{"eventId":"00000000-0000-0000-0000-000000000000","eventType":"providers/firebase.auth/eventTypes/user.delete","#
                + #""resource":{"name":"projects/p","service":"firebaseauth.googleapis.com"},"params":{},"#
                + #""timestamp":"1970-01-01T00:00:00.000Z","data":{"uid":"anon","metadata":{},"customClaims":{}}}"#)
    }

    /// A delivery to a Functions emulator that is down until the test brings it up.
    func deliveryWhileDown(maxEvents: Int, untilReached: Int = 1_000) -> (
        SwitchableFunctionsEmulator, AuthEventDelivery
    ) {
        let functions = SwitchableFunctionsEmulator()
        var limits = AuthEventDelivery.Limits()
        limits.maxEvents = maxEvents
        limits.maxEventsUntilReached = untilReached
        let delivery = AuthEventDelivery(
            link: functions, limits: limits, timing: SteppedTime().timing, logger: .init(label: "t"))
        return (functions, delivery)
    }

    @Test func eventsWaitInOrderWithinTheCountAndAreSentWhenTheEmulatorAnswers() async throws {
        let (functions, delivery) = deliveryWhileDown(maxEvents: 3)
        delivery.enqueue((1...5).map { StoreChecks.event("e\($0)") })
        #expect(delivery.waiting.events == 3)
        functions.up.withLock { $0 = true }
        try await functions.waitFor(3)
        #expect(functions.bodies == ["e1", "e2", "e3"])
        delivery.enqueue([StoreChecks.event("e6")])
        try await functions.waitFor(4)
        #expect(functions.bodies == ["e1", "e2", "e3", "e6"])
    }

    @Test func untilAFunctionsEmulatorAnswersFewerEventsWait() async throws {
        let (functions, delivery) = deliveryWhileDown(maxEvents: 4, untilReached: 2)
        delivery.enqueue((1...3).map { StoreChecks.event("e\($0)") })
        #expect(delivery.waiting.events == 2)
        functions.up.withLock { $0 = true }
        try await functions.waitFor(2)
        for _ in 0..<10_000 where delivery.waiting.events > 0 { try await Task.sleep(for: .milliseconds(1)) }
        functions.up.withLock { $0 = false }
        delivery.enqueue((4...8).map { StoreChecks.event("e\($0)") })
        #expect(delivery.waiting.events == 4)
        functions.up.withLock { $0 = true }
        try await functions.waitFor(6)
        #expect(functions.bodies == ["e1", "e2", "e4", "e5", "e6", "e7"])
    }

    @Test func eventsOverTheByteBudgetOrTooOldAreDropped() async throws {
        let functions = SwitchableFunctionsEmulator()
        let time = SteppedTime()
        var limits = AuthEventDelivery.Limits()
        limits.maxBytes = 11
        limits.maxAge = .seconds(60)
        let delivery = AuthEventDelivery(
            link: functions, limits: limits, timing: time.timing, logger: .init(label: "t"))
        delivery.enqueue(["old1", "old2", "old3"].map(StoreChecks.event))
        #expect(delivery.waiting == (2, 8))
        time.advance(.seconds(61))
        delivery.enqueue([StoreChecks.event("new")])
        functions.up.withLock { $0 = true }
        try await functions.waitFor(1)
        #expect(functions.bodies == ["new"])
        #expect(delivery.waiting == (0, 0))
    }
}
