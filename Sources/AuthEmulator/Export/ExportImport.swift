import Foundation

/// One project's state in the firebase-tools export layout, plus what authemu needs to lose
/// nothing (full v2 config, tenant resources, TOTP secrets inside the user records).
public struct ProjectExport: Sendable {
    /// `auth_export/accounts.json` (key nil) and `accounts-<tenant>.json`.
    public var accounts: [String?: [JSONValue]] = [:]
    /// `auth_export/config.json`: the firebase-tools emulator config view.
    public var emulatorConfig: JSONValue = .object([:])
    /// `auth_export/authemu-config.json`: the whole v2 config.
    public var projectConfig: JSONValue?
    /// `auth_export/authemu-tenants.json`: tenant resources by id.
    public var tenants: [String: JSONValue] = [:]

    public init() {}
}

extension Emulator {
    public func exportProject(_ projectId: String) async throws -> ProjectExport {
        var export = ProjectExport()
        export.emulatorConfig = try await emulatorConfig(projectId: projectId)
        let (config, tenants, scopes): (JSONValue?, [JSONValue], [String?]) = try await store.read { tx in
            let tenants = try await tx.listTenants(projectId: projectId, after: nil, limit: nil)
            var scopes = Set(try await tx.tenantsWithUsers(projectId: projectId).map { $0 ?? "" })
            for tenant in tenants { if let id = tenant["tenantId"]?.stringValue { scopes.insert(id) } }
            scopes.insert("")
            return (
                try await tx.projectConfig(projectId: projectId), tenants,
                scopes.sorted().map { $0.isEmpty ? nil : $0 }
            )
        }
        export.projectConfig = config
        for tenant in tenants {
            if let id = tenant["tenantId"]?.stringValue { export.tenants[id] = tenant }
        }
        for tenantId in scopes {
            let scope = Scope(projectId: projectId, tenantId: tenantId)
            let users = try await store.read { tx in
                try await tx.listUsers(scope, after: nil, limit: nil, descending: false)
            }
            if tenantId == nil || !users.isEmpty { export.accounts[tenantId] = users.map(\.exportValue) }
        }
        return export
    }

    /// Imports an export (firebase-tools' or authemu's): config first, then tenants, then users
    /// (replacing users with the same id, so importing twice is harmless).
    public func importProject(_ projectId: String, _ export: ProjectExport) async throws -> Int {
        if let config = export.projectConfig {
            _ = try await updateProjectConfig(projectId: projectId, patch: config, updateMask: [])
        } else if export.emulatorConfig.objectValue?.isEmpty == false {
            _ = try await updateEmulatorConfig(projectId: projectId, patch: export.emulatorConfig)
        }
        for (tenantId, tenant) in export.tenants.sorted(by: { $0.key < $1.key }) {
            _ = try await updateTenant(projectId: projectId, tenantId: tenantId, patch: tenant, updateMask: [])
        }
        var imported = 0
        for (tenantId, users) in export.accounts.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            guard !users.isEmpty else { continue }
            let request = BatchCreateRequest(
                users: try users.map { try LenientDecoder.decode(BatchCreateRequest.ImportedUser.self, from: $0) },
                allowOverwrite: true)
            let result = try await batchCreate(
                request, caller: Caller(scope: Scope(projectId: projectId, tenantId: tenantId), isAdmin: true))
            if let errors = result["error"]?.arrayValue, let first = errors.first {
                throw AuthError(
                    "IMPORT_FAILED",
                    "\(errors.count) account(s) of \(tenantId.map { "tenant \($0)" } ?? "the project") were refused, first: \(first.jsonString())"
                )
            }
            imported += users.count
        }
        return imported
    }
}

/// One scope's users as an `accounts.json` (firebase-tools' `auth_export` file), and its import:
/// for the inspector's download and upload.
extension Emulator {
    public func exportAccounts(_ scope: Scope) async throws -> JSONValue {
        let users = try await store.read { tx in
            try await tx.listUsers(scope, after: nil, limit: nil, descending: false)
        }
        return .object(["kind": "identitytoolkit#DownloadAccountResponse", "users": .array(users.map(\.exportValue))])
    }

    /// Imports `{"users": […]}` 1,000 at a time (users with the same uid are replaced); returns how
    /// many were stored and the refusals (`{index, message}` over the whole list).
    public func importAccounts(_ scope: Scope, _ accounts: JSONValue) async throws -> (
        imported: Int, refused: [JSONValue]
    ) {
        guard let users = accounts["users"]?.arrayValue else {
            throw AuthError("INVALID_ARGUMENT", "an accounts.json holds {\"users\": [...]}")
        }
        var refused: [JSONValue] = []
        for start in stride(from: 0, to: users.count, by: 1000) {
            let chunk = Array(users[start..<min(users.count, start + 1000)])
            let request = BatchCreateRequest(
                users: try chunk.map { try LenientDecoder.decode(BatchCreateRequest.ImportedUser.self, from: $0) },
                allowOverwrite: true)
            let result = try await batchCreate(request, caller: Caller(scope: scope, isAdmin: true))
            for error in result["error"]?.arrayValue ?? [] {
                let index = (error["index"]?.doubleValue).map { Int($0) + start } ?? start
                refused.append(error.setting(["index"], to: .number(Double(index))))
            }
        }
        return (users.count - refused.count, refused)
    }
}

/// `POST /emulator/v1/projects/{p}[/tenants/{t}]:import`: a known state loaded into the running
/// daemon between tests (firebase-tools#2297), on either store.
extension Emulator {
    /// The body is an export's `accounts.json` (`{"users": […]}`, firebase-tools' `fakeHash`
    /// passwords included) and, on the project, optionally `"config"` holding its `config.json`
    /// (applied first). Users with the same uid are replaced; refused ones are reported as
    /// `batchCreate` reports them, the others stored.
    public func importState(_ scope: Scope, _ body: JSONValue) async throws -> JSONValue {
        guard body.objectValue != nil else { throw AuthError.invalidJSON("/ must be object") }
        guard body["users"] != nil || body["config"] != nil else {
            throw AuthError("INVALID_ARGUMENT", "the body holds \"users\" (an accounts.json's) and/or \"config\"")
        }
        if let config = body["config"] {
            guard scope.tenantId == nil else {
                throw AuthError("INVALID_ARGUMENT", "\"config\" is a project's: import it without a tenant")
            }
            guard config.objectValue != nil else { throw AuthError.invalidJSON("/config must be object") }
            // Only the fields config.json holds: an empty mask would reset the whole config.
            if config.value(at: "signIn.allowDuplicateEmails") != nil
                || config.value(at: "emailPrivacyConfig.enableImprovedEmailPrivacy") != nil
            {
                _ = try await updateEmulatorConfig(projectId: scope.projectId, patch: config)
            }
        }
        var response: [String: JSONValue] = ["importedCount": 0]
        if let users = body["users"] {
            let (imported, refused) = try await importAccounts(scope, .object(["users": users]))
            response["importedCount"] = .number(Double(imported))
            if !refused.isEmpty { response["error"] = .array(refused) }
        }
        return .object(response)
    }
}
