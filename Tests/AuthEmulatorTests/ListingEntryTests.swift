import Foundation
import Testing

@testable import AuthEmulator
@testable import AuthEmulatorPostgres
@testable import AuthEmulatorSQLite

/// The code log's listings read entries kept ready as each message or code is written. A row
/// written before that (by an older authemu: the columns are NULL) is listed from its record, as
/// before, on both stores.
@Suite("Code log listing entries")
struct ListingEntryTests {
    static let scope = Scope(projectId: "p")

    /// Writes two messages (one expiring at 1_700_000_300, one at 1_700_000_400) and a code, then
    /// forgets their entries as a row of an older authemu has none; reads every listing.
    static func olderRows(
        _ store: any AuthStore, forget: @escaping @Sendable (any StoreTransaction) async throws -> Void
    )
        async throws
    {
        let messages = try await store.write { tx in
            [
                try await tx.insertSms(StoreChecks.sms("+15550001", "s1", sentAt: 1_700_000_000)),
                try await tx.insertSms(StoreChecks.sms("+15550002", "s2", sentAt: 1_700_000_100)),
            ]
        }
        let code = OobCode(email: "a@example.com", requestType: .verifyEmail, oobCode: "c1", oobLink: "http://l/c1")
        try await store.write { tx in try await tx.saveOobCode(scope, code) }
        try await store.write(forget)
        let read = try await store.read { tx in
            (
                try await tx.smsEntries(scope, SmsQuery()),
                try await tx.smsEntries(scope, SmsQuery(phoneNumber: "+15550002")),
                try await tx.pendingCodeEntries(scope, now: Date(timeIntervalSince1970: 1_700_000_350)).entries,
                try await tx.oobCodeEntries(scope)
            )
        }
        func body(_ entries: [Data]) -> [UInt8] { JSONListing.body("l", entries) }
        #expect(body(read.0) == body(messages.map(\.listingEntry)))
        #expect(body(read.1) == body([messages[1].listingEntry]))
        #expect(body(read.2) == body([messages[1].codeEntry]))
        #expect(body(read.3) == body([code.listingEntry]))
    }

    static let forgetting = [
        "UPDATE sms_messages SET listing = NULL, code_listing = NULL, expires_at = NULL",
        "UPDATE oob_codes SET listing = NULL",
    ]

    @Test("SQLite: rows without entries are listed from their records")
    func sqlite() async throws {
        try await Self.olderRows(try SQLiteStore()) { tx in
            for sql in Self.forgetting { try (tx as! SQLiteTransaction).execute(sql: sql) }
        }
    }

    @Test(
        "PostgreSQL: rows without entries are listed from their records",
        .enabled(if: StoreConformanceTests.postgresURL != nil, "AUTHEMU_TEST_POSTGRES_URL is not set"))
    func postgres() async throws {
        let store = try await StoreConformanceTests.postgres(schema: "older_\(UInt32.random(in: 0...UInt32.max))")
        try await Self.olderRows(store) { tx in
            for sql in Self.forgetting { try await (tx as! PostgresTransaction).session.execute(sql) }
        }
        await store.close()
    }

    @Test("a listing's bytes are the JSON of its entries under its key")
    func body() throws {
        let entries = [Data(#"{"a":1}"#.utf8), Data(#"{"b":"x"}"#.utf8)]
        #expect(
            String(decoding: JSONListing.body("smsMessages", entries), as: UTF8.self)
                == #"{"smsMessages":[{"a":1},{"b":"x"}]}"#)
        #expect(String(decoding: JSONListing.body("oobCodes", []), as: UTF8.self) == #"{"oobCodes":[]}"#)
        let value = JSONValue.object(["verificationCodes": .array([.object(["a": 1]), .object(["b": "x"])])])
        #expect(JSONListing.body("verificationCodes", entries) == value.serialized())
        for listing in [
            JSONListing("verificationCodes", entries), JSONListing("x", []), JSONListing("y", [entries[0]]),
        ] {
            #expect(listing.count == listing.bytes.count)
        }
    }
}
