import AuthEmulator
import GRDB

extension SQLiteTransaction {
    /// Each table's next project ids by seeks on its leading key column (however many users a
    /// project has): `project_id > ?` and the first one, up to `limit` times; merged.
    func projectIds(after: String?, limit: Int) throws -> [String] {
        var ids = Set<String>()
        for table in ["users", "project_configs", "tenants"] {
            var last = after ?? ""
            var taken = 0
            while taken < limit,
                let next = try String.fetchOne(
                    cached: db,
                    sql: "SELECT project_id FROM \(table) WHERE project_id > ? ORDER BY project_id LIMIT 1",
                    arguments: [last])
            {
                ids.insert(next)
                last = next
                taken += 1
            }
        }
        return Array(ids.sorted().prefix(limit))
    }

    /// A project's next tenant ids with users (seeks on the users' key, as `projectIds`) or
    /// created, merged.
    func tenantIds(projectId: String, after: String?, limit: Int) throws -> [String] {
        var ids = Set<String>()
        var last = after ?? ""
        while ids.count < limit,
            let next = try String.fetchOne(
                cached: db,
                sql: "SELECT tenant_id FROM users WHERE project_id = ? AND tenant_id > ? ORDER BY tenant_id LIMIT 1",
                arguments: [projectId, last])
        {
            ids.insert(next)
            last = next
        }
        ids.formUnion(
            try String.fetchAll(
                cached: db,
                sql: "SELECT tenant_id FROM tenants WHERE project_id = ? AND tenant_id > ? ORDER BY tenant_id LIMIT ?",
                arguments: [projectId, after ?? "", limit]))
        return Array(ids.sorted().prefix(limit))
    }

    /// Each field's own index range (uid: the primary key; email, phone and display name: their
    /// partial indexes), at most `limit` matches each in uid order, merged. One query with `OR`
    /// let SQLite walk the whole primary key in uid order looking for matches: 200 ms at a
    /// million accounts for a search that matched few. Email and display name ignore case.
    func searchUsers(_ scope: Scope, prefix: String, after: String?, limit: Int) throws -> [UserRecord] {
        let lowered = prefix.lowercased()
        let ranges: [(column: String, low: String)] = [
            ("local_id", prefix), ("email", lowered), ("phone_number", prefix), ("display_name", lowered),
        ]
        var ids = Set<String>()
        for range in ranges {
            // `+local_id`: sorting the few matches beats walking the primary key for them.
            let order = range.column == "local_id" ? "local_id" : "+local_id"
            let sql = """
                SELECT local_id FROM users WHERE project_id = ? AND tenant_id = ? AND \(range.column) >= ?
                    AND \(range.column) < ? AND local_id > ? ORDER BY \(order) LIMIT ?
                """
            let found = try String.fetchAll(
                cached: db, sql: sql,
                arguments: [scope.projectId, tenantKey(scope), range.low, range.low + "\u{FFFF}", after ?? "", limit])
            ids.formUnion(found)
        }
        return try ids.sorted().prefix(limit).compactMap { try user(scope, localId: $0) }
    }
}
