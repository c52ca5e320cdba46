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
    /// A page of its tenants, in id order.
    public var tenants: [ScopeSummary]
    /// Where its next page of tenants starts (nil: no more).
    public var moreTenantsAfter: String?
}

/// One page of projects and where the next one starts (nil: the last page).
public struct ProjectPage: Sendable, Equatable {
    public var projects: [ProjectSummary]
    public var nextAfter: String?
}

/// One page of users and where the next one starts (nil: the last page).
public struct UserPage: Sendable {
    public var users: [UserRecord]
    public var nextAfter: String?
}

/// Reads the inspector needs from the store, beyond the other repositories.
public protocol InspectorRepository {
    /// Project ids with users, a stored config or tenants, in order, after `after`, at most `limit`.
    func projectIds(after: String?, limit: Int) async throws -> [String]
    /// Tenant ids of a project with users or created, in order, after `after`, at most `limit`.
    func tenantIds(projectId: String, after: String?, limit: Int) async throws -> [String]
    /// Users whose uid, email, phone number or display name starts with `prefix`, by uid, after `after`.
    func searchUsers(_ scope: Scope, prefix: String, after: String?, limit: Int) async throws -> [UserRecord]
}

extension Emulator {
    public static let inspectorPageSize = 50

    public static let inspectorProjectsPerPage = 20
    public static let inspectorTenantsPerProject = 20

    /// A page of projects in id order, the default project first on the first page; each with its
    /// first tenants (created or with users). 90,000 projects or 100,000 tenants cost one page.
    public func inspectorProjects(
        after: String?, limit: Int = inspectorProjectsPerPage, tenants: Int = inspectorTenantsPerProject
    ) async throws -> ProjectPage {
        let defaultProject = options.defaultProjectId
        return try await store.read { tx in
            let found = try await tx.projectIds(after: after, limit: limit + 1)
            let page = Array(found.prefix(limit))
            var ids = page.filter { $0 != defaultProject }
            if after == nil { ids.insert(defaultProject, at: 0) }
            let projects = try await ids.asyncMap { id in
                try await Self.projectSummary(tx, projectId: id, tenantsAfter: nil, limit: tenants)
            }
            return ProjectPage(projects: projects, nextAfter: found.count > limit ? page.last : nil)
        }
    }

    /// One project with a page of its tenants after `tenantsAfter`.
    public func inspectorProject(_ projectId: String, tenantsAfter: String?, limit: Int = inspectorPageSize)
        async throws -> ProjectSummary
    {
        try await store.read { tx in
            try await Self.projectSummary(tx, projectId: projectId, tenantsAfter: tenantsAfter, limit: limit)
        }
    }

    private static func projectSummary(
        _ tx: any StoreTransaction, projectId: String, tenantsAfter: String?, limit: Int
    ) async throws -> ProjectSummary {
        let found = try await tx.tenantIds(projectId: projectId, after: tenantsAfter, limit: limit + 1)
        let page = Array(found.prefix(limit))
        func summary(_ scope: Scope) async throws -> ScopeSummary {
            var displayName: String?
            if let tenantId = scope.tenantId {
                displayName = try await tx.tenant(projectId: projectId, tenantId: tenantId)?["displayName"]?.stringValue
            }
            return ScopeSummary(
                scope: scope, displayName: displayName,
                users: try await tx.countUsers(scope),
                pendingCodes: try await tx.listSms(scope, SmsQuery(statuses: [.pending])).count)
        }
        return ProjectSummary(
            project: try await summary(Scope(projectId: projectId)),
            tenants: try await page.asyncMap { try await summary(Scope(projectId: projectId, tenantId: $0)) },
            moreTenantsAfter: found.count > limit ? page.last : nil)
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
