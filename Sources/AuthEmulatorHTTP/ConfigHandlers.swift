import AuthEmulator
import Foundation

/// Admin APIs of settings: a project's config, its tenants and identity-provider configs.
enum ConfigHandlers {
    static func projectConfig(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.getProjectConfig(projectId: request.caller.scope.projectId)
    }

    static func updateProjectConfig(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.updateProjectConfig(
            projectId: request.caller.scope.projectId, patch: request.rawBody,
            updateMask: FieldMask.parse(request.query["updateMask"] ?? []))
    }

    static func listTenants(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.listTenants(
            projectId: request.caller.scope.projectId, pageSize: request.queryValue("pageSize").flatMap { Int($0) },
            pageToken: request.queryValue("pageToken"))
    }

    static func createTenant(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.createTenant(projectId: request.caller.scope.projectId, body: request.rawBody)
    }

    static func tenant(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.getTenant(
            projectId: request.caller.scope.projectId, tenantId: request.caller.scope.tenantId ?? "")
    }

    static func updateTenant(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.updateTenant(
            projectId: request.caller.scope.projectId, tenantId: request.caller.scope.tenantId ?? "",
            patch: request.rawBody,
            updateMask: FieldMask.parse(request.query["updateMask"] ?? []))
    }

    static func initializeAuth(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.initializeAuth(request.caller.scope)
    }

    static func deleteTenant(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.deleteTenant(
            projectId: request.caller.scope.projectId, tenantId: request.caller.scope.tenantId ?? "")
    }
}

/// IdP configs of one kind (OAuth/OIDC, SAML, default-supported): `ConfigHandlers.IdpConfigs(.oauth).list`.
extension ConfigHandlers {
    struct IdpConfigs: Sendable {
        let kind: IdpConfigKind

        init(_ kind: IdpConfigKind) { self.kind = kind }

        var list: @Sendable (ApiRequest) async throws -> JSONValue {
            { [kind] request in
                try await request.emulator.listIdpConfigs(
                    kind, pageSize: request.queryValue("pageSize").flatMap { Int($0) },
                    pageToken: request.queryValue("pageToken"),
                    scope: request.caller.scope)
            }
        }

        var create: @Sendable (ApiRequest) async throws -> JSONValue {
            { [kind] request in
                try await request.emulator.createIdpConfig(
                    kind, id: request.queryValue(kind.idParameter), body: request.rawBody, scope: request.caller.scope)
            }
        }

        var get: @Sendable (ApiRequest) async throws -> JSONValue {
            { [kind] request in
                try await request.emulator.getIdpConfig(kind, id: request.configId, scope: request.caller.scope)
            }
        }

        var update: @Sendable (ApiRequest) async throws -> JSONValue {
            { [kind] request in
                try await request.emulator.updateIdpConfig(
                    kind, id: request.configId, patch: request.rawBody,
                    updateMask: FieldMask.parse(request.query["updateMask"] ?? []),
                    scope: request.caller.scope)
            }
        }

        var delete: @Sendable (ApiRequest) async throws -> JSONValue {
            { [kind] request in
                try await request.emulator.deleteIdpConfig(kind, id: request.configId, scope: request.caller.scope)
            }
        }
    }
}
