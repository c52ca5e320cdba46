import AuthEmulator
import Foundation
import Testing

/// The store's writer does only database work: an imported password hash is checked outside the
/// transaction, so other writes commit while a slow check runs (AuthStore.swift, "Bodies do only
/// database work").
@Suite("Slow hash checks")
struct SlowHashTests {
    /// openwall's bcrypt vector: password `U*U`.
    static let bcrypt = Data("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8).base64EncodedString()

    /// A check that says when it starts and then waits until the test lets it finish.
    final class HeldCheck: Sendable {
        let started: AsyncStream<Void>
        private let startedSignal: AsyncStream<Void>.Continuation
        private let release: AsyncStream<Void>
        private let releaseSignal: AsyncStream<Void>.Continuation

        init() {
            (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
        }

        var check: PasswordCheck {
            PasswordCheck { password, user in
                self.startedSignal.yield()
                for await _ in self.release { break }
                return PasswordHasher.verify(password, of: user)
            }
        }

        func finish() { releaseSignal.yield() }
    }

    static func importBcryptUser(_ client: Harness.Client) async throws {
        try await client.v1(
            "projects/example/accounts:batchCreate",
            [
                "hashAlgorithm": "BCRYPT",
                "users": [["localId": "imported", "email": "imported@example.com", "passwordHash": .string(bcrypt)]],
            ],
            admin: true
        ).ok()
    }

    @Test("a sign-up and another sign-in commit while an imported hash is being checked; then the sign-in answers")
    func writesGoOnDuringCheck() async throws {
        let held = HeldCheck()
        try await Harness().run(passwordCheck: held.check) { client in
            try await Self.importBcryptUser(client)
            try await client.signUp("other@example.com").ok()
            async let slow = client.v1(
                "accounts:signInWithPassword", ["email": "imported@example.com", "password": "U*U"])
            var started = held.started.makeAsyncIterator()
            await started.next()
            let signUp = try await client.signUp("during@example.com")
            #expect(signUp.status == 200 && signUp["localId"] != nil)
            let other = try await client.v1(
                "accounts:signInWithPassword", ["email": "other@example.com", "password": "secret123"])
            #expect(other.status == 200 && other.string("email") == "other@example.com")
            held.finish()
            let answer = try await slow
            #expect(answer.status == 200 && answer.string("localId") == "imported")
            // The imported hash was replaced by the emulator's own: the next sign-in checks in place.
            let again = try await client.v1(
                "accounts:signInWithPassword", ["email": "imported@example.com", "password": "U*U"])
            #expect(again.status == 200 && again.string("localId") == "imported")
        }
    }

    @Test("a wrong password against an imported hash is counted once, with the pooled check")
    func wrongPasswordCounted() async throws {
        try await Harness().run { client in
            try await client.call(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/example/config?updateMask=emulatorSettings",
                #"{"emulatorSettings":{"passwordMaxAttempts":2}}"#, admin: true
            ).ok()
            try await Self.importBcryptUser(client)
            let first = try await client.v1(
                "accounts:signInWithPassword", ["email": "imported@example.com", "password": "wrong"])
            #expect(first.status == 400 && first.errorMessage == "INVALID_PASSWORD")
            let second = try await client.v1(
                "accounts:signInWithPassword", ["email": "imported@example.com", "password": "wrong"])
            #expect(second.status == 400 && second.errorMessage == LockoutTests.locked)
        }
    }
}
