import AuthEmulator
import AuthEmulatorSQLite
import Foundation
import Synchronization
import Testing

/// `verificationCodes` and `oobCodes` are kept in memory between reads (`CodeListingCache`). A
/// kept listing must follow every change: codes sent, used, expired by the clock, deleted, and
/// the writes of another daemon on the same database file.
@Suite("the code log kept in memory")
struct CodeListingCacheTests {
    static let codes = "/emulator/v1/projects/example/verificationCodes"
    static let oobCodes = "/emulator/v1/projects/example/oobCodes"
    static let v1 = "/identitytoolkit.googleapis.com/v1/"

    /// The listing's `(phoneNumber, sessionInfo)` pairs, in order, and its codes.
    static func listed(_ client: Harness.Client) async throws -> (pairs: [String], codes: [String]) {
        let reply = try await client.call(.get, codes, key: false)
        #expect(reply.status == 200)
        let entries = reply["verificationCodes"]?.arrayValue ?? []
        for entry in entries {
            #expect(entry.objectValue.map { Set($0.keys) } == ["code", "phoneNumber", "sessionInfo"])
        }
        return (
            entries.map { "\($0["phoneNumber"]?.stringValue ?? "?") \($0["sessionInfo"]?.stringValue ?? "?")" },
            entries.map { $0["code"]?.stringValue ?? "?" }
        )
    }

    static func send(_ client: Harness.Client, _ phone: String) async throws -> String {
        try await client.call(.post, v1 + "accounts:sendVerificationCode", #"{"phoneNumber":"\#(phone)"}"#).ok()
            .string("sessionInfo")
    }

    static func oobEmails(_ client: Harness.Client) async throws -> [String] {
        let reply = try await client.call(.get, oobCodes, key: false)
        #expect(reply.status == 200)
        return (reply["oobCodes"]?.arrayValue ?? []).map { $0["email"]?.stringValue ?? "?" }
    }

    static func sendPasswordReset(_ client: Harness.Client, _ email: String) async throws {
        try await client.call(.post, v1 + "accounts:signUp", #"{"email":"\#(email)","password":"secret123"}"#).ok()
        try await client.call(
            .post, v1 + "accounts:sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"\#(email)"}"#
        ).ok()
    }

    @Test("a kept listing follows codes sent, used, expired and deleted, here and by another daemon on the file")
    func followsEveryChange() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authemu-listing-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.sqlite").path
        let here = try Harness(store: SQLiteStore(path: path))
        let there = try Harness(store: SQLiteStore(path: path), seed: 7)
        try await here.run { a in
            try await there.run { b in
                #expect(try await Self.listed(a).pairs == [])
                let first = try await Self.send(a, "+15550100")
                let once = try await Self.listed(a)
                #expect(once.pairs == ["+15550100 \(first)"])
                #expect(try await Self.listed(a) == once)
                // Sent by the other daemon: listed here at once.
                let second = try await Self.send(b, "+15550101")
                #expect(try await Self.listed(a).pairs == ["+15550100 \(first)", "+15550101 \(second)"])
                // Used here: gone.
                try await a.call(
                    .post, Self.v1 + "accounts:signInWithPhoneNumber",
                    #"{"sessionInfo":"\#(first)","code":"\#(once.codes[0])"}"#
                ).ok()
                #expect(try await Self.listed(a).pairs == ["+15550101 \(second)"])
                // Expired by this daemon's clock (codes live 600 s; the second was sent at its start): gone,
                // though nothing was written.
                here.clock.advance(by: 100)
                let third = try await Self.send(a, "+15550102")
                here.clock.advance(by: 499)
                #expect(try await Self.listed(a).pairs == ["+15550101 \(second)", "+15550102 \(third)"])
                here.clock.advance(by: 1)
                #expect(try await Self.listed(a).pairs == ["+15550102 \(third)"])
                // Deleted by the other daemon.
                #expect(try await b.call(.delete, Self.codes, key: false).status == 200)
                #expect(try await Self.listed(a).pairs == [])

                // One used and two sent between two reads: the listing is read again, not grown by the
                // new codes (the count and the new rows' disagree by the one gone). (The other daemon's clock
                // is brought to this one's, so that its codes are not expired here when sent.)
                there.clock.advance(by: 600)
                let fourth = try await Self.send(a, "+15550103")
                let fifth = try await Self.send(a, "+15550104")
                let both = try await Self.listed(a)
                #expect(both.pairs == ["+15550103 \(fourth)", "+15550104 \(fifth)"])
                try await a.call(
                    .post, Self.v1 + "accounts:signInWithPhoneNumber",
                    #"{"sessionInfo":"\#(fourth)","code":"\#(both.codes[0])"}"#
                ).ok()
                let sixth = try await Self.send(b, "+15550105")
                let seventh = try await Self.send(a, "+15550106")
                #expect(
                    try await Self.listed(a).pairs == [
                        "+15550104 \(fifth)", "+15550105 \(sixth)", "+15550106 \(seventh)",
                    ])
                // Read after each of 40 sends, from either daemon: each read grows the kept listing
                // by the new code (into one run again past 32 of them), in order.
                var expected = try await Self.listed(a).pairs
                for index in 0..<40 {
                    let phone = "+1555020\(String(format: "%04d", index))"
                    expected.append("\(phone) \(try await Self.send(index.isMultiple(of: 3) ? b : a, phone))")
                    #expect(try await Self.listed(a).pairs == expected, "after send \(index)")
                }
                #expect(try await b.call(.delete, Self.codes, key: false).status == 200)

                // The email codes: sent here, listed; more sent there, listed; deleted there, gone.
                try await Self.sendPasswordReset(a, "one@example.com")
                #expect(try await Self.oobEmails(a) == ["one@example.com"])
                #expect(try await Self.oobEmails(a) == ["one@example.com"])
                try await Self.sendPasswordReset(b, "two@example.com")
                #expect(try await Self.oobEmails(a) == ["one@example.com", "two@example.com"])
                // One used there and two sent here between two reads: read again, not grown.
                let used = try await b.call(.get, Self.oobCodes, key: false)
                let firstCode = try #require(used["oobCodes"]?.arrayValue?.first?["oobCode"]?.stringValue)
                try await b.call(
                    .post, Self.v1 + "accounts:resetPassword", #"{"oobCode":"\#(firstCode)","newPassword":"secret456"}"#
                ).ok()
                try await Self.sendPasswordReset(a, "three@example.com")
                try await Self.sendPasswordReset(a, "four@example.com")
                #expect(try await Self.oobEmails(a) == ["two@example.com", "three@example.com", "four@example.com"])
                #expect(try await b.call(.delete, Self.oobCodes, key: false).status == 200)
                #expect(try await Self.oobEmails(a) == [])
            }
        }
    }

    @Test("a kept listing follows a store that opened the file, wrote and closed between two reads")
    func followsPassingStore() async throws {
        let directory = StoreConformanceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = StoreConformanceTests.temporaryPath(in: directory)
        let store = try SQLiteStore(path: path)
        defer { try? store.close() }
        let here = try Harness(store: store)
        try await here.run { a in
            let first = try await Self.send(a, "+15550100")
            let kept = try await Self.listed(a)
            #expect(kept.pairs == ["+15550100 \(first)"])
            #expect(try await Self.listed(a) == kept)
            try await Self.sendPasswordReset(a, "one@example.com")
            #expect(try await Self.oobEmails(a) == ["one@example.com"])

            // Opened, written and closed between two reads: a code sent, and the email codes deleted.
            let passing = try SQLiteStore(path: path)
            let sent = Mutex("")
            try await Harness(store: passing, seed: 7).run { b in
                #expect(try await b.call(.delete, Self.oobCodes, key: false).status == 200)
                let session = try await Self.send(b, "+15550101")
                sent.withLock { $0 = session }
            }
            try passing.close()
            let second = sent.withLock { $0 }
            #expect(try await Self.listed(a).pairs == ["+15550100 \(first)", "+15550101 \(second)"])
            #expect(try await Self.oobEmails(a) == [])

            // Alone again: its own writes are followed as before.
            let third = try await Self.send(a, "+15550102")
            let expected = ["+15550100 \(first)", "+15550101 \(second)", "+15550102 \(third)"]
            #expect(try await Self.listed(a).pairs == expected)
            #expect(try await Self.listed(a).pairs == expected)
            #expect(try await a.call(.delete, Self.codes, key: false).status == 200)
            #expect(try await Self.listed(a).pairs == [])
        }
    }
}
