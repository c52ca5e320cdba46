import AuthEmulator
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The inspector's pages and actions: each reads or changes state through the domain services
/// and renders a template.
struct InspectorPages: Sendable {
    /// Where every inspector page lives.
    static let prefix = "/emulator/ui/"
    let emulator: Emulator
    let access: InspectorAccess
    let maxBodyBytes: Int

    /// Parsed on the first inspector request (a `static let` is made once, when first used).
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in InspectorTemplates.all {
            do {
                try library.register(text, named: name)
            } catch {
                preconditionFailure("inspector template \(name) does not parse: \(error)")
            }
        }
        return library
    }()

    // MARK: responses

    /// A page, with the CSRF cookie when it is new and the inspector's security headers.
    func page(_ template: String, _ values: [String: Any], request: Request, status: HTTPResponse.Status = .ok)
        -> Response
    {
        let (csrf, isNew) = InspectorAccess.csrfToken(request)
        var values = values
        values["csrf"] = csrf
        values["clock"] = InspectorViews.clockBadge(emulator.clockReading())
        let html = Self.library.render(values, withTemplate: template) ?? ""
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        if isNew { headers[.setCookie] = InspectorAccess.setCookie(InspectorAccess.csrfCookie, csrf) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static var securityHeaders: HTTPFields {
        [
            HTTPField.Name("Content-Security-Policy")!: InspectorAccess.contentSecurityPolicy,
            .cacheControl: "no-store", HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = securityHeaders
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ path: String, notice: String? = nil) -> Response {
        let target = notice.map { "\(path)?\(InspectorViews.query([("notice", $0)]))" } ?? path
        return Response(status: .seeOther, headers: [.location: target])
    }

    /// Pages need the inspector's credential off loopback: without it, the login page.
    func guarded(_ request: Request, _ body: () async throws -> Response) async throws -> Response {
        guard access.allows(request) else {
            return Self.redirect("/emulator/ui/login?\(InspectorViews.query([("next", request.uri.path)]))")
        }
        do {
            return try await body()
        } catch let error as AuthError {
            return page(
                "problem", ["title": "Problem", "heading": error.message, "error": error.message],
                request: request, status: .badRequest)
        }
    }

    /// A POST: the credential, then the CSRF token, then the action with the form's fields.
    func changing(_ request: Request, _ body: ([String: String]) async throws -> Response) async throws -> Response {
        guard access.allows(request) else {
            return page(
                "problem", ["title": "Sign in", "heading": "Sign in to the inspector first."], request: request,
                status: .forbidden)
        }
        let form = try await Self.form(request, limit: maxBodyBytes)
        guard InspectorAccess.csrfValid(request, form: form) else {
            return page(
                "problem",
                [
                    "title": "Refused", "heading": "This form has expired: reload the page and try again.",
                    "error": "CSRF token missing or wrong.",
                ], request: request, status: .forbidden)
        }
        return try await guarded(request) { try await body(form) }
    }

    static func form(_ request: Request, limit: Int) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: limit)
        return FormEncoding.fields(String(buffer: buffer))
    }

    static func base(_ scope: Scope, title: String) -> [String: Any] {
        [
            "title": title, "scopePath": InspectorViews.scopePath(scope), "scopeApi": InspectorViews.scopeApi(scope),
            "scopeLabel": InspectorViews.scopeLabel(scope),
        ]
    }

    static func notice(_ request: Request) -> String? { request.uri.queryParameters.get("notice") }

    // MARK: pages

    /// A page of projects (`?after=`), each with its first tenants; or one project's tenants
    /// (`?project=&tenantsAfter=`), paged the same way.
    func overview(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let projects: [ProjectSummary]
        let next: String?
        if let projectId = query.get("project"), !projectId.isEmpty {
            _ = try Scope.resolve(projectId: projectId, tenant: TenantSources())
            let project = try await emulator.inspectorProject(projectId, tenantsAfter: query.get("tenantsAfter"))
            projects = [project]
            next = project.moreTenantsAfter.map { Self.overviewPath([("project", projectId), ("tenantsAfter", $0)]) }
        } else {
            let page = try await emulator.inspectorProjects(after: query.get("after"))
            projects = page.projects
            next = page.nextAfter.map { Self.overviewPath([("after", $0)]) }
        }
        let values: [[String: Any]] = projects.map { project in
            let scopes = [project.project] + project.tenants
            var values: [String: Any] = [
                "projectId": project.project.scope.projectId,
                "scopes": scopes.map { summary -> [String: Any] in
                    [
                        "label": summary.scope.tenantId.map { tenant in
                            summary.displayName.map { "tenant \(tenant) (\($0))" } ?? "tenant \(tenant)"
                        } ?? "project", "users": summary.users, "pendingCodes": summary.pendingCodes,
                        "path": InspectorViews.scopePath(summary.scope),
                    ]
                },
            ]
            // Absent, not nil in an `Any`, when there are no more: a section on it would still render.
            values["moreTenants"] = project.moreTenantsAfter.map {
                Self.overviewPath([("project", project.project.scope.projectId), ("tenantsAfter", $0)])
            }
            return values
        }
        var page: [String: Any] = ["title": "Projects", "projects": values]
        page["next"] = next
        if let projectId = query.get("project"), !projectId.isEmpty {
            page["paged"] = "Tenants of \(projectId)" + (query.get("tenantsAfter").map { " after “\($0)”" } ?? "")
        } else if let after = query.get("after") {
            page["paged"] = "Projects after “\(after)”"
        }
        return self.page("overview", page, request: request)
    }

    static func overviewPath(_ items: [(String, String)]) -> String {
        "/emulator/ui/?\(InspectorViews.query(items))"
    }
}
