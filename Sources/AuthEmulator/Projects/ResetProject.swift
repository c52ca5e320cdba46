import Foundation

extension Emulator {
    /// Removes a project's accounts, SMS outbox, APNs pushes and email codes, in the project and
    /// every tenant, keeping its configuration and tenants (`authemu reset`).
    public func resetProject(_ projectId: String) async throws -> Int {
        try await store.write { tx in
            var tenants = Set(try tx.tenantsWithUsers(projectId: projectId).compactMap { $0 })
            for tenant in try tx.listTenants(projectId: projectId, after: nil, limit: nil) {
                if let id = tenant["tenantId"]?.stringValue { tenants.insert(id) }
            }
            let scopes =
                [Scope(projectId: projectId)] + tenants.sorted().map { Scope(projectId: projectId, tenantId: $0) }
            var removed = 0
            for scope in scopes {
                removed += try tx.countUsers(scope)
                try tx.deleteAllUsers(scope)
                try tx.deleteAllSms(scope)
                try tx.deletePushes(scope)
                try tx.deleteAllOobCodes(scope)
            }
            return removed
        }
    }
}

extension Emulator {
    /// `DELETE /emulator/v1/projects/{p}[/tenants/{t}]/accounts`.
    public func deleteAllAccounts(_ scope: Scope) async throws -> JSONValue {
        try await store.write { tx in try tx.deleteAllUsers(scope) }
        return .object([:])
    }
}

extension Emulator {
    /// `DELETE /emulator/v1/projects/{p}/config`: the project's configuration back to the
    /// defaults and its tenants removed; accounts, outboxes and the clock stay. For test suites in
    /// which no setting may leak from one test to the next. (Settings from the config file come
    /// back on the next start or SIGHUP.)
    public func resetSettings(_ projectId: String) async throws -> JSONValue {
        defer { settingsChanged() }
        try await store.write { tx in
            try tx.saveProjectConfig(projectId: projectId, .object([:]))
            for tenant in try tx.listTenants(projectId: projectId, after: nil, limit: nil) {
                if let id = tenant["tenantId"]?.stringValue {
                    _ = try tx.deleteTenant(projectId: projectId, tenantId: id)
                }
            }
        }
        return .object([:])
    }
}
