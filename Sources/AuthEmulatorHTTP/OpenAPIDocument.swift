import AuthEmulator
import Foundation
import HTTPTypes

/// An OpenAPI 3.0 description of the routes the daemon answers: paths, methods, path parameters,
/// credentials and the error envelope. Bodies follow Google's Identity Toolkit discovery documents
/// and are not repeated here.
enum OpenAPIDocument {
    /// The production hosts the daemon serves under path prefixes. As in firebase-tools' document,
    /// paths are keyed relative to their server: `/v1/accounts:signUp` under
    /// `{publicURL}/identitytoolkit.googleapis.com` (the document's default server); the others
    /// name their server on the path.
    static let hostPrefixes = [
        "/identitytoolkit.googleapis.com", "/securetoken.googleapis.com", "/www.googleapis.com",
    ]

    /// (server prefix, path relative to it); the emulator's own paths stay under the bare daemon.
    static func split(_ path: String) -> (prefix: String, path: String) {
        for prefix in hostPrefixes where path.hasPrefix(prefix + "/") {
            return (prefix, String(path.dropFirst(prefix.count)))
        }
        return ("", path)
    }

    static func render(_ routes: [Route], publicURL: String) -> JSONValue {
        var paths: [String: [String: JSONValue]] = [:]
        let defaultPrefix = hostPrefixes[0]
        let entries = routes.filter(\.isDocumented).map { ($0, split($0.path)) }
        var prefixesByPath: [String: Set<String>] = [:]
        for (_, relative) in entries { prefixesByPath[relative.path, default: []].insert(relative.prefix) }
        for (entry, relative) in entries {
            // Two hosts with one relative path would share a key: such a path stays whole.
            let (prefix, key) = prefixesByPath[relative.path]!.count > 1 ? ("", entry.path) : relative
            if let own = servers(publicURL, prefix, defaultPrefix) { paths[key, default: [:]]["servers"] = own }
            paths[key, default: [:]][entry.method.rawValue.lowercased()] = operation(entry)
        }
        return .object([
            "openapi": "3.0.3",
            "info": .object([
                "title": "authemu: Firebase Authentication / Identity Platform emulator",
                "version": .string(BuildVersion.number),
                "description":
                    "Identity Toolkit v1/v2, legacy v3 relyingparty paths, securetoken, and the emulator's own endpoints.",
            ]),
            "servers": .array([.object(["url": .string(publicURL + defaultPrefix)])]),
            "paths": .object(paths.mapValues { JSONValue.object($0) }),
            "components": .object([
                "securitySchemes": .object([
                    "apiKey": .object(["type": "apiKey", "in": "query", "name": "key"]),
                    "apiKeyHeader": .object(["type": "apiKey", "in": "header", "name": "x-goog-api-key"]),
                    "admin": .object([
                        "type": "http", "scheme": "bearer",
                        "description": "The admin credential (`Bearer owner` unless configured otherwise).",
                    ]),
                ]),
                "schemas": .object([
                    "Error": .object([
                        "type": "object",
                        "properties": .object([
                            "error": .object([
                                "type": "object",
                                "properties": .object([
                                    "code": .object(["type": "integer"]),
                                    "message": .object(["type": "string", "description": "CODE or CODE : detail"]),
                                    "status": .object(["type": "string"]),
                                    "errors": .object(["type": "array", "items": .object(["type": "object"])]),
                                ]),
                            ])
                        ]),
                    ])
                ]),
            ]),
        ])
    }

    /// A path's own `servers`, unless it is under the document's default one.
    static func servers(_ publicURL: String, _ prefix: String, _ defaultPrefix: String) -> JSONValue? {
        prefix == defaultPrefix ? nil : .array([.object(["url": .string(publicURL + prefix)])])
    }

    static func operation(_ entry: Route) -> JSONValue {
        let method = entry.method.rawValue.lowercased()
        var operation: [String: JSONValue] = [
            "operationId": .string("\(method) \(entry.path)"),
            "tags": .array([.string(tag(entry.path))]),
            "responses": .object([
                "200": .object(["description": "The operation's JSON answer."]),
                "default": .object([
                    "description": "An error in the Identity Toolkit envelope.",
                    "content": .object([
                        "application/json": .object(["schema": .object(["$ref": "#/components/schemas/Error"])])
                    ]),
                ]),
            ]),
        ]
        let parameters = pathParameters(entry.path)
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        if let security = security(entry.access) { operation["security"] = security }
        if entry.method == .post || entry.method == .patch {
            operation["requestBody"] = .object([
                "required": false,
                "content": .object([
                    "application/json": .object(["schema": .object(["type": "object"])]),
                    "application/x-www-form-urlencoded": .object(["schema": .object(["type": "object"])]),
                ]),
            ])
        }
        return .object(operation)
    }

    static let apiKey: JSONValue = .object(["apiKey": .array([])])
    static let apiKeyHeader: JSONValue = .object(["apiKeyHeader": .array([])])

    static func security(_ access: Access) -> JSONValue? {
        switch access {
        case .client: .array([apiKey, apiKeyHeader, .object(["admin": .array([])])])
        case .apiKey: .array([apiKey, apiKeyHeader])
        case .admin: .array([.object(["admin": .array([])])])
        case .open, .ui: nil
        case .emulator, .emulatorAdmin: .array([.object([:]), .object(["admin": .array([])])])
        }
    }

    /// Every `{name}` in the path, also inside a segment (`projects/{project}:createSessionCookie`).
    static func pathParameters(_ path: String) -> [JSONValue] {
        var names: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names.map { name in
            .object([
                "name": .string(name), "in": "path", "required": true, "schema": .object(["type": "string"]),
            ])
        }
    }

    static func tag(_ path: String) -> String {
        if path.hasPrefix("/emulator") { return "emulator" }
        if path.hasPrefix("/securetoken") { return "securetoken" }
        if path.hasPrefix("/www.googleapis.com") { return "v3 (legacy)" }
        let parts = path.split(separator: "/")
        return parts.count > 1 ? "identitytoolkit \(parts[1])" : "other"
    }
}
