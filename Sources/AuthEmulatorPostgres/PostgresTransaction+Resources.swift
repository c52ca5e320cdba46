import AuthEmulator
import Foundation

/// Tenants, project configs, email action codes and IdP configs: JSON in `data`, keyed by scope.
extension PostgresTransaction {
    private func json(_ sql: String, _ binds: [Bind]) async throws -> [JSONValue] {
        try await session.values(Data.self, sql, binds).map { try JSONValue.parse($0) }
    }

    func tenant(projectId: String, tenantId: String) async throws -> JSONValue? {
        try await json(
            "SELECT data FROM tenants WHERE project_id = $1 AND tenant_id = $2", [.text(projectId), .text(tenantId)]
        ).first
    }

    func saveTenant(projectId: String, tenantId: String, _ tenant: JSONValue) async throws {
        try await session.execute(
            """
            INSERT INTO tenants (project_id, tenant_id, data) VALUES ($1, $2, $3)
            ON CONFLICT (project_id, tenant_id) DO UPDATE SET data = EXCLUDED.data
            """, [.text(projectId), .text(tenantId), encode(tenant)])
        try await session.execute(
            "DELETE FROM deleted_tenants WHERE project_id = $1 AND tenant_id = $2", [.text(projectId), .text(tenantId)])
        changed(.settings)
    }

    func deleteTenant(projectId: String, tenantId: String) async throws -> Bool {
        changed(.settings)
        let key: [Bind] = [.text(projectId), .text(tenantId)]
        guard try await session.execute("DELETE FROM tenants WHERE project_id = $1 AND tenant_id = $2", key) > 0
        else { return false }
        try await session.execute(
            "INSERT INTO deleted_tenants (project_id, tenant_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", key)
        return true
    }

    func deleteAllTenants(projectId: String) async throws {
        changed(.settings)
        try await session.execute("DELETE FROM tenants WHERE project_id = $1", [.text(projectId)])
        try await session.execute("DELETE FROM deleted_tenants WHERE project_id = $1", [.text(projectId)])
    }

    func tenantWasDeleted(projectId: String, tenantId: String) async throws -> Bool {
        try await !session.rows(
            "SELECT 1 FROM deleted_tenants WHERE project_id = $1 AND tenant_id = $2",
            [.text(projectId), .text(tenantId)]
        ).isEmpty
    }

    func listTenants(projectId: String, after: String?, limit: Int?) async throws -> [JSONValue] {
        let (sql, binds) = PostgresTransaction.page(
            "SELECT data FROM tenants WHERE project_id = $1", [.text(projectId)], key: "tenant_id",
            after: after.map { .text($0) }, limit: limit)
        return try await json(sql, binds)
    }

    func projectConfig(projectId: String) async throws -> JSONValue? {
        try await json("SELECT data FROM project_configs WHERE project_id = $1", [.text(projectId)]).first
    }

    func saveProjectConfig(projectId: String, _ config: JSONValue) async throws {
        try await session.execute(
            """
            INSERT INTO project_configs (project_id, data) VALUES ($1, $2)
            ON CONFLICT (project_id) DO UPDATE SET data = EXCLUDED.data
            """, [.text(projectId), encode(config)])
        changed(.settings)
    }

    // MARK: OOB codes

    func oobCode(_ scope: Scope, code: String) async throws -> OobCode? {
        try await session.values(
            Data.self, "SELECT data FROM oob_codes WHERE project_id = $1 AND tenant_id = $2 AND oob_code = $3",
            scoped(scope) + [.text(code)]
        ).first.map { try decode(OobCode.self, $0) }
    }

    /// A replaced code moves to the end, as SQLite's `INSERT OR REPLACE` gives it a new sequence
    /// number; under its project's outbox lock (`outboxLock`).
    func saveOobCode(_ scope: Scope, _ code: OobCode) async throws {
        try await session.execute("DELETE FROM oob_codes WHERE oob_code = $1", [.text(code.oobCode)])
        try await session.execute(
            """
            \(Self.outboxLock(project: 1))
            INSERT INTO oob_codes (project_id, tenant_id, oob_code, data, listing)
            SELECT $1, $2, $3, $4, $5 FROM outbox_lock
            """, scoped(scope) + [.text(code.oobCode), encode(code), .bytes(code.listingEntry)])
    }

    func deleteOobCode(_ scope: Scope, code: String) async throws {
        try await session.execute(
            "DELETE FROM oob_codes WHERE project_id = $1 AND tenant_id = $2 AND oob_code = $3",
            scoped(scope) + [.text(code)])
    }

    func listOobCodes(_ scope: Scope) async throws -> [OobCode] {
        try await session.values(
            Data.self, "SELECT data FROM oob_codes WHERE project_id = $1 AND tenant_id = $2 ORDER BY seq", scoped(scope)
        ).map { try decode(OobCode.self, $0) }
    }

    func oobCodeEntries(_ scope: Scope) async throws -> [Data] {
        try await joinedEntries(
            "listing", order: "seq", from: "FROM oob_codes WHERE project_id = $1 AND tenant_id = $2 ORDER BY seq",
            scoped(scope)
        ) { try decode(OobCode.self, $0).listingEntry }.entries
    }

    func deleteAllOobCodes(_ scope: Scope) async throws {
        try await session.execute("DELETE FROM oob_codes WHERE project_id = $1 AND tenant_id = $2", scoped(scope))
    }

    // MARK: IdP configs

    func idpConfig(_ scope: Scope, kind: String, id: String) async throws -> JSONValue? {
        try await json(
            "SELECT data FROM idp_configs WHERE project_id = $1 AND tenant_id = $2 AND kind = $3 AND id = $4",
            scoped(scope) + [.text(kind), .text(id)]
        ).first
    }

    func saveIdpConfig(_ scope: Scope, kind: String, id: String, _ config: JSONValue) async throws {
        try await session.execute(
            """
            INSERT INTO idp_configs (project_id, tenant_id, kind, id, data) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (project_id, tenant_id, kind, id) DO UPDATE SET data = EXCLUDED.data
            """, scoped(scope) + [.text(kind), .text(id), encode(config)])
    }

    func deleteIdpConfig(_ scope: Scope, kind: String, id: String) async throws -> Bool {
        try await session.execute(
            "DELETE FROM idp_configs WHERE project_id = $1 AND tenant_id = $2 AND kind = $3 AND id = $4",
            scoped(scope) + [.text(kind), .text(id)]) > 0
    }

    func listIdpConfigs(_ scope: Scope, kind: String) async throws -> [JSONValue] {
        try await json(
            "SELECT data FROM idp_configs WHERE project_id = $1 AND tenant_id = $2 AND kind = $3 ORDER BY id",
            scoped(scope) + [.text(kind)])
    }
}
