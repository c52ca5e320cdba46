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

    func updateSms(_ message: SmsMessage) async throws {
        try await session.execute(
            "UPDATE sms_messages SET status = $1, data = $2 WHERE id = $3",
            [.text(message.status.rawValue), .bytes(message.storedData), .int(message.id)])
        changed(.sms)
    }

    func sms(sessionInfo: String) async throws -> SmsMessage? {
        try await smsMessages(
            "SELECT data FROM sms_messages WHERE session_info = $1", [.text(sessionInfo)]
        ).first
    }

    func listSms(_ scope: Scope, _ query: SmsQuery) async throws -> [SmsMessage] {
        var sql = "SELECT data FROM sms_messages WHERE project_id = $1 AND tenant_id = $2"
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
        return try await smsMessages(sql, binds)
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
