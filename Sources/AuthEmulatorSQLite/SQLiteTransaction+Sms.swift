import AuthEmulator
import Foundation
import GRDB

extension SQLiteTransaction {
    /// The messages a query on `id, data` finds, decoded through the record cache (each step of a
    /// phone sign-in reads the message the step before wrote).
    private func smsMessages(_ sql: String, _ arguments: StatementArguments) throws -> [SmsMessage] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var messages: [SmsMessage] = []
        while let row = try rows.next() {
            let id: Int64 = row[0]
            messages.append(
                try row.withUnsafeData(atIndex: 1) { data in
                    guard let data else {
                        throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "SMS without data")
                    }
                    return try smsCache.record(key: String(id), data: data) {
                        try SmsMessage(stored: JSONValue.parse($0))
                    }
                })
        }
        return messages
    }

    func insertSms(_ message: SmsMessage) throws -> SmsMessage {
        try execute(
            sql: """
                INSERT INTO sms_messages (project_id, tenant_id, session_info, phone_number, purpose, status, client_ip, sent_at, data)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, x'')
                """,
            arguments: [
                message.projectId, message.tenantId ?? "", message.sessionInfo, message.phoneNumber,
                message.purpose.rawValue, message.status.rawValue, message.clientIP,
                message.sentAt.timeIntervalSince1970,
            ])
        var stored = message
        stored.id = db.lastInsertedRowID
        try writeSms(stored)
        // AUTOINCREMENT: the new row has a higher id than any before, so it joins the listing.
        listingStamps.touch(message.scope, .verificationCodes, joining: true)
        return stored
    }

    func updateSms(_ message: SmsMessage) throws {
        try writeSms(message)
        listingStamps.touch(message.scope, .verificationCodes, joining: false)
    }

    /// The record, and its listing entries kept ready for the code log (`JSONListing`).
    private func writeSms(_ message: SmsMessage) throws {
        let data = message.storedData
        try execute(
            sql: """
                UPDATE sms_messages SET status = ?, data = ?, listing = ?, code_listing = ?, expires_at = ?
                WHERE id = ?
                """,
            arguments: [
                message.status.rawValue, data, message.listingEntry, message.codeEntry,
                message.expiresAt.timeIntervalSince1970, message.id,
            ])
        // These bytes decode to exactly `message` (a test checks): a later read of them is a hit.
        smsCache.store(key: String(message.id), data: data, record: message)
    }

    func sms(sessionInfo: String) throws -> SmsMessage? {
        try smsMessages("SELECT id, data FROM sms_messages WHERE session_info = ?", [sessionInfo]).first
    }

    func listSms(_ scope: Scope, _ query: SmsQuery) throws -> [SmsMessage] {
        let (conditions, arguments) = Self.smsFilter(scope, query)
        return try smsMessages("SELECT id, data FROM sms_messages WHERE \(conditions)", arguments)
    }

    /// The listing entries of `listSms`'s messages, joined by SQLite: the ids the filter finds
    /// (which it may limit), then those rows in id order.
    func smsEntries(_ scope: Scope, _ query: SmsQuery) throws -> [Data] {
        let (conditions, arguments) = Self.smsFilter(scope, query)
        return try joinedEntries(
            "listing", from: "FROM sms_messages WHERE id IN (SELECT id FROM sms_messages WHERE \(conditions))",
            order: "id", arguments
        ) { data in try SmsMessage(stored: JSONValue.parse(data)).listingEntry }.entries
    }

    func pendingCodeEntries(_ scope: Scope, now: Date) throws -> PendingCodeEntries {
        let listed = try pendingCodeRows(scope, now: now, after: 0)
        return PendingCodeEntries(listed.entries, earliestExpiry: listed.earliestExpiry)
    }

    /// The pending codes with an id above `newest`, from the partial covering index
    /// `sms_messages_pending_codes` alone, in its (id) order.
    func pendingCodeRows(_ scope: Scope, now: Date, after newest: Int64) throws -> ListedRows {
        var assembly = PendingCodeEntries.Assembly(now: now)
        let (entries, earliest, rows, newest) = try joinedEntries(
            "code_listing",
            from: """
                FROM sms_messages INDEXED BY sms_messages_pending_codes
                WHERE project_id = ? AND tenant_id = ? AND id > ? AND status = 'PENDING'
                AND (expires_at IS NULL OR expires_at > ?)
                """, order: "id", [scope.projectId, scope.tenantId ?? "", newest, now.timeIntervalSince1970],
            minimum: "expires_at"
        ) { data in try assembly.entry(ofRecord: data) }
        let listed = assembly.result(entries, earliestListed: earliest)
        return ListedRows(listed.entries, rows: rows, earliestExpiry: listed.earliestExpiry, newest: newest)
    }

    func codeListingRows(_ scope: Scope, _ listing: CodeListing, after newest: Int64, now: Date) throws -> ListedRows? {
        switch listing {
        case .verificationCodes: try pendingCodeRows(scope, now: now, after: newest)
        case .oobCodes: try oobCodeRows(scope, after: newest)
        }
    }

    /// The `column` of the rows that `source` (`FROM … WHERE …`) finds, joined by commas in one
    /// value by SQLite: one row back however many entries, and only what is read from the index.
    /// The rows are visited, so joined, in `order`: that of the index `source` names (`INDEXED
    /// BY`), or of the rowids an `id IN (…)` lists. An aggregate over an ordered subquery cost 2.5
    /// times as much as this flat one. If a row has no entry (written by an older authemu), the rows are
    /// read again in `order`, with their records (`data`), from which `make` makes the entry or
    /// leaves the row out. With `minimum`, the least value of that column over the rows comes too;
    /// `rows` is how many rows `source` found, and `newest` their highest `order` (an id).
    func joinedEntries(
        _ column: String, from source: String, order: String, _ arguments: StatementArguments,
        minimum: String? = nil, make: (Data) throws -> Data?
    ) throws -> (entries: [Data], minimum: Double?, rows: Int64, newest: Int64?) {
        let sql =
            "SELECT group_concat(\(column), ','), count(*), count(\(column)), min(\(minimum ?? "NULL")), max(\(order)) "
            + source
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) else {
            return ([], nil, 0, nil)
        }
        let (rows, least, newest) = (row[1] as Int64, row[3] as Double?, row[4] as Int64?)
        if rows == row[2] as Int64 { return ((row[0] as Data?).map { [$0] } ?? [], least, rows, newest) }
        let made = try entries("SELECT \(column), data \(source) ORDER BY \(order)", arguments, make: make)
        return (made, least, rows, newest)
    }

    func codeListingStamp(_ scope: Scope, _ listing: CodeListing) throws -> CodeListingStamp? {
        try listingStamps.stamp(scope, listing, in: db)
    }

    /// The newest listed row and how many are listed, from the listing's covering index. Valid as
    /// a version because SQLite commits one writer at a time: a row that joins a listing has an id
    /// above every id a reader saw before (AUTOINCREMENT: never reused), and one that leaves it
    /// lowers the count. Two subqueries: SQLite finds each `max` at the end of the index range,
    /// and counting alone costs half of counting beside a `max`.
    func codeListingVersion(_ scope: Scope, _ listing: CodeListing) throws -> CodeListingVersion? {
        let (id, source) =
            switch listing {
            case .verificationCodes:
                (
                    "id",
                    """
                    FROM sms_messages INDEXED BY sms_messages_pending_codes
                    WHERE project_id = ?1 AND tenant_id = ?2 AND status = 'PENDING'
                    """
                )
            case .oobCodes:
                ("seq", "FROM oob_codes INDEXED BY oob_codes_listing WHERE project_id = ?1 AND tenant_id = ?2")
            }
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT (SELECT max(\(id)) \(source)), (SELECT count(*) \(source))"),
            arguments: [scope.projectId, scope.tenantId ?? ""])
        return CodeListingVersion(newest: row?[0] ?? 0, count: row?[1] ?? 0)
    }

    /// The first column of each row; a row without one (NULL) is made from its record (the
    /// second column) by `make`, which may leave it out.
    func entries(_ sql: String, _ arguments: StatementArguments, make: (Data) throws -> Data?) throws -> [Data] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var entries: [Data] = []
        while let row = try rows.next() {
            if let entry = row[0] as Data? {
                entries.append(entry)
            } else if let made = try make(row[1]) {
                entries.append(made)
            }
        }
        return entries
    }

    /// The `WHERE` clause (with `ORDER BY` and `LIMIT`) of a query over a scope's outbox.
    static func smsFilter(_ scope: Scope, _ query: SmsQuery) -> (String, StatementArguments) {
        var sql = "project_id = ? AND tenant_id = ?"
        var arguments: StatementArguments = [scope.projectId, scope.tenantId ?? ""]
        if let phone = query.phoneNumber {
            sql += " AND phone_number = ?"
            arguments += [phone]
        }
        if let purpose = query.purpose {
            sql += " AND purpose = ?"
            arguments += [purpose.rawValue]
        }
        if let after = query.afterId {
            sql += " AND id > ?"
            arguments += [after]
        }
        if let statuses = query.statuses {
            sql += " AND status IN (\(statuses.map { _ in "?" }.joined(separator: ",")))"
            for status in statuses.sorted(by: { $0.rawValue < $1.rawValue }) { arguments += [status.rawValue] }
        }
        sql += " ORDER BY id"
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return (sql, arguments)
    }

    func deleteAllSms(_ scope: Scope) throws {
        try execute(
            sql: "DELETE FROM sms_messages WHERE project_id = ? AND tenant_id = ?",
            arguments: [scope.projectId, scope.tenantId ?? ""])
        listingStamps.touch(scope, .verificationCodes, joining: false)
    }

    func countSms(phoneNumber: String, since: Date) throws -> Int {
        try Int.fetchOne(
            cached: db, sql: "SELECT COUNT(*) FROM sms_messages WHERE phone_number = ? AND sent_at >= ?",
            arguments: [phoneNumber, since.timeIntervalSince1970]) ?? 0
    }

    func countSms(clientIP: String, since: Date) throws -> Int {
        try Int.fetchOne(
            cached: db, sql: "SELECT COUNT(*) FROM sms_messages WHERE client_ip = ? AND sent_at >= ?",
            arguments: [clientIP, since.timeIntervalSince1970]) ?? 0
    }

    func saveTemporaryProof(_ proof: TemporaryProof) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO temporary_proofs (proof, data) VALUES (?, ?)",
            arguments: [proof.proof, JSONEncoder().encode(proof)])
    }

    func temporaryProof(_ proof: String) throws -> TemporaryProof? {
        try Data.fetchOne(cached: db, sql: "SELECT data FROM temporary_proofs WHERE proof = ?", arguments: [proof])
            .map { try JSONDecoder().decode(TemporaryProof.self, from: $0) }
    }

    func deleteTemporaryProof(_ proof: String) throws {
        try execute(sql: "DELETE FROM temporary_proofs WHERE proof = ?", arguments: [proof])
    }
}
