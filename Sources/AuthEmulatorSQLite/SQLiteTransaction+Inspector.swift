import AuthEmulator
import GRDB

extension SQLiteTransaction {
    /// Each table's project ids by seeks on its leading key column (a few projects, however many
    /// users): `project_id > ?` and the first one, repeated.
    func projectIds() throws -> [String] {
        var ids = Set<String>()
        for table in ["users", "project_configs", "tenants"] {
            var last = ""
            while let next = try String.fetchOne(
                cached: db,
                sql: "SELECT project_id FROM \(table) WHERE project_id > ? ORDER BY project_id LIMIT 1",
                arguments: [last])
            {
                ids.insert(next)
                last = next
            }
        }
        return ids.sorted()
    }

    /// Ranges of the primary key and the email, phone and display-name indexes (SQLite's OR
    /// optimisation walks each), then uid order. Email and display name match case-insensitively.
    func searchUsers(_ scope: Scope, prefix: String, after: String?, limit: Int) throws -> [UserRecord] {
        let end = prefix + "\u{FFFF}"
        let email = prefix.lowercased()
        let sql = """
            SELECT \(Self.userColumns) FROM users WHERE project_id = ? AND tenant_id = ? AND local_id > ?
                AND ((local_id >= ? AND local_id < ?) OR (email >= ? AND email < ?)
                    OR (phone_number >= ? AND phone_number < ?) OR (display_name >= ? AND display_name < ?))
            ORDER BY local_id LIMIT ?
            """
        let lowered = email + "\u{FFFF}"
        let arguments: StatementArguments = [
            scope.projectId, tenantKey(scope), after ?? "", prefix, end, email, lowered, prefix, end, email, lowered,
            limit,
        ]
        return try users(scope, db.cachedStatement(sql: sql), arguments, cached: false)
    }
}
