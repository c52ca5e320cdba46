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
        Scope(projectId: context.parameters.get("project") ?? "", tenantId: context.parameters.get("tenant"))
    }

    private func registerInspectorScope(_ base: String, _ pages: InspectorPages) {
        router.get(RouterPath(base + "/users")) { request, context in
            try await pages.guarded(request) { try await pages.users(request, Self.inspectorScope(context)) }
        }
        router.post(RouterPath(base + "/users")) { request, context in
            try await pages.changing(request) { form in
                try await pages.createUser(request, Self.inspectorScope(context), form)
            }
        }
        router.post(RouterPath(base + "/users/clear")) { request, context in
            try await pages.changing(request) { form in
                try await pages.clearUsers(request, Self.inspectorScope(context), form)
            }
        }
        router.get(RouterPath(base + "/users/{localId}")) { request, context in
            try await pages.guarded(request) {
                try await pages.user(
                    request, Self.inspectorScope(context), localId: context.parameters.get("localId") ?? "")
            }
        }
        router.post(RouterPath(base + "/users/{localId}/{action}")) { request, context in
            try await pages.changing(request) { form in
                try await pages.userAction(
                    request, Self.inspectorScope(context), localId: context.parameters.get("localId") ?? "",
                    action: context.parameters.get("action") ?? "", form: form)
            }
        }
        router.get(RouterPath(base + "/messages")) { request, context in
            try await pages.guarded(request) { try await pages.messages(request, Self.inspectorScope(context)) }
        }
        router.post(RouterPath(base + "/messages/clear")) { request, context in
            try await pages.changing(request) { _ in
                try await pages.emulator.clearSmsMessages(Self.inspectorScope(context))
                return InspectorPages.redirect(
                    "\(InspectorViews.scopePath(Self.inspectorScope(context)))/messages",
                    notice: "The SMS outbox is empty.")
            }
        }
    }
}
