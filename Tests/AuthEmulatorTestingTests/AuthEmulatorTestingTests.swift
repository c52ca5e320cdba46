import Foundation
import Testing

@testable import AuthEmulatorTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The helper library against the built daemon (`AUTHEMU_BIN`, as scripts/test sets it to the release
/// build's, or `.build/debug/authemu`), started per test on a free port with an in-memory store.
final class Daemon: @unchecked Sendable {
    let process = Process()
    let port: Int

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        port = Int.random(in: 20_000..<60_000)
        process.executableURL =
            ProcessInfo.processInfo.environment["AUTHEMU_BIN"].map { URL(fileURLWithPath: $0) }
            ?? root.appendingPathComponent(".build/debug/authemu")
        process.arguments = ["serve", "--ephemeral", "--port", String(port), "--project", "helper-project"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    var emulator: AuthEmulator { AuthEmulator(host: "127.0.0.1:\(port)", projectId: "helper-project") }

    /// Waits for /readyz.
    func ready() async throws -> AuthEmulator {
        for _ in 0..<200 {
            if let (_, response) = try? await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(port)/readyz")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return emulator
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw AuthEmulatorError(status: 0, code: "NOT_READY", message: "the daemon did not start")
    }

    deinit { process.terminate() }
}

/// What a client SDK sends, for the flows the helpers read from.
func client(_ emulator: AuthEmulator, _ operation: String, _ body: [String: Any], version: String = "v1") async throws
    -> [String: Any]
{
    var request = URLRequest(
        url: URL(string: "http://\(emulator.host)/identitytoolkit.googleapis.com/\(version)/\(operation)?key=k")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONSerialization.data(withJSONObject: body)
    let (data, _) = try await URLSession.shared.data(for: request)
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
}

@Suite("AuthEmulatorTesting against the daemon")
struct AuthEmulatorTestingTests {
    @Test("RFC 6238 vectors (SHA-1, 8 digits cut to 6), RFC 2202 HMAC-SHA1, and base32")
    func totpVectors() throws {
        // RFC 6238 appendix B, SHA-1 secret "12345678901234567890": the last six digits.
        let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        for (time, code) in [
            (59.0, "287082"), (1_111_111_109, "081804"), (1_234_567_890, "005924"), (20_000_000_000, "353130"),
        ] {
            #expect(try AuthEmulator.totpCode(secret: secret, at: Date(timeIntervalSince1970: time)) == code)
        }
        let digest = TOTP.hmacSHA1(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(digest.map { String(format: "%02x", $0) }.joined() == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(
            TOTP.sha1(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
                == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(throws: AuthEmulatorError.self) { try AuthEmulator.totpCode(secret: "not base32!") }
    }

    @Test("users, SMS codes, the outbox, errors with the daemon's CODE, and reset")
    func usersAndSms() async throws {
        let daemon = try Daemon()
        let emulator = try await daemon.ready()
        let uid = try await emulator.createUser(email: "helper@example.com", password: "secret123", emailVerified: true)
        #expect(uid.count == 28)
        do {
            try await emulator.createUser(email: "helper@example.com")
            Issue.record("a second account with the address was created")
        } catch let error as AuthEmulatorError {
            #expect(error == AuthEmulatorError(status: 400, code: "EMAIL_EXISTS", message: ""))
        }
        try await emulator.setTestPhoneNumbers(["+15555550111": "111222"])
        _ = try await client(emulator, "accounts:sendVerificationCode", ["phoneNumber": "+15555550111"])
        #expect(try await emulator.smsCode(to: "+15555550111", timeout: 1) == "111222")
        async let waited = emulator.smsCode(to: "+15555550112", timeout: 10)
        try await Task.sleep(nanoseconds: 200_000_000)
        _ = try await client(emulator, "accounts:sendVerificationCode", ["phoneNumber": "+15555550112"])
        let code = try await waited
        #expect(code.count == 6)
        #expect(try await emulator.smsMessages(phoneNumber: "+15555550112").map(\.code) == [code])
        let latest = try await emulator.latestSms(to: "+15555550112", purpose: "SIGN_IN", timeout: 1)
        #expect(latest.code == code && latest.status == "PENDING" && latest.phoneNumber == "+15555550112")
        try await emulator.clearOutbox()
        #expect(try await emulator.smsMessages().isEmpty)
        await #expect(throws: AuthEmulatorError.self) { try await emulator.smsCode(timeout: 0.2) }
        try await emulator.reset()
        let gone = try await client(
            emulator, "accounts:signInWithPassword", ["email": "helper@example.com", "password": "secret123"])
        #expect((gone["error"] as? [String: Any])?["message"] as? String == "EMAIL_NOT_FOUND")
    }

    @Test("a firebase-tools export's accounts.json and config.json loaded into the running daemon")
    func importState() async throws {
        let daemon = try Daemon()
        let emulator = try await daemon.ready()
        // As firebase-tools writes them: a fakeHash password, and a user that is replaced.
        let accounts = Data(
            #"""
            {"kind":"identitytoolkit#DownloadAccountResponse","users":[
            {"localId":"imp-1","email":"imp@example.com","emailVerified":true,"createdAt":"1700000000000",
             "passwordHash":"fakeHash:salt=fakeSaltAbc:password=secret123","salt":"fakeSaltAbc",
             "providerUserInfo":[{"providerId":"password","email":"imp@example.com","federatedId":"imp@example.com",
             "rawId":"imp@example.com"}]},
            {"localId":"imp-2","phoneNumber":"+15555550177","createdAt":"1700000000000"}]}
            """#.utf8)
        let config = Data(#"{"signIn":{"allowDuplicateEmails":true}}"#.utf8)
        #expect(try await emulator.importState(accountsJSON: accounts, configJSON: config) == 2)
        #expect(try await emulator.importState(accountsJSON: accounts) == 2)
        #expect(try await emulator.user(uid: "imp-2").phoneNumber == "+15555550177")
        let signedIn = try await client(
            emulator, "accounts:signInWithPassword", ["email": "imp@example.com", "password": "secret123"])
        #expect(signedIn["localId"] as? String == "imp-1")
        do {
            try await emulator.importState(
                accountsJSON: Data(#"{"users":[{"localId":"ok-1"},{"email":"not-an-email"}]}"#.utf8))
            Issue.record("a refused account went unreported")
        } catch let error as AuthEmulatorError {
            #expect(error.code == "IMPORT_REFUSED")
            #expect(error.message.hasPrefix("1 account(s) refused, first #1: "))
        }
        #expect(try await emulator.user(uid: "ok-1").localId == "ok-1")
    }

    @Test("users listed in pages, looked up by uid, email and phone, deleted; email links and pushes listed")
    func userRecords() async throws {
        let daemon = try Daemon()
        let emulator = try await daemon.ready()
        let first = try await emulator.createUser(
            email: "a@example.com", password: "secret123", displayName: "A", uid: "a-uid")
        let second = try await emulator.createUser(phoneNumber: "+15555550120", uid: "second-uid")
        let page = try await emulator.listUsers(maxResults: 1)
        #expect(page.users.map(\.localId) == [first])
        #expect(page.nextPageToken != nil)
        let rest = try await emulator.listUsers(maxResults: 10, pageToken: page.nextPageToken)
        #expect(rest.users.map(\.localId) == [second])
        #expect(rest.nextPageToken == nil)
        let byEmail = try await emulator.user(email: "A@example.com")
        #expect(byEmail.localId == first)
        #expect(byEmail.displayName == "A")
        #expect(byEmail.providerUserInfo?.map(\.providerId) == ["password"])
        #expect(try await emulator.user(phoneNumber: "+15555550120").localId == "second-uid")
        #expect(try await emulator.user(uid: first).email == "a@example.com")
        try await emulator.deleteUser(uid: first)
        do {
            _ = try await emulator.user(uid: first)
            Issue.record("a deleted user was found")
        } catch let error as AuthEmulatorError {
            #expect(error.code == "USER_NOT_FOUND")
        }
        do {
            try await emulator.deleteUser(uid: first)
            Issue.record("a missing user was deleted")
        } catch let error as AuthEmulatorError {
            #expect(error.status == 400)
            #expect(error.code == "USER_NOT_FOUND")
        }
        #expect(try await emulator.emailActionLinks().isEmpty)
        try await emulator.createUser(email: "b@example.com", password: "secret123")
        _ = try await client(
            emulator, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "b@example.com"])
        let links = try await emulator.emailActionLinks(for: "B@example.com")
        #expect(links.map(\.requestType) == ["PASSWORD_RESET"])
        #expect(links.first?.oobLink.contains("oobCode=\(links.first?.oobCode ?? "-")") == true)
        #expect(try await emulator.emailActionLinks(for: "other@example.com").isEmpty)
        #expect(try await emulator.apnsPushes().isEmpty)
        _ = try await client(emulator, "accounts:verifyIosClient", ["appToken": "device-1", "isSandbox": true])
        #expect(try await emulator.apnsPushes().map(\.deviceToken) == ["device-1"])
    }

    @Test("MFA settings, TOTP codes from the daemon equal the local ones, email links, the clock")
    func totpLinksAndClock() async throws {
        let daemon = try Daemon()
        let emulator = try await daemon.ready()
        try await emulator.setMFA(sms: true, totp: true, adjacentIntervals: 1)
        try await emulator.createUser(email: "t@example.com", password: "secret123", emailVerified: true)
        let signedIn = try await client(
            emulator, "accounts:signInWithPassword",
            ["email": "t@example.com", "password": "secret123", "returnSecureToken": true])
        let idToken = signedIn["idToken"] as? String ?? ""
        let started = try await client(
            emulator, "accounts/mfaEnrollment:start", ["idToken": idToken, "totpEnrollmentInfo": [:]], version: "v2")
        let info = started["totpSessionInfo"] as? [String: Any] ?? [:]
        let secret = info["sharedSecretKey"] as? String ?? ""
        let finalized = try await client(
            emulator, "accounts/mfaEnrollment:finalize",
            [
                "idToken": idToken,
                "totpVerificationInfo": [
                    "sessionInfo": info["sessionInfo"] ?? "", "verificationCode": try emulator.totpCode(secret: secret),
                ],
            ],
            version: "v2")
        #expect(finalized["idToken"] != nil)
        let uid = signedIn["localId"] as? String ?? ""
        let now = try await emulator.clockNow()
        let fromDaemon = try await emulator.totpCode(localId: uid)
        #expect(
            [
                try emulator.totpCode(secret: secret, at: now),
                try emulator.totpCode(secret: secret, at: now.addingTimeInterval(-30)),
            ].contains(fromDaemon))
        let moved = try await emulator.advanceClock(by: 3600)
        #expect(abs(moved.timeIntervalSince(now) - 3600) < 5)
        // The daemon's code is read a moment before its clock: either may sit across a 30 s step.
        let movedCode = try await emulator.totpCode(localId: uid)
        let movedNow = try await emulator.clockNow()
        #expect(
            [
                try emulator.totpCode(secret: secret, at: movedNow),
                try emulator.totpCode(secret: secret, at: movedNow.addingTimeInterval(-30)),
            ].contains(movedCode))
        let target = Date(timeIntervalSince1970: 1_893_456_000)
        // The daemon answers its time a moment after it set it: within a second of the target.
        #expect(abs(try await emulator.setClock(to: target).timeIntervalSince(target)) < 1)
        try await emulator.resetClock()
        #expect(abs(try await emulator.clockNow().timeIntervalSinceNow) < 5)
        _ = try await client(
            emulator, "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "t@example.com"])
        let link = try await emulator.emailActionLink(for: "T@example.com", mode: "resetPassword", timeout: 2)
        #expect(link.absoluteString.contains("/emulator/action?mode=resetPassword&"))
        await #expect(throws: AuthEmulatorError.self) {
            _ = try await emulator.emailActionLink(for: "t@example.com", mode: "signIn", timeout: 0.3)
        }
    }

    @Test("app verification: enforce, a minted credential, and an APNs push")
    func appVerification() async throws {
        let daemon = try Daemon()
        let emulator = try await daemon.ready()
        try await emulator.setAppVerification(.enforce)
        let refused = try await client(emulator, "accounts:sendVerificationCode", ["phoneNumber": "+15555550113"])
        #expect(refused["error"] != nil)
        let token = try await emulator.mintAppCredential(.recaptchaV2)
        let sent = try await client(
            emulator, "accounts:sendVerificationCode", ["phoneNumber": "+15555550113", "recaptchaToken": token])
        #expect(sent["sessionInfo"] != nil)
        let receipt = try await client(
            emulator, "accounts:verifyIosClient", ["appToken": "device-token", "isSandbox": true])
        #expect(receipt["receipt"] != nil)
        let push = try await emulator.apnsPush(timeout: 2)
        #expect(push.deviceToken == "device-token")
        #expect(push.simctlJSON.contains("Simulator Target Bundle"))
        try await emulator.setAppVerification(.off)
    }
}
