import AuthEmulator
import Foundation
import HTTPTypes
import Testing

@testable import AuthEmulatorHTTP

/// The admin gate, generated from the route table: every route gets the same hostile requests (no
/// credential, an API key alone, an API key naming another project or tenant in every JSON shape,
/// a wrong bearer, the default bearer while a token of one's own is set, a page of another
/// origin), and each answer is the gate's. A route added later is covered without a new test.
@Suite("Credential gate over every route")
struct CredentialGateTests {
    static let missingKey = "The request is missing a valid API key."
    static let namesProject = "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."
    static let invalidCredentials =
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."

    /// Every route's path with its parameters written out.
    static func path(_ route: Route) -> String {
        route.path.replacingOccurrences(of: "{project}", with: "example").replacingOccurrences(
            of: "{tenant}", with: "t1"
        )
        .replacingOccurrences(of: "{config}", with: "oidc.c1").replacingOccurrences(of: "{localId}", with: "u1")
        .replacingOccurrences(of: "{action}", with: "disable")
    }

    static var apiRoutes: [Route] {
        routeTable.filter { route in
            switch route.handler {
            case .api, .text, .listing: true
            default: false
            }
        }
    }

    /// Whether the gate refused: its answers are 401, 403, or `INSUFFICIENT_PERMISSION`.
    static func refusedByGate(_ reply: Harness.Reply) -> Bool {
        reply.status == 401 || reply.status == 403 || reply.errorMessage == namesProject
    }

    /// The shapes a scope-widening member can take.
    static let shapes: [(String, String)] = [
        ("a string", #""other-project""#), ("an empty string", #""""#), ("a number", "0"), ("null", "null"),
        ("an object", "{}"), ("a list", "[]"), ("true", "true"),
    ]

    @Test("no credential: client, API-key and admin routes answer 403 before any handler")
    func noCredential() async throws {
        try await Harness().run { client in
            for route in Self.apiRoutes {
                let reply = try await client.call(
                    route.method, Self.path(route), route.method == .get ? nil : "{}", key: false)
                switch route.access {
                case .client, .apiKey, .admin:
                    #expect(
                        reply.status == 403 && reply.errorMessage == Self.missingKey,
                        "\(route.method) \(route.path): \(reply.json)")
                default:
                    #expect(!Self.refusedByGate(reply), "\(route.method) \(route.path): \(reply.json)")
                }
            }
        }
    }

    @Test("an API key alone: admin routes answer INSUFFICIENT_PERMISSION, the others pass the gate")
    func apiKeyOnly() async throws {
        try await Harness().run { client in
            for route in Self.apiRoutes {
                let reply = try await client.call(route.method, Self.path(route), route.method == .get ? nil : "{}")
                if route.access == .admin {
                    #expect(
                        reply.status == 400 && reply.errorMessage == Self.namesProject, "\(route.path): \(reply.json)")
                } else {
                    #expect(!Self.refusedByGate(reply), "\(route.method) \(route.path): \(reply.json)")
                }
            }
        }
    }

    @Test(
        "an API key naming a project, in any JSON shape or in the query, is refused on every API route that takes one")
    func targetProjectWithoutAdmin() async throws {
        let harness = try Harness()
        try await harness.run { client in
            try await client.signUp("victim@example.com").ok()
            for route in Self.apiRoutes where [.client, .apiKey, .admin].contains(route.access) {
                let path = Self.path(route)
                if route.method == .get {
                    for value in ["other-project", ""] {
                        let reply = try await client.call(route.method, "\(path)?targetProjectId=\(value)")
                        #expect(
                            reply.status == 400 && reply.errorMessage == Self.namesProject,
                            "\(route.path) ?\(value): \(reply.json)")
                    }
                    continue
                }
                for (shape, value) in Self.shapes {
                    let reply = try await client.call(
                        route.method, path, #"{"targetProjectId": \#(value), "maxResults": -1}"#)
                    #expect(
                        reply.status == 400 && reply.errorMessage == Self.namesProject,
                        "\(route.path) with \(shape): \(reply.json)")
                    #expect(reply["users"] == nil)
                }
            }
            // Nothing was read or changed: the victim still signs in with the password it had.
            let signIn = try await client.v1(
                "accounts:signInWithPassword", ["email": "victim@example.com", "password": "secret123"])
            #expect(signIn.status == 200)
        }
    }

    @Test("the admin's targetProjectId is a string or nothing; a tenantId is a string or null, for everyone")
    func memberShapes() async throws {
        try await Harness().run { client in
            let download = "/www.googleapis.com/identitytoolkit/v3/relyingparty/downloadAccount"
            for (shape, value) in Self.shapes {
                let reply = try await client.call(.post, download, #"{"targetProjectId": \#(value)}"#, admin: true)
                switch value {
                case #""other-project""#, #""""#, "null":
                    #expect(reply.status == 200, "\(shape): \(reply.json)")
                default:
                    #expect(reply.status == 400, "\(shape): \(reply.json)")
                    #expect(
                        reply.errorMessage
                            == "Invalid JSON payload received. Invalid value at 'target_project_id' (TYPE_STRING).")
                }
            }
            for route in Self.apiRoutes where route.method != .get && [.client, .apiKey].contains(route.access) {
                for (shape, value) in Self.shapes where !["null", #""other-project""#, #""""#].contains(value) {
                    let reply = try await client.call(route.method, Self.path(route), #"{"tenantId": \#(value)}"#)
                    #expect(reply.status == 400, "\(route.path) tenantId \(shape): \(reply.json)")
                    #expect(
                        reply.errorMessage
                            == "Invalid JSON payload received. Invalid value at 'tenant_id' (TYPE_STRING).",
                        "\(route.path)")
                }
            }
        }
    }

    @Test("a wrong bearer is 401 on every API route; so is `Bearer owner` while a token of one's own is set")
    func wrongBearer() async throws {
        for (token, sent) in [("owner", "Bearer not-the-token"), ("s3cret-Admin", "Bearer owner")] {
            try await Harness(adminToken: token).run { client in
                for route in Self.apiRoutes {
                    let reply = try await client.call(
                        route.method, Self.path(route), route.method == .get ? nil : "{}",
                        headers: [.authorization: sent])
                    #expect(
                        reply.status == 401 && reply.errorMessage == Self.invalidCredentials,
                        "\(sent) \(route.path): \(reply.json)")
                }
            }
        }
    }

    @Test("a page of another origin reaches only the browser SDKs' routes, without credentials")
    func foreignOrigin() async throws {
        try await Harness().run { client in
            for route in routeTable {
                let reply = try await client.call(
                    route.method, Self.path(route), route.method == .get ? nil : "{}", admin: true,
                    headers: [.origin: "https://evil.example"])
                let browserRoute = route.access == .client || route.access == .apiKey
                if browserRoute {
                    #expect(
                        reply.status != 403 || reply.errorMessage == Self.missingKey, "\(route.path): \(reply.json)")
                    #expect(reply.headers[.accessControlAllowOrigin] == "https://evil.example")
                    #expect(reply.headers[.accessControlAllowCredentials] == nil)
                } else {
                    #expect(reply.status == 403, "\(route.method) \(route.path): \(reply.json)")
                    #expect(reply.json.value(at: "error.status")?.stringValue == "PERMISSION_DENIED", "\(route.path)")
                }
            }
        }
    }

    @Test("the inspector resolves ids by the API's rule: a refused id is 400 and creates nothing")
    func inspectorIds() async throws {
        let harness = try Harness()
        try await harness.run { client in
            for id in ["a%00b", "a%2Fb", "a%20b", String(repeating: "p", count: 101)] {
                for path in ["/emulator/ui/projects/\(id)/users", "/emulator/ui/projects/example/tenants/\(id)/users"] {
                    let reply = try await client.call(.get, path, key: false)
                    #expect(reply.status == 400, "\(path): \(reply.status)")
                    let page = reply.json.stringValue ?? ""
                    #expect(
                        page.contains(#"data-testid="error">INVALID_PROJECT_ID : "#)
                            || page.contains(#"data-testid="error">INVALID_TENANT_ID : "#), "\(path)")
                }
            }
        }
        #expect(try await harness.store.read { tx in try await tx.countAllUsers() } == 0)
    }
}

/// docs/security.md's table of every route's credential is the route table's: this test renders
/// it and compares (`AUTHEMU_WRITE_DOCS=1 swift test --filter RouteCredentialDocs` writes it).
@Suite("Route credential table in docs/security.md")
struct RouteCredentialDocs {
    static let begin = "<!-- route-credentials: generated from RouteTable.swift by CredentialGateTests -->"
    static let end = "<!-- end of route-credentials -->"

    static func words(_ access: Access) -> String {
        switch access {
        case .client: "client: an API key (the admin credential adds powers)"
        case .apiKey: "client: an API key"
        case .admin: "admin: `Bearer <admin_token>`"
        case .open: "public"
        case .emulator: "emulator API (see above)"
        case .emulatorAdmin: "emulator API, the admin's off loopback"
        case .ui: "page: the inspector's session"
        }
    }

    static func table() -> String {
        var lines = [begin, "", "| method | path | credential |", "|---|---|---|"]
        for route in routeTable {
            lines.append("| \(route.method.rawValue) | `\(route.path)` | \(words(route.access)) |")
        }
        return (lines + ["", end]).joined(separator: "\n")
    }

    @Test("docs/security.md lists every route with the credential its line in the route table declares")
    func tableIsCurrent() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/security.md")
        var text = try String(contentsOf: url, encoding: .utf8)
        guard let start = text.range(of: Self.begin), let stop = text.range(of: Self.end) else {
            Issue.record("docs/security.md has no generated route table")
            return
        }
        let current = String(text[start.lowerBound..<stop.upperBound])
        if ProcessInfo.processInfo.environment["AUTHEMU_WRITE_DOCS"] == "1" {
            text.replaceSubrange(start.lowerBound..<stop.upperBound, with: Self.table())
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(current == Self.table(), "run AUTHEMU_WRITE_DOCS=1 swift test --filter RouteCredentialDocs")
    }
}
