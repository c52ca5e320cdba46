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
        try updateSms(stored)
        return stored
    }

    func updateSms(_ message: SmsMessage) throws {
        let data = message.storedData
        try execute(
            sql: "UPDATE sms_messages SET status = ?, data = ? WHERE id = ?",
            arguments: [message.status.rawValue, data, message.id])
        // These bytes decode to exactly `message` (a test checks): a later read of them is a hit.
        smsCache.store(key: String(message.id), data: data, record: message)
    }

    func sms(sessionInfo: String) throws -> SmsMessage? {
        try smsMessages("SELECT id, data FROM sms_messages WHERE session_info = ?", [sessionInfo]).first
    }

    func listSms(_ scope: Scope, _ query: SmsQuery) throws -> [SmsMessage] {
        var sql = "SELECT id, data FROM sms_messages WHERE project_id = ? AND tenant_id = ?"
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
        return try smsMessages(sql, arguments)
    }

    func deleteAllSms(_ scope: Scope) throws {
        try execute(
            sql: "DELETE FROM sms_messages WHERE project_id = ? AND tenant_id = ?",
            arguments: [scope.projectId, scope.tenantId ?? ""])
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
