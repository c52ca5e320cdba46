import Foundation

/// What the inspector (`/emulator/ui`) reads: the projects and tenants the daemon has seen, and
/// pages of users by a search prefix. Everything else it shows comes from the services the REST
/// routes use (outboxes, lookups, config).
public struct ScopeSummary: Sendable, Equatable {
    public var scope: Scope
    public var displayName: String?
    public var users: Int
    public var pendingCodes: Int
}

public struct ProjectSummary: Sendable, Equatable {
    public var project: ScopeSummary
    public var tenants: [ScopeSummary]
}

/// One page of users and where the next one starts (nil: the last page).
public struct UserPage: Sendable {
    public var users: [UserRecord]
    public var nextAfter: String?
}

/// Reads the inspector needs from the store, beyond the other repositories.
public protocol InspectorRepository {
    /// Project ids with users, a stored config, tenants or SMS, in order.
    func projectIds() async throws -> [String]
    /// Users whose uid, email, phone number or display name starts with `prefix`, by uid, after `after`.
    func searchUsers(_ scope: Scope, prefix: String, after: String?, limit: Int) async throws -> [UserRecord]
}

extension Emulator {
    public static let inspectorPageSize = 50

    /// The default project first, then the others; each with its tenants (created or with users).
    public func inspectorProjects() async throws -> [ProjectSummary] {
        let defaultProject = options.defaultProjectId
        return try await store.read { tx in
            var ids = try await tx.projectIds().filter { $0 != defaultProject }
            ids.insert(defaultProject, at: 0)
            return try await ids.asyncMap { projectId in
                var tenantIds = Set(try await tx.tenantsWithUsers(projectId: projectId).compactMap { $0 })
                let stored = try await tx.listTenants(projectId: projectId, after: nil, limit: nil)
                var names: [String: String] = [:]
                for tenant in stored {
                    guard let id = tenant["tenantId"]?.stringValue else { continue }
                    tenantIds.insert(id)
                    names[id] = tenant["displayName"]?.stringValue
                }
                func summary(_ scope: Scope) async throws -> ScopeSummary {
                    ScopeSummary(
                        scope: scope, displayName: scope.tenantId.flatMap { names[$0] },
                        users: try await tx.countUsers(scope),
                        pendingCodes: try await tx.listSms(scope, SmsQuery(statuses: [.pending])).count)
                }
                return ProjectSummary(
                    project: try await summary(Scope(projectId: projectId)),
                    tenants: try await tenantIds.sorted().asyncMap {
                        try await summary(Scope(projectId: projectId, tenantId: $0))
                    })
            }
        }
    }

    /// A page of users in uid order; with `query`, those whose uid, email, phone or display name starts with it.
    public func inspectorUsers(_ scope: Scope, query: String?, after: String?, limit: Int = inspectorPageSize)
        async throws -> UserPage
    {
        let prefix = (query ?? "").trimmingCharacters(in: .whitespaces)
        let users = try await store.read { tx in
            prefix.isEmpty
                ? try await tx.listUsers(scope, after: after, limit: limit + 1, descending: false)
                : try await tx.searchUsers(scope, prefix: prefix, after: after, limit: limit + 1)
        }
        let page = Array(users.prefix(limit))
        return UserPage(users: page, nextAfter: users.count > limit ? page.last?.localId : nil)
    }

    /// One user, or nil.
    public func inspectorUser(_ scope: Scope, localId: String) async throws -> UserRecord? {
        try await store.read { tx in try await tx.user(scope, localId: localId) }
    }
}
