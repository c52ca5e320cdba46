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
