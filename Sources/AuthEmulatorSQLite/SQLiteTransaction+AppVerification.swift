import AuthEmulator
import Foundation
import GRDB

extension SQLiteTransaction {
    func saveCredential(_ credential: IssuedCredential) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO app_credentials (token, data) VALUES (?, ?)",
            arguments: [credential.token, JSONEncoder().encode(credential)])
    }

    func credential(_ token: String) throws -> IssuedCredential? {
        try Data.fetchOne(cached: db, sql: "SELECT data FROM app_credentials WHERE token = ?", arguments: [token])
            .map { try JSONDecoder().decode(IssuedCredential.self, from: $0) }
    }

    func insertPush(_ push: ApnsPush) throws -> ApnsPush {
        try execute(
            sql: "INSERT INTO apns_pushes (project_id, tenant_id, data) VALUES (?, ?, x'')",
            arguments: [push.projectId, push.tenantId ?? ""])
        var stored = push
        stored.id = db.lastInsertedRowID
        try execute(
            sql: "UPDATE apns_pushes SET data = ? WHERE id = ?", arguments: [JSONEncoder().encode(stored), stored.id])
        return stored
    }

    func listPushes(_ scope: Scope, afterId: Int64?, limit: Int?) throws -> [ApnsPush] {
        var sql = "SELECT data FROM apns_pushes WHERE project_id = ? AND tenant_id = ?"
        var arguments: StatementArguments = [scope.projectId, scope.tenantId ?? ""]
        if let afterId {
            sql += " AND id > ?"
            arguments += [afterId]
        }
        sql += " ORDER BY id"
        if let limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return try Data.fetchAll(cached: db, sql: sql, arguments: arguments).map {
            try JSONDecoder().decode(ApnsPush.self, from: $0)
        }
    }

    func deletePushes(_ scope: Scope) throws {
        try execute(
            sql: "DELETE FROM apns_pushes WHERE project_id = ? AND tenant_id = ?",
            arguments: [scope.projectId, scope.tenantId ?? ""])
    }

    func setFault(_ scope: Scope, key: String, count: Int) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO injected_faults (project_id, tenant_id, fault, remaining) VALUES (?, ?, ?, ?)",
            arguments: [scope.projectId, scope.tenantId ?? "", key, count])
    }

    func clearFaults(_ scope: Scope) throws {
        try execute(
            sql: "DELETE FROM injected_faults WHERE project_id = ? AND tenant_id = ?",
            arguments: [scope.projectId, scope.tenantId ?? ""])
    }

    func takeFault(_ scope: Scope, key: String) throws -> Bool {
        let arguments: StatementArguments = [scope.projectId, scope.tenantId ?? "", key]
        try execute(
            sql: """
                UPDATE injected_faults SET remaining = remaining - 1
                WHERE project_id = ? AND tenant_id = ? AND fault = ? AND remaining > 0
                """, arguments: arguments)
        return db.changesCount > 0
    }
}
