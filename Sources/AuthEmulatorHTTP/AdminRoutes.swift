import AuthEmulator
import Foundation
import Hummingbird

/// Admin APIs (`Authorization: Bearer owner`): accounts of any project or tenant, config,
/// tenants, identity-provider configs.
extension RouteTable {
    func registerAdminAccountRoutes() {
        let emulator = self.emulator
        /// An admin account route: its project path and its tenant path.
        func admin(
            _ paths: [String], _ method: HTTPRequest.Method = .post,
            _ handler: @escaping @Sendable (ApiRequest) async throws -> JSONValue
        ) {
            api(method, paths, access: .admin, handler)
        }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts",
        ]) { try await emulator.signUp($0.decode(SignUpRequest.self), caller: $0.caller) }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:lookup",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:lookup",
        ]) { try await emulator.lookup($0.decode(LookupRequest.self), caller: $0.caller) }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:update",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:update",
        ]) {
            try await emulator.updateAccount($0.decode(UpdateAccountRequest.self), caller: $0.caller)
        }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:delete",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:delete",
        ]) {
            try await emulator.deleteAccount(
                idToken: $0.body["idToken"]?.stringValue, localId: $0.body["localId"]?.stringValue, caller: $0.caller)
        }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:sendOobCode",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:sendOobCode",
        ]) {
            try await emulator.sendOobCode($0.decode(SendOobCodeRequest.self), caller: $0.caller)
        }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:query",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:query",
        ]) { try await emulator.queryAccounts($0.body, caller: $0.caller) }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:batchCreate",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:batchCreate",
        ]) {
            try await emulator.batchCreate($0.decode(BatchCreateRequest.self), caller: $0.caller)
        }
        admin([
            "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:batchDelete",
            "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:batchDelete",
        ]) { request in
            let ids = try LenientDecoder.decode([String].self, from: request.body["localIds"] ?? .array([]))
            return try await emulator.batchDelete(
                localIds: ids, force: request.body["force"]?.boolValue ?? false, caller: request.caller)
        }
        admin(
            [
                "/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:batchGet",
                "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}/accounts:batchGet",
            ], .get
        ) { request in
            let max = request.queryValue("maxResults").map { Int($0) ?? 20 }
            return try await emulator.batchGet(
                maxResults: max, nextPageToken: request.queryValue("nextPageToken"), caller: request.caller)
        }
        let cookie: @Sendable (ApiRequest) async throws -> JSONValue = {
            try await emulator.createSessionCookie(
                idToken: $0.body["idToken"]?.stringValue,
                validDuration: try LenientDecoder.decode(String?.self, from: $0.body["validDuration"] ?? .null),
                caller: $0.caller)
        }
        api(
            .post,
            [
                "/identitytoolkit.googleapis.com/v1/projects/{project}:createSessionCookie",
                "/identitytoolkit.googleapis.com/v1/projects/{project}/tenants/{tenant}:createSessionCookie",
            ], access: .admin, cookie)
        api(.post, ["/identitytoolkit.googleapis.com/v1/projects/{project}:queryAccounts"], access: .admin) {
            try await emulator.queryAccounts($0.body, caller: $0.caller)
        }
        registerLegacyBatchRoutes()
    }

    /// v3 `downloadAccount` / `uploadAccount`: the project comes from the body's `targetProjectId`.
    func registerLegacyBatchRoutes() {
        let emulator = self.emulator
        api(.post, ["/www.googleapis.com/identitytoolkit/v3/relyingparty/downloadAccount"], access: .client) {
            request in
            try Emulator.requireTargetProject(request.body["targetProjectId"] != nil)
            let max = try LenientDecoder.decode(Int?.self, from: request.body["maxResults"] ?? .null)
            return try await emulator.batchGet(
                maxResults: max, nextPageToken: request.body["nextPageToken"]?.stringValue, caller: request.caller)
        }
        api(.post, ["/www.googleapis.com/identitytoolkit/v3/relyingparty/uploadAccount"], access: .client) { request in
            try Emulator.requireTargetProject(request.body["targetProjectId"] != nil)
            return try await emulator.batchCreate(request.decode(BatchCreateRequest.self), caller: request.caller)
        }
    }

    func registerConfigRoutes() {
        let emulator = self.emulator
        let configPaths = [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/config",
            "/identitytoolkit.googleapis.com/admin/v2/projects/{project}/config",
        ]
        api(.get, configPaths, access: .admin) {
            try await emulator.getProjectConfig(projectId: $0.caller.scope.projectId)
        }
        api(.patch, configPaths, access: .admin) { request in
            try await emulator.updateProjectConfig(
                projectId: request.caller.scope.projectId, patch: request.rawBody,
                updateMask: FieldMask.parse(request.query["updateMask"] ?? []))
        }
        let tenants = [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants",
            "/identitytoolkit.googleapis.com/admin/v2/projects/{project}/tenants",
        ]
        api(.get, tenants, access: .admin) { request in
            try await emulator.listTenants(
                projectId: request.caller.scope.projectId,
                pageSize: request.queryValue("pageSize").flatMap { Int($0) },
                pageToken: request.queryValue("pageToken"))
        }
        api(.post, tenants, access: .admin) {
            try await emulator.createTenant(projectId: $0.caller.scope.projectId, body: $0.rawBody)
        }
        let tenant = [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}",
            "/identitytoolkit.googleapis.com/admin/v2/projects/{project}/tenants/{tenant}",
        ]
        api(.get, tenant, access: .admin) {
            try await emulator.getTenant(projectId: $0.caller.scope.projectId, tenantId: $0.caller.scope.tenantId ?? "")
        }
        api(.patch, tenant, access: .admin) { request in
            try await emulator.updateTenant(
                projectId: request.caller.scope.projectId, tenantId: request.caller.scope.tenantId ?? "",
                patch: request.rawBody, updateMask: FieldMask.parse(request.query["updateMask"] ?? []))
        }
        api(.delete, tenant, access: .admin) {
            try await emulator.deleteTenant(
                projectId: $0.caller.scope.projectId, tenantId: $0.caller.scope.tenantId ?? "")
        }
        registerIdpConfigRoutes()
    }

    func registerIdpConfigRoutes() {
        let emulator = self.emulator
        for (kind, collection, item) in idpConfigPaths {
            api(.get, collection, access: .admin) { request in
                try await emulator.listIdpConfigs(
                    kind, pageSize: request.queryValue("pageSize").flatMap { Int($0) },
                    pageToken: request.queryValue("pageToken"), scope: request.caller.scope)
            }
            api(.post, collection, access: .admin) { request in
                try await emulator.createIdpConfig(
                    kind, id: request.queryValue(kind.idParameter), body: request.rawBody, scope: request.caller.scope)
            }
            let settings = self.settings
            for path in item {
                for method in [HTTPRequest.Method.get, .patch, .delete] { catalog.add(method, path, access: .admin) }
                router.on(RouterPath(path), method: .get) { request, context in
                    let api = try await ApiRequest.make(request, context, access: .admin, settings: settings)
                    let id = context.parameters.get("config") ?? ""
                    return JSONResponse.make(try await emulator.getIdpConfig(kind, id: id, scope: api.caller.scope))
                }
                router.on(RouterPath(path), method: .patch) { request, context in
                    let api = try await ApiRequest.make(request, context, access: .admin, settings: settings)
                    let id = context.parameters.get("config") ?? ""
                    return JSONResponse.make(
                        try await emulator.updateIdpConfig(
                            kind, id: id, patch: api.rawBody,
                            updateMask: FieldMask.parse(api.query["updateMask"] ?? []),
                            scope: api.caller.scope))
                }
                router.on(RouterPath(path), method: .delete) { request, context in
                    let api = try await ApiRequest.make(request, context, access: .admin, settings: settings)
                    let id = context.parameters.get("config") ?? ""
                    return JSONResponse.make(try await emulator.deleteIdpConfig(kind, id: id, scope: api.caller.scope))
                }
            }
        }
        notImplemented(
            .post,
            [
                "/identitytoolkit.googleapis.com/v2/projects/{project}/identityPlatform:initializeAuth",
                "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}/identityPlatform:initializeAuth",
            ], access: .admin, operation: "identityPlatform:initializeAuth")
    }
}

/// Each kind of IdP config: its collection and its items, on a project and on a tenant.
let idpConfigPaths: [(IdpConfigKind, collection: [String], item: [String])] = [
    (
        .oauth,
        [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/oauthIdpConfigs",
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}/oauthIdpConfigs",
        ],
        [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/oauthIdpConfigs/{config}",
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}/oauthIdpConfigs/{config}",
        ]
    ),
    (
        .saml,
        [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/inboundSamlConfigs",
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}/inboundSamlConfigs",
        ],
        [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/inboundSamlConfigs/{config}",
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}/inboundSamlConfigs/{config}",
        ]
    ),
    (
        .defaultSupported,
        [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/defaultSupportedIdpConfigs",
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}/defaultSupportedIdpConfigs",
        ],
        [
            "/identitytoolkit.googleapis.com/v2/projects/{project}/defaultSupportedIdpConfigs/{config}",
            "/identitytoolkit.googleapis.com/v2/projects/{project}/tenants/{tenant}/defaultSupportedIdpConfigs/{config}",
        ]
    ),
]

extension ApiRequest {
    /// Resource bodies (config, tenants, IdP configs) keep their keys as sent.
    var rawBody: JSONValue {
        var body = self.body
        if case .object(var object) = body {
            object["targetProjectId"] = nil
            body = .object(object)
        }
        return body
    }
}
