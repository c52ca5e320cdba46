import AuthEmulator
import Foundation

/// App credentials, the APNs outbox, injected faults, the clock offset and the inspector's reads.
extension PostgresTransaction {
    func saveCredential(_ credential: IssuedCredential) async throws {
        try await save(.appCredentials, credential.token, credential)
    }

    func credential(_ token: String) async throws -> IssuedCredential? {
        try await record(IssuedCredential.self, .appCredentials, token)
    }

    /// Under its project's outbox lock (`outboxLock`).
    func insertPush(_ push: ApnsPush) async throws -> ApnsPush {
        guard
            let id = try await session.value(
                Int64.self,
                """
                \(Self.outboxLock(project: 1))
                INSERT INTO apns_pushes (project_id, tenant_id, data) SELECT $1, $2, ''::bytea FROM outbox_lock
                RETURNING id
                """,
                [.text(push.projectId), .text(push.tenantId ?? "")])
        else { throw AuthError.storeUnavailable("PostgreSQL returned no push id") }
        var stored = push
        stored.id = id
        try await session.execute("UPDATE apns_pushes SET data = $1 WHERE id = $2", [encode(stored), .int(id)])
        changed(.apns)
        return stored
    }

    func listPushes(_ scope: Scope, afterId: Int64?, limit: Int?) async throws -> [ApnsPush] {
        let (sql, binds) = PostgresTransaction.page(
            "SELECT data FROM apns_pushes WHERE project_id = $1 AND tenant_id = $2", scoped(scope), key: "id",
            after: afterId.map { .int($0) }, limit: limit)
        return try await session.values(Data.self, sql, binds).map { try decode(ApnsPush.self, $0) }
    }

    func deletePushes(_ scope: Scope) async throws {
        try await session.execute("DELETE FROM apns_pushes WHERE project_id = $1 AND tenant_id = $2", scoped(scope))
    }

    func setFault(_ scope: Scope, key: String, count: Int) async throws {
        try await session.execute(
            """
            INSERT INTO injected_faults (project_id, tenant_id, fault, remaining) VALUES ($1, $2, $3, $4)
            ON CONFLICT (project_id, tenant_id, fault) DO UPDATE SET remaining = EXCLUDED.remaining
            """, scoped(scope) + [.text(key), .int(count)])
    }

    func clearFaults(_ scope: Scope) async throws {
        try await session.execute("DELETE FROM injected_faults WHERE project_id = $1 AND tenant_id = $2", scoped(scope))
    }

    func takeFault(_ scope: Scope, key: String) async throws -> Bool {
        try await session.execute(
            """
            UPDATE injected_faults SET remaining = remaining - 1
            WHERE project_id = $1 AND tenant_id = $2 AND fault = $3 AND remaining > 0
            """, scoped(scope) + [.text(key)]) > 0
    }

    func clockSetting() async throws -> ClockSetting {
        guard let row = try await session.rows("SELECT seconds, frozen_at FROM clock_offset WHERE id = 1").first else {
            return .real
        }
        let columns = row.makeRandomAccess()
        let frozenAt = try columns[1].decode(Double?.self)
        return ClockSetting(
            offsetSeconds: try columns[0].decode(Double.self), frozenAt: frozenAt.map(Date.init(timeIntervalSince1970:))
        )
    }

    func saveClockSetting(_ setting: ClockSetting) async throws {
        try await session.execute(
            """
            INSERT INTO clock_offset (id, seconds, frozen_at) VALUES (1, $1, $2)
            ON CONFLICT (id) DO UPDATE SET seconds = EXCLUDED.seconds, frozen_at = EXCLUDED.frozen_at
            """, [.double(setting.offsetSeconds), .double(setting.frozenAt?.timeIntervalSince1970)])
        changed(.clock)
    }

    /// Each table's next project ids in index order, merged.
    func projectIds(after: String?, limit: Int) async throws -> [String] {
        var ids = Set<String>()
        for table in ["users", "project_configs", "tenants"] {
            ids.formUnion(
                try await session.values(
                    String.self,
                    "SELECT DISTINCT project_id FROM \(table) WHERE project_id > $1 ORDER BY project_id LIMIT $2",
                    [.text(after ?? ""), .int(limit)]))
        }
        return Array(ids.sorted().prefix(limit))
    }

    /// A project's next tenant ids with users or created, merged.
    func tenantIds(projectId: String, after: String?, limit: Int) async throws -> [String] {
        var ids = Set<String>()
        for table in ["users", "tenants"] {
            ids.formUnion(
                try await session.values(
                    String.self,
                    """
                    SELECT DISTINCT tenant_id FROM \(table) WHERE project_id = $1 AND tenant_id > $2
                    ORDER BY tenant_id LIMIT $3
                    """, [.text(projectId), .text(after ?? ""), .int(limit)]))
        }
        return Array(ids.sorted().prefix(limit))
    }

    /// Each field's own index range (uid, email, phone, display name), merged, in uid order.
    func searchUsers(_ scope: Scope, prefix: String, after: String?, limit: Int) async throws -> [UserRecord] {
        let lowered = prefix.lowercased()
        var ids = Set<String>()
        for (column, low) in [
            ("local_id", prefix), ("email", lowered), ("phone_number", prefix), ("display_name", lowered),
        ] {
            ids.formUnion(
                try await session.values(
                    String.self,
                    """
                    SELECT local_id FROM users WHERE project_id = $1 AND tenant_id = $2 AND \(column) >= $3
                        AND \(column) < $4 AND local_id > $5 ORDER BY local_id LIMIT $6
                    """, scoped(scope) + [.text(low), .text(low + "\u{FFFF}"), .text(after ?? ""), .int(limit)]))
        }
        return try await ids.sorted().prefix(limit).asyncCompactMap { try await user(scope, localId: $0) }
    }
}
