import AuthEmulator
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// `/emulator/ui`: the inspector, another adapter over the domain (the services the REST routes
/// call; no rule or SQL of its own). Pages for a scope are under `projects/{p}` or
/// `projects/{p}/tenants/{t}`; every change is a POST with the page's CSRF token.
extension RouteTable {
    func registerInspector() {
        let pages = InspectorPages(
            emulator: emulator,
            access: InspectorAccess(adminToken: settings.adminToken, loopbackOnly: settings.loopbackOnly),
            maxBodyBytes: settings.maxBodyBytes)
        catalog.add(.get, "/emulator/ui/", access: .open)
        router.get("/emulator/ui/") { request, _ in
            try await pages.guarded(request) { try await pages.overview(request) }
        }
        router.get("/emulator/ui/assets/inspector.css") { _, _ in
            InspectorPages.asset(InspectorAssets.css, type: "text/css; charset=utf-8")
        }
        router.get("/emulator/ui/assets/inspector.js") { _, _ in
            InspectorPages.asset(InspectorAssets.script, type: "text/javascript; charset=utf-8")
        }
        router.get("/emulator/ui/login") { request, _ in
            pages.loginPage(request, next: request.uri.queryParameters.get("next"))
        }
        router.post("/emulator/ui/login") { request, _ in try await pages.login(request) }
        registerInspectorScope(pages)
    }

    static func inspectorScope(_ context: Context) -> Scope {
        // A path tenant alone cannot be refused.
        (try? Scope.resolve(
            projectId: context.parameters.get("project") ?? "",
            tenant: TenantSources(path: context.parameters.get("tenant"))))
            ?? Scope(projectId: context.parameters.get("project") ?? "")
    }

    /// One line a route: the page (GET) or the action (POST, with its form) of a scope, on a
    /// project and on a tenant.
    private func registerInspectorScope(_ pages: InspectorPages) {
        typealias Show = @Sendable (InspectorPages, Request, Scope, Context) async throws -> Response
        typealias Act = @Sendable (InspectorPages, Request, Scope, Context, [String: String]) async throws -> Response
        func show(_ paths: [String], _ handler: @escaping Show) {
            for path in paths {
                router.get(RouterPath(path)) { request, context in
                    try await pages.guarded(request) {
                        try await handler(pages, request, Self.inspectorScope(context), context)
                    }
                }
            }
        }
        func act(_ paths: [String], _ handler: @escaping Act) {
            for path in paths {
                router.post(RouterPath(path)) { request, context in
                    try await pages.changing(request) { form in
                        try await handler(pages, request, Self.inspectorScope(context), context, form)
                    }
                }
            }
        }
        show(["/emulator/ui/projects/{project}/users", "/emulator/ui/projects/{project}/tenants/{tenant}/users"]) {
            pages, request, scope, _ in try await pages.users(request, scope)
        }
        act(["/emulator/ui/projects/{project}/users", "/emulator/ui/projects/{project}/tenants/{tenant}/users"]) {
            pages, request, scope, _, form in try await pages.createUser(request, scope, form)
        }
        act([
            "/emulator/ui/projects/{project}/users/clear",
            "/emulator/ui/projects/{project}/tenants/{tenant}/users/clear",
        ]) { pages, request, scope, _, form in try await pages.clearUsers(request, scope, form) }
        show([
            "/emulator/ui/projects/{project}/users/{localId}",
            "/emulator/ui/projects/{project}/tenants/{tenant}/users/{localId}",
        ]) { pages, request, scope, context in
            try await pages.user(request, scope, localId: context.parameters.get("localId") ?? "")
        }
        act([
            "/emulator/ui/projects/{project}/users/{localId}/{action}",
            "/emulator/ui/projects/{project}/tenants/{tenant}/users/{localId}/{action}",
        ]) { pages, request, scope, context, form in
            try await pages.userAction(
                request, scope, localId: context.parameters.get("localId") ?? "",
                action: context.parameters.get("action") ?? "", form: form)
        }
        act([
            "/emulator/ui/projects/{project}/config/test-phone-numbers",
            "/emulator/ui/projects/{project}/tenants/{tenant}/config/test-phone-numbers",
        ]) { pages, request, scope, _, form in
            try await pages.saveTestPhoneNumbers(request, scope, form)
        }
        show(["/emulator/ui/projects/{project}/config", "/emulator/ui/projects/{project}/tenants/{tenant}/config"]) {
            pages, request, scope, _ in try await pages.config(request, scope)
        }
        act(["/emulator/ui/projects/{project}/config", "/emulator/ui/projects/{project}/tenants/{tenant}/config"]) {
            pages, request, scope, _, form in try await pages.saveConfigSection(request, scope, form)
        }
        show(["/emulator/ui/projects/{project}/tools", "/emulator/ui/projects/{project}/tenants/{tenant}/tools"]) {
            pages, request, scope, _ in pages.tools(request, scope)
        }
        show([
            "/emulator/ui/projects/{project}/tools/export",
            "/emulator/ui/projects/{project}/tenants/{tenant}/tools/export",
        ]) { pages, _, scope, _ in try await pages.export(scope) }
        act([
            "/emulator/ui/projects/{project}/tools/credential",
            "/emulator/ui/projects/{project}/tenants/{tenant}/tools/credential",
        ]) { pages, request, scope, _, form in
            try await pages.mintCredential(request, scope, form)
        }
        act([
            "/emulator/ui/projects/{project}/tools/import",
            "/emulator/ui/projects/{project}/tenants/{tenant}/tools/import",
        ]) { pages, request, scope, _, form in try await pages.importAccounts(request, scope, form) }
        act([
            "/emulator/ui/projects/{project}/tools/tenant",
            "/emulator/ui/projects/{project}/tenants/{tenant}/tools/tenant",
        ]) { pages, request, scope, _, form in try await pages.createTenant(request, scope, form) }
        show(["/emulator/ui/projects/{project}/messages", "/emulator/ui/projects/{project}/tenants/{tenant}/messages"])
        { pages, request, scope, _ in try await pages.messages(request, scope) }
        act([
            "/emulator/ui/projects/{project}/messages/clear",
            "/emulator/ui/projects/{project}/tenants/{tenant}/messages/clear",
        ]) { pages, _, scope, _, _ in
            try await pages.emulator.clearSmsMessages(scope)
            return InspectorPages.redirect(
                "\(InspectorViews.scopePath(scope))/messages", notice: "The SMS outbox is empty.")
        }
    }
}
