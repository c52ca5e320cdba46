import Foundation

extension Emulator {
    /// The one reset. A scope's accounts and everything sent or armed for them: email action codes,
    /// the SMS outbox (and with it the pending verification codes), APNs pushes and injected
    /// app-verification faults. `DELETE …/accounts`, the inspector's "delete all", `authemu reset`,
    /// the helper library's `reset()` and the MCP tool all come here.
    static func clearScope(_ tx: any StoreTransaction, _ scope: Scope) async throws {
        try await tx.deleteAllUsers(scope)
        try await tx.deleteAllOobCodes(scope)
        try await tx.deleteAllSms(scope)
        try await tx.deletePushes(scope)
        try await tx.clearFaults(scope)
    }

    /// `authemu reset`: `clearScope` on the project and every tenant of it, keeping its
    /// configuration and tenants.
    public func resetProject(_ projectId: String) async throws -> Int {
        try await store.write { tx in
            var tenants = Set(try await tx.tenantsWithUsers(projectId: projectId).compactMap { $0 })
            for tenant in try await tx.listTenants(projectId: projectId, after: nil, limit: nil) {
                if let id = tenant["tenantId"]?.stringValue { tenants.insert(id) }
            }
            let scopes =
                [Scope(projectId: projectId)] + tenants.sorted().map { Scope(projectId: projectId, tenantId: $0) }
            var removed = 0
            for scope in scopes {
                removed += try await tx.countUsers(scope)
                try await Self.clearScope(tx, scope)
            }
            return removed
        }
    }

    /// `DELETE /emulator/v1/projects/{p}[/tenants/{t}]/accounts`: `clearScope` on that scope
    /// (firebase-tools removes only the accounts, and leaves their codes for the next test to find).
    public func deleteAllAccounts(_ scope: Scope) async throws -> JSONValue {
        try await store.write { tx in try await Self.clearScope(tx, scope) }
        return .object([:])
    }

    /// `DELETE …/oobCodes`: the scope's email action codes only.
    public func clearOobCodes(_ scope: Scope) async throws -> JSONValue {
        try await store.write { tx in try await tx.deleteAllOobCodes(scope) }
        return .object([:])
    }
}

extension Emulator {
    /// `DELETE /emulator/v1/projects/{p}/config`: the project's configuration back to the
    /// defaults and its tenants removed (those deleted before are forgotten: any tenant id is made
    /// again on first use); accounts, outboxes and the clock stay. For test suites in
    /// which no setting may leak from one test to the next. (Settings from the config file come
    /// back on the next start or SIGHUP.)
    public func resetSettings(_ projectId: String) async throws -> JSONValue {
        defer { settingsChanged() }
        try await store.write { tx in
            try await tx.saveProjectConfig(projectId: projectId, .object([:]))
            try await tx.deleteAllTenants(projectId: projectId)
        }
        return .object([:])
    }
}
