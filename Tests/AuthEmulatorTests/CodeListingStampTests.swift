import Foundation
import Testing

@testable import AuthEmulator
@testable import AuthEmulatorSQLite

/// SQLite's stamps of the code log's listings (`CodeListingStamps`, `OtherStores`): a kept listing
/// is served without reading a row only while the stamp says nothing changed it, which holds while
/// the store is alone on its file and its own writes did not touch the listing.
@Suite("the code log's stamps on SQLite")
struct CodeListingStampTests {
    static let scope = Scope(projectId: "p")
    static let tenant = Scope(projectId: "p", tenantId: "t")

    static func stamps(_ store: SQLiteStore) async throws -> [CodeListingStamp?] {
        var stamps: [CodeListingStamp?] = []
        for (scope, listing) in [
            (scope, CodeListing.verificationCodes), (scope, .oobCodes), (tenant, .verificationCodes),
        ] {
            stamps.append(try await store.read { tx in try await tx.codeListingStamp(scope, listing) })
        }
        return stamps
    }

    static func oobCode(_ code: String) -> OobCode {
        OobCode(
            email: "a@example.com", requestType: .passwordReset, oobCode: code,
            oobLink: "http://localhost/link?oobCode=\(code)")
    }

    @Test("a store alone stamps each listing by its own last write of it, and only before its first read")
    func ownWrites() async throws {
        let store = try SQLiteStore()
        let start = try await Self.stamps(store)
        #expect(start.allSatisfy { $0 != nil })
        #expect(try await Self.stamps(store) == start)

        let sent = try await store.write { tx in try await tx.insertSms(StoreChecks.sms("+15550001", "s1")) }
        let afterSend = try await Self.stamps(store)
        #expect(afterSend[0] != start[0] && afterSend[0]?.epoch == start[0]?.epoch)
        #expect(afterSend[0]?.lastNotJoining == start[0]?.lastNotJoining)
        #expect(Array(afterSend[1...]) == Array(start[1...]))

        try await store.write { tx in try await tx.saveOobCode(Self.scope, Self.oobCode("c1")) }
        let afterOob = try await Self.stamps(store)
        #expect(afterOob[0] == afterSend[0] && afterOob[1] != afterSend[1] && afterOob[2] == afterSend[2])

        // A write to another tenant, a used code, a deleted code, and all of a scope's codes.
        try await store.write { tx in _ = try await tx.insertSms(StoreChecks.sms("+15550002", "s2", scope: Self.tenant))
        }
        let afterTenant = try await Self.stamps(store)
        #expect(Array(afterTenant[..<2]) == Array(afterOob[..<2]) && afterTenant[2] != afterOob[2])
        var used = sent
        used.status = .used
        let usedCode = used
        try await store.write { tx in try await tx.updateSms(usedCode) }
        let afterUse = try await Self.stamps(store)
        #expect(afterUse[0] != afterTenant[0] && Array(afterUse[1...]) == Array(afterTenant[1...]))
        #expect(afterUse[0]?.lastNotJoining == afterUse[0]?.change)
        try await store.write { tx in try await tx.deleteOobCode(Self.scope, code: "c1") }
        let afterDelete = try await Self.stamps(store)
        #expect(afterDelete[1] != afterUse[1])
        try await store.write { tx in try await tx.deleteAllSms(Self.scope) }
        try await store.write { tx in try await tx.deleteAllOobCodes(Self.scope) }
        let afterClear = try await Self.stamps(store)
        #expect(afterClear[0] != afterDelete[0] && afterClear[1] != afterDelete[1] && afterClear[2] == afterDelete[2])

        // A write that fails is rolled back, and still counts as a change (it cannot hide one).
        await #expect(throws: AuthError.self) {
            try await store.write { tx in
                _ = try await tx.insertSms(StoreChecks.sms("+15550003", "s3"))
                throw AuthError("ROLLED_BACK")
            }
        }
        #expect(try await Self.stamps(store)[0] != afterClear[0])

        // Asked after the transaction read something: none (the snapshot may predate the stamp).
        let late = try await store.read { tx in
            _ = try await tx.codeListingVersion(Self.scope, .verificationCodes)
            return try await tx.codeListingStamp(Self.scope, .verificationCodes)
        }
        #expect(late == nil)
    }

    @Test("on a file, a store has stamps only while no other store has the file open or opened it since")
    func otherStores() async throws {
        let directory = StoreConformanceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = StoreConformanceTests.temporaryPath(in: directory)
        let here = try SQLiteStore(path: path)
        let alone = try await Self.stamps(here)
        #expect(alone.allSatisfy { $0 != nil })
        #expect(FileManager.default.fileExists(atPath: path + "-lock"))

        // Another store opens the file: no stamp while it is open; once it closed, stamps of a new
        // epoch (the count of openings was read while it was open, so it is known).
        let there = try SQLiteStore(path: path)
        #expect(try await Self.stamps(here) == [nil, nil, nil])
        #expect(try await Self.stamps(there) == [nil, nil, nil])
        try await there.write { tx in _ = try await tx.insertSms(StoreChecks.sms("+15550001", "s1")) }
        #expect(try await Self.stamps(here) == [nil, nil, nil])
        try there.close()
        let again = try await Self.stamps(here)
        #expect(again.allSatisfy { $0 != nil && $0?.epoch != alone[0]?.epoch })
        #expect(try await Self.stamps(here) == again)

        // One that opens, writes and closes between two reads leaves its count of openings: the
        // next read has no stamp.
        let passing = try SQLiteStore(path: path)
        try await passing.write { tx in _ = try await tx.insertSms(StoreChecks.sms("+15550002", "s2")) }
        try passing.close()
        #expect(try await Self.stamps(here)[0] == nil)
        let rearmed = try await Self.stamps(here)
        #expect(rearmed[0] != nil && rearmed[0]?.epoch != again[0]?.epoch)
        try here.close()
    }

    /// The pending codes' phone numbers as `cache` lists them from `store` at `now`.
    static func listed(_ cache: CodeListingCache, _ store: SQLiteStore, now: Date) async throws -> [String] {
        let entries = try await store.read { tx in
            try await cache.entries(Self.scope, .verificationCodes, now: now, in: tx) {
                let pending = try await tx.pendingCodeEntries(Self.scope, now: now)
                return (pending.entries, pending.earliestExpiry)
            }
        }
        let listing = try JSONValue.parse(Data(JSONListing("verificationCodes", entries).bytes))
        return (listing["verificationCodes"]?.arrayValue ?? []).compactMap { $0["phoneNumber"]?.stringValue }
    }

    @Test("the kept listing is answered by its stamp, grown by it after a send, and read again after a use")
    func cacheAnswers() async throws {
        let store = try SQLiteStore()
        let cache = CodeListingCache()
        let now = Date(timeIntervalSince1970: 1_700_000_010)
        var answers = CodeListingCache.Answers()
        func send(_ phone: String, _ session: String) async throws -> SmsMessage {
            try await store.write { tx in try await tx.insertSms(StoreChecks.sms(phone, session)) }
        }
        let first = try await send("+15550001", "s1")
        #expect(try await Self.listed(cache, store, now: now) == ["+15550001"])
        answers.read += 1
        #expect(cache.answers == answers)
        #expect(try await Self.listed(cache, store, now: now) == ["+15550001"])
        answers.byStamp += 1
        #expect(cache.answers == answers)

        // Sends and an email code in between: grown by the new rows, no count.
        var phones = ["+15550001"]
        for index in 2...40 {
            phones.append("+155500\(String(format: "%02d", index))")
            _ = try await send(phones.last!, "s\(index)")
            if index.isMultiple(of: 5) {
                try await store.write { tx in try await tx.saveOobCode(Self.scope, Self.oobCode("c\(index)")) }
            }
            #expect(try await Self.listed(cache, store, now: now) == phones)
            answers.grownByStamp += 1
            #expect(cache.answers == answers, "after send \(index)")
        }
        #expect(try await Self.listed(cache, store, now: now) == phones)
        answers.byStamp += 1

        // A code used, then one more sent: read again.
        var used = first
        used.status = .used
        let usedCode = used
        try await store.write { tx in try await tx.updateSms(usedCode) }
        _ = try await send("+15550041", "s41")
        phones = Array(phones.dropFirst()) + ["+15550041"]
        #expect(try await Self.listed(cache, store, now: now) == phones)
        answers.read += 1
        #expect(cache.answers == answers)

        // Expired by the clock: read again (sent at 1,700,000,000, codes live 300 s here).
        #expect(try await Self.listed(cache, store, now: now.addingTimeInterval(300)) == [])
        answers.read += 1
        #expect(cache.answers == answers)
    }

    @Test("an email code saved again under its code replaces the row, in another scope too")
    func oobCodeReplaced() async throws {
        let store = try SQLiteStore()
        try await store.write { tx in try await tx.saveOobCode(Self.scope, Self.oobCode("same")) }
        let before = try await Self.stamps(store)
        try await store.write { tx in try await tx.saveOobCode(Self.tenant, Self.oobCode("same")) }
        let after = try await Self.stamps(store)
        #expect(after[1] != before[1] && after[1]?.lastNotJoining == after[1]?.change)
        let listed = try await store.read { tx in
            (try await tx.oobCodeEntries(Self.scope), try await tx.oobCodeEntries(Self.tenant).count)
        }
        #expect(listed.0 == [] && listed.1 == 1)
    }
}
