import AuthEmulator
import Foundation
import Hummingbird

/// `/emulator/ui`: the inspector, another adapter over the domain (the services the REST routes
/// call; no rule or SQL of its own). Pages of a scope are under `projects/{project}` or
/// `projects/{project}/tenants/{tenant}`; every change is a POST with the page's CSRF token
/// (`RouteHandler.inspectorAction`).
enum InspectorHandlers {
    static func overview(_ request: PageRequest) async throws -> Response {
        try await request.inspector.overview(request.request)
    }

    static func stylesheet(_ request: PageRequest) async throws -> Response {
        InspectorPages.asset(InspectorAssets.css, type: "text/css; charset=utf-8")
    }

    static func script(_ request: PageRequest) async throws -> Response {
        InspectorPages.asset(InspectorAssets.script, type: "text/javascript; charset=utf-8")
    }

    static func loginPage(_ request: PageRequest) async throws -> Response {
        request.inspector.loginPage(request.request, next: request.query.get("next"))
    }

    static func login(_ request: PageRequest) async throws -> Response {
        try await request.inspector.login(request.request)
    }

    static func users(_ request: PageRequest) async throws -> Response {
        try await request.inspector.users(request.request, request.inspectorScope)
    }

    static func user(_ request: PageRequest) async throws -> Response {
        try await request.inspector.user(request.request, request.inspectorScope, localId: request.parameter("localId"))
    }

    static func userAction(_ request: PageRequest, _ form: [String: String]) async throws -> Response {
        try await request.inspector.userAction(
            request.request, request.inspectorScope, localId: request.parameter("localId"),
            action: request.parameter("action"), form: form)
    }

    static func config(_ request: PageRequest) async throws -> Response {
        try await request.inspector.config(request.request, request.inspectorScope)
    }

    static func tools(_ request: PageRequest) async throws -> Response {
        try request.inspector.tools(request.request, request.inspectorScope)
    }

    static func export(_ request: PageRequest) async throws -> Response {
        try await request.inspector.export(request.inspectorScope)
    }

    static func clearMessages(_ request: PageRequest, _ form: [String: String]) async throws -> Response {
        let scope = try request.inspectorScope
        try await request.emulator.clearSmsMessages(scope)
        return InspectorPages.redirect(
            "\(InspectorViews.scopePath(scope))/messages", notice: "The SMS outbox is empty.")
    }
}
