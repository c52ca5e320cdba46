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
        for base in ["/emulator/ui/projects/{project}", "/emulator/ui/projects/{project}/tenants/{tenant}"] {
            registerInspectorScope(base, pages)
        }
    }

    static func inspectorScope(_ context: Context) -> Scope {
        // A path tenant alone cannot be refused.
        (try? Scope.resolve(
            projectId: context.parameters.get("project") ?? "",
            tenant: TenantSources(path: context.parameters.get("tenant"))))
            ?? Scope(projectId: context.parameters.get("project") ?? "")
    }

    /// One line a route: the page (GET) or the action (POST, with its form) of a scope.
    private func registerInspectorScope(_ base: String, _ pages: InspectorPages) {
        typealias Show = @Sendable (InspectorPages, Request, Scope, Context) async throws -> Response
        typealias Act = @Sendable (InspectorPages, Request, Scope, Context, [String: String]) async throws -> Response
        func show(_ path: String, _ handler: @escaping Show) {
            router.get(RouterPath(base + path)) { request, context in
                try await pages.guarded(request) {
                    try await handler(pages, request, Self.inspectorScope(context), context)
                }
            }
        }
        func act(_ path: String, _ handler: @escaping Act) {
            router.post(RouterPath(base + path)) { request, context in
                try await pages.changing(request) { form in
                    try await handler(pages, request, Self.inspectorScope(context), context, form)
                }
            }
        }
        show("/users") { pages, request, scope, _ in try await pages.users(request, scope) }
        act("/users") { pages, request, scope, _, form in try await pages.createUser(request, scope, form) }
        act("/users/clear") { pages, request, scope, _, form in try await pages.clearUsers(request, scope, form) }
        show("/users/{localId}") { pages, request, scope, context in
            try await pages.user(request, scope, localId: context.parameters.get("localId") ?? "")
        }
        act("/users/{localId}/{action}") { pages, request, scope, context, form in
            try await pages.userAction(
                request, scope, localId: context.parameters.get("localId") ?? "",
                action: context.parameters.get("action") ?? "", form: form)
        }
        show("/config") { pages, request, scope, _ in try await pages.config(request, scope) }
        act("/config") { pages, request, scope, _, form in try await pages.saveConfigSection(request, scope, form) }
        act("/config/test-phone-numbers") { pages, request, scope, _, form in
            try await pages.saveTestPhoneNumbers(request, scope, form)
        }
        show("/tools") { pages, request, scope, _ in pages.tools(request, scope) }
        show("/tools/export") { pages, _, scope, _ in try await pages.export(scope) }
        act("/tools/credential") { pages, request, scope, _, form in
            try await pages.mintCredential(request, scope, form)
        }
        act("/tools/import") { pages, request, scope, _, form in try await pages.importAccounts(request, scope, form) }
        act("/tools/tenant") { pages, request, scope, _, form in try await pages.createTenant(request, scope, form) }
        show("/messages") { pages, request, scope, _ in try await pages.messages(request, scope) }
        act("/messages/clear") { pages, _, scope, _, _ in
            try await pages.emulator.clearSmsMessages(scope)
            return InspectorPages.redirect(
                "\(InspectorViews.scopePath(scope))/messages", notice: "The SMS outbox is empty.")
        }
    }
}
