import AuthEmulator
import Foundation

/// The SMS outbox and the proofs of phone conflicts.
extension PostgresTransaction {
    private func smsMessages(_ sql: String, _ binds: [Bind]) async throws -> [SmsMessage] {
        try await session.values(Data.self, sql, binds).map { try SmsMessage(stored: JSONValue.parse($0)) }
    }

    /// Under its project's outbox lock (`outboxLock`).
    func insertSms(_ message: SmsMessage) async throws -> SmsMessage {
        guard
            let id = try await session.value(
                Int64.self,
                """
                \(Self.outboxLock(project: 1))
                INSERT INTO sms_messages (project_id, tenant_id, session_info, phone_number, purpose, status,
                    client_ip, sent_at, data)
                SELECT $1, $2, $3, $4, $5, $6, $7, $8, ''::bytea FROM outbox_lock RETURNING id
                """,
                [
                    .text(message.projectId), .text(message.tenantId ?? ""), .text(message.sessionInfo),
                    .text(message.phoneNumber), .text(message.purpose.rawValue), .text(message.status.rawValue),
                    .text(message.clientIP), .double(message.sentAt.timeIntervalSince1970),
                ])
        else { throw AuthError.storeUnavailable("PostgreSQL returned no SMS id") }
        var stored = message
        stored.id = id
        try await updateSms(stored)
        return stored
    }

    /// The record, and its listing entries kept ready for the code log (`JSONListing`).
    func updateSms(_ message: SmsMessage) async throws {
        try await session.execute(
            """
            UPDATE sms_messages SET status = $1, data = $2, listing = $3, code_listing = $4, expires_at = $5
            WHERE id = $6
            """,
            [
                .text(message.status.rawValue), .bytes(message.storedData), .bytes(message.listingEntry),
                .bytes(message.codeEntry), .double(message.expiresAt.timeIntervalSince1970), .int(message.id),
            ])
        changed(.sms)
    }

    func sms(sessionInfo: String) async throws -> SmsMessage? {
        try await smsMessages(
            "SELECT data FROM sms_messages WHERE session_info = $1", [.text(sessionInfo)]
        ).first
    }

    func listSms(_ scope: Scope, _ query: SmsQuery) async throws -> [SmsMessage] {
        let (conditions, binds) = smsFilter(scope, query)
        return try await smsMessages("SELECT data FROM sms_messages WHERE \(conditions)", binds)
    }

    /// The listing entries of `listSms`'s messages, joined by the server.
    func smsEntries(_ scope: Scope, _ query: SmsQuery) async throws -> [Data] {
        let (conditions, binds) = smsFilter(scope, query)
        return try await joinedEntries("listing", order: "id", from: "FROM sms_messages WHERE \(conditions)", binds) {
            data in try SmsMessage(stored: JSONValue.parse(data)).listingEntry
        }.entries
    }

    func pendingCodeEntries(_ scope: Scope, now: Date) async throws -> PendingCodeEntries {
        var assembly = PendingCodeEntries.Assembly(now: now)
        let (entries, earliest) = try await joinedEntries(
            "code_listing", order: "id",
            from: """
                FROM sms_messages WHERE project_id = $1 AND tenant_id = $2 AND status = 'PENDING'
                AND (expires_at IS NULL OR expires_at > $3)
                """,
            scoped(scope) + [.double(now.timeIntervalSince1970)], minimum: "expires_at"
        ) { data in try assembly.entry(ofRecord: data) }
        return assembly.result(entries, earliestListed: earliest)
    }

    /// None: daemons share the database, so none can vouch for a listing from its own writes.
    func codeListingStamp(_ scope: Scope, _ listing: CodeListing) async throws -> CodeListingStamp? { nil }

    /// None: ids are drawn before commit, so a code sent concurrently with another's use could
    /// leave the newest id and the count as they were. Listings are read from the rows.
    func codeListingVersion(_ scope: Scope, _ listing: CodeListing) async throws -> CodeListingVersion? { nil }

    func codeListingRows(_ scope: Scope, _ listing: CodeListing, after newest: Int64, now: Date) async throws
        -> ListedRows?
    { nil }

    /// The `column` of the rows that `source` (`FROM … WHERE …`, with `ORDER BY` and `LIMIT` if
    /// any) finds, joined by commas in `order` by the server: one row back however many entries.
    /// If a row has none (written by an older authemu), every row is read again, with the record
    /// (`data`) of those, from which `make` makes the entry or leaves the row out. With `minimum`,
    /// the least value of that (double precision) column over the rows comes too.
    func joinedEntries(
        _ column: String, order: String, from source: String, _ binds: [Bind], minimum: String? = nil,
        make: (Data) throws -> Data?
    ) async throws -> (entries: [Data], minimum: Double?) {
        let joined = """
            SELECT string_agg(entry, ','::bytea ORDER BY position), count(*) - count(entry), min(least)
            FROM (SELECT \(column) AS entry, \(order) AS position, \(minimum ?? "NULL::double precision") AS least
            \(source)) listed
            """
        guard let row = try await session.rows(joined, binds).first else { return ([], nil) }
        let (entries, missing, least) = try row.decode((Data?, Int64, Double?).self)
        if missing == 0 { return (entries.map { [$0] } ?? [], least) }
        return (
            try await self.entries(
                "SELECT \(column), CASE WHEN \(column) IS NULL THEN data END \(source)", binds, make: make),
            least
        )
    }

    /// The first column of each row; a row without one (NULL) is made from its record (the
    /// second column) by `make`, which may leave it out.
    func entries(_ sql: String, _ binds: [Bind], make: (Data) throws -> Data?) async throws -> [Data] {
        var entries: [Data] = []
        for row in try await session.rows(sql, binds) {
            let (entry, record) = try row.decode((Data?, Data?).self)
            if let entry {
                entries.append(entry)
            } else if let record, let made = try make(record) {
                entries.append(made)
            }
        }
        return entries
    }

    /// The `WHERE` clause (with `ORDER BY` and `LIMIT`) of a query over a scope's outbox.
    func smsFilter(_ scope: Scope, _ query: SmsQuery) -> (String, [Bind]) {
        var sql = "project_id = $1 AND tenant_id = $2"
        var binds = scoped(scope)
        func add(_ condition: String, _ bind: Bind) {
            binds.append(bind)
            sql += " AND \(condition) $\(binds.count)"
        }
        if let phone = query.phoneNumber { add("phone_number =", .text(phone)) }
        if let purpose = query.purpose { add("purpose =", .text(purpose.rawValue)) }
        if let after = query.afterId { add("id >", .int(after)) }
        if let statuses = query.statuses {
            let placeholders = statuses.sorted { $0.rawValue < $1.rawValue }.map { status -> String in
                binds.append(.text(status.rawValue))
                return "$\(binds.count)"
            }
            sql += " AND status IN (\(placeholders.joined(separator: ",")))"
        }
        sql += " ORDER BY id"
        if let limit = query.limit {
            binds.append(.int(limit))
            sql += " LIMIT $\(binds.count)"
        }
        return (sql, binds)
    }

    func deleteAllSms(_ scope: Scope) async throws {
        try await session.execute("DELETE FROM sms_messages WHERE project_id = $1 AND tenant_id = $2", scoped(scope))
    }

    func countSms(phoneNumber: String, since: Date) async throws -> Int {
        return Int(
            try await session.value(
                Int64.self, "SELECT COUNT(*) FROM sms_messages WHERE phone_number = $1 AND sent_at >= $2",
                [.text(phoneNumber), .double(since.timeIntervalSince1970)]) ?? 0)
    }

    func countSms(clientIP: String, since: Date) async throws -> Int {
        return Int(
            try await session.value(
                Int64.self, "SELECT COUNT(*) FROM sms_messages WHERE client_ip = $1 AND sent_at >= $2",
                [.text(clientIP), .double(since.timeIntervalSince1970)]) ?? 0)
    }

    func saveTemporaryProof(_ proof: TemporaryProof) async throws {
        try await save(.temporaryProofs, proof.proof, proof)
    }

    func temporaryProof(_ proof: String) async throws -> TemporaryProof? {
        try await record(TemporaryProof.self, .temporaryProofs, proof)
    }

    func deleteTemporaryProof(_ proof: String) async throws {
        try await delete(.temporaryProofs, proof)
    }
}
