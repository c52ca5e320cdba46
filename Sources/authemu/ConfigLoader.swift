import AuthEmulator
import AuthEmulatorHTTP
import AuthEmulatorPostgres
import Foundation
import Yams

/// Why the configuration was refused; names the key and the reason.
struct ConfigError: Error, CustomStringConvertible {
    let description: String
}

/// Settings a user can give; each layer fills what the one above left unset.
/// Precedence: flags > `AUTHEMU_*` environment > YAML file > defaults.
struct ConfigLayer {
    var host: String?
    var port: Int?
    var project: String?
    var data: String?
    var ephemeral: Bool?
    /// `sqlite:PATH` or `postgres://…` (the long form of `data`).
    var store: String?
    var adminToken: String?
    var maxBodyBytes: Int?
    var headerTimeoutSeconds: Int?
    var bodyTimeoutSeconds: Int?
    var idleTimeoutSeconds: Int?
    var maxConnections: Int?
    var maxUnreadAnswerBytes: Int?
    var maxPendingBodyBytes: Int?
    var publicURL: String?
    var logLevel: String?
    var logFormat: String?
    var shutdownTimeoutSeconds: Int?
    var tokenSigning: TokenSigning?
    var functionsCAFile: String?
    var singleProject: SingleProjectMode?
    /// `none`, or the Functions emulator's origin (`http://host:port`), and which layer gave it.
    var functionsEmulator: String?
    var functionsEmulatorSource: String?
    /// Per-project settings (file only), in the v2 Config / Tenant JSON shapes.
    var projects: JSONValue?

    /// Every key the file and the environment accept (environment: `AUTHEMU_` + upper case).
    static let keys = [
        "host", "port", "project", "data", "ephemeral", "store", "admin_token", "max_body_bytes",
        "header_timeout_seconds", "body_timeout_seconds", "idle_timeout_seconds", "max_connections",
        "max_unread_answer_bytes", "max_pending_body_bytes", "public_url",
        "log_level",
        "log_format", "shutdown_timeout_seconds", "token_signing", "functions_ca_file", "single_project",
        "functions_emulator",
    ]

    mutating func set(_ key: String, _ value: Any, source: String) throws {
        func string() throws -> String {
            if let text = value as? String { return text }
            if let number = value as? Int { return String(number) }
            throw ConfigError(description: "\(source): key '\(key)' must be a string")
        }
        func integer(_ range: ClosedRange<Int>) throws -> Int {
            let parsed = (value as? Int) ?? (value as? String).flatMap { Int($0) }
            guard let parsed, range.contains(parsed) else {
                throw ConfigError(
                    description:
                        "\(source): key '\(key)' must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(value)'"
                )
            }
            return parsed
        }
        func boolean() throws -> Bool {
            if let flag = value as? Bool { return flag }
            switch (value as? String)?.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default:
                throw ConfigError(description: "\(source): key '\(key)' must be true or false, got '\(value)'")
            }
        }
        switch key {
        case "host": host = try string()
        case "port": port = try integer(0...65535)
        case "project":
            let id = try string()
            guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw ConfigError(
                    description: "\(source): key 'project' must be a project id (letters, digits, '-'), got '\(id)'")
            }
            project = id
        case "data": data = try string()
        case "ephemeral": ephemeral = try boolean()
        case "store": store = try Self.storeLocation(try string(), source: source)
        case "admin_token":
            let token = try string()
            guard !token.isEmpty else {
                throw ConfigError(description: "\(source): key 'admin_token' must not be empty")
            }
            adminToken = token
        case "max_body_bytes": maxBodyBytes = try integer(1024...1_073_741_824)
        case "header_timeout_seconds": headerTimeoutSeconds = try integer(1...3600)
        case "body_timeout_seconds": bodyTimeoutSeconds = try integer(1...3600)
        case "idle_timeout_seconds": idleTimeoutSeconds = try integer(1...3600)
        case "max_connections": maxConnections = try integer(16...10_000_000)
        case "max_unread_answer_bytes": maxUnreadAnswerBytes = try integer(65536...(1 << 40))
        case "max_pending_body_bytes": maxPendingBodyBytes = try integer(65536...(1 << 40))
        case "log_format":
            let format = try string().lowercased()
            guard LogFormat(rawValue: format) != nil else {
                throw ConfigError(description: "\(source): key 'log_format' must be one of auto, text, json, journal")
            }
            logFormat = format
        case "shutdown_timeout_seconds": shutdownTimeoutSeconds = try integer(0...3600)
        case "token_signing":
            let name = try string().lowercased()
            guard let signing = TokenSigning(rawValue: name) else {
                throw ConfigError(description: "\(source): key 'token_signing' must be none or rs256, got '\(name)'")
            }
            tokenSigning = signing
        case "public_url": publicURL = try string()
        case "functions_ca_file": functionsCAFile = try string()
        case "single_project": singleProject = try Self.singleProjectMode(value, source: source)
        case "functions_emulator":
            functionsEmulator = try Self.functionsEmulatorOrigin(try string(), source: source)
            functionsEmulatorSource = source
        case "log_level": logLevel = try Self.logLevel(try string(), source: source)
        default:
            throw ConfigError(
                description: "\(source): unknown key '\(key)' (known: \(Self.keys.joined(separator: ", ")))")
        }
    }

    static func logLevel(_ text: String, source: String) throws -> String {
        let level = text.lowercased()
        guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(level) else {
            throw ConfigError(
                description:
                    "\(source): key 'log_level' must be one of trace, debug, info, notice, warning, error, critical")
        }
        return level
    }

    /// `none`, or the origin of `host:port`, `[v6]:port` or `http://host:port`.
    static func functionsEmulatorOrigin(_ text: String, source: String) throws -> String {
        guard let origin = text == "none" ? "none" : FunctionsEmulatorAddress.origin(text) else {
            throw ConfigError(
                description:
                    "\(source): key 'functions_emulator' must be host:port, http://host:port or none, got '\(text)'")
        }
        return origin
    }

    /// off, warn or error; YAML 1.1 reads a bare `off` as false (and `on` as true).
    static func singleProjectMode(_ value: Any, source: String) throws -> SingleProjectMode {
        let text = (value as? Bool).map { $0 ? "warn" : "off" } ?? (value as? String)?.lowercased()
        guard let text, let mode = SingleProjectMode(rawValue: text) else {
            throw ConfigError(description: "\(source): key 'single_project' must be one of off, warn, error")
        }
        return mode
    }

    /// `sqlite:PATH`, or a PostgreSQL URL checked now, so a bad one stops start-up naming the key.
    static func storeLocation(_ text: String, source: String) throws -> String {
        if text.hasPrefix("sqlite:") {
            guard text.count > "sqlite:".count else {
                throw ConfigError(description: "\(source): key 'store' needs a path after sqlite:")
            }
            return text
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw ConfigError(
                description: "\(source): key 'store' must be sqlite:PATH or postgres://user:password@host:port/database"
            )
        }
        do {
            _ = try PostgresStoreURL(text)
        } catch {
            throw ConfigError(description: "\(source): key 'store': \(error)")
        }
        return text
    }

    static func fromFile(_ path: String) throws -> ConfigLayer {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigError(description: "config file \(path): cannot be read")
        }
        let parsed: Any?
        do {
            parsed = try Yams.load(yaml: text)
        } catch {
            throw ConfigError(description: "config file \(path): not valid YAML (\(error))")
        }
        var layer = ConfigLayer()
        guard let parsed else { return layer }
        guard let map = parsed as? [String: Any] else {
            throw ConfigError(description: "config file \(path): the top level must be a mapping of keys")
        }
        for (key, value) in map.sorted(by: { $0.key < $1.key }) {
            if key == "projects" {
                layer.projects = try yamlToJSON(value, path: "projects", file: path)
                continue
            }
            try layer.set(key, value, source: "config file \(path)")
        }
        return layer
    }

    static func fromEnvironment(_ environment: [String: String]) throws -> ConfigLayer {
        var layer = ConfigLayer()
        for key in keys {
            if let value = environment["AUTHEMU_" + key.uppercased()] {
                try layer.set(key, value, source: "environment AUTHEMU_\(key.uppercased())")
            }
        }
        return layer
    }

    /// Fills unset fields from a lower-precedence layer.
    func over(_ lower: ConfigLayer) -> ConfigLayer {
        ConfigLayer(
            host: host ?? lower.host, port: port ?? lower.port, project: project ?? lower.project,
            // Where the state lives is one setting: a layer that names it (data, ephemeral or store) wins whole.
            data: namesStore ? data : lower.data, ephemeral: namesStore ? ephemeral : lower.ephemeral,
            store: namesStore ? store : lower.store,
            adminToken: adminToken ?? lower.adminToken,
            maxBodyBytes: maxBodyBytes ?? lower.maxBodyBytes,
            headerTimeoutSeconds: headerTimeoutSeconds ?? lower.headerTimeoutSeconds,
            bodyTimeoutSeconds: bodyTimeoutSeconds ?? lower.bodyTimeoutSeconds,
            idleTimeoutSeconds: idleTimeoutSeconds ?? lower.idleTimeoutSeconds,
            maxConnections: maxConnections ?? lower.maxConnections,
            maxUnreadAnswerBytes: maxUnreadAnswerBytes ?? lower.maxUnreadAnswerBytes,
            maxPendingBodyBytes: maxPendingBodyBytes ?? lower.maxPendingBodyBytes,
            publicURL: publicURL ?? lower.publicURL,
            logLevel: logLevel ?? lower.logLevel, logFormat: logFormat ?? lower.logFormat,
            shutdownTimeoutSeconds: shutdownTimeoutSeconds ?? lower.shutdownTimeoutSeconds,
            tokenSigning: tokenSigning ?? lower.tokenSigning, functionsCAFile: functionsCAFile ?? lower.functionsCAFile,
            singleProject: singleProject ?? lower.singleProject,
            functionsEmulator: functionsEmulator ?? lower.functionsEmulator,
            functionsEmulatorSource: functionsEmulator != nil ? functionsEmulatorSource : lower.functionsEmulatorSource,
            projects: projects ?? lower.projects)
    }

    var namesStore: Bool { data != nil || ephemeral != nil || store != nil }

    func appConfig() -> AppConfig {
        var config = AppConfig()
        if let host { config.host = host }
        if let port { config.port = port }
        if let project { config.projectId = project }
        if let data { config.dataPath = data }
        if let ephemeral { config.ephemeral = ephemeral }
        if let store, store.hasPrefix("sqlite:") {
            config.dataPath = String(store.dropFirst("sqlite:".count))
        } else if let store {
            config.storeURL = store
        }
        if let adminToken { config.adminToken = adminToken }
        if let maxBodyBytes { config.maxBodyBytes = maxBodyBytes }
        if let headerTimeoutSeconds { config.connections.headerTimeout = .seconds(Int64(headerTimeoutSeconds)) }
        if let bodyTimeoutSeconds { config.connections.bodyTimeout = .seconds(Int64(bodyTimeoutSeconds)) }
        if let idleTimeoutSeconds { config.connections.idleTimeout = .seconds(Int64(idleTimeoutSeconds)) }
        config.connections.maxConnections = maxConnections
        if let maxUnreadAnswerBytes { config.connections.maxUnreadAnswerBytes = maxUnreadAnswerBytes }
        if let maxPendingBodyBytes { config.connections.maxPendingBodyBytes = maxPendingBodyBytes }
        config.publicURL = publicURL
        config.projects = projects
        if let tokenSigning { config.tokenSigning = tokenSigning }
        config.functionsCAFile = functionsCAFile
        if let singleProject { config.singleProjectMode = singleProject }
        if let functionsEmulator {
            config.functionsEmulator =
                functionsEmulator == "none"
                ? .none
                : .fixed(
                    FunctionsEmulatorAddress(
                        origin: functionsEmulator,
                        foundThrough: "from " + (functionsEmulatorSource ?? "the configuration")))
        }
        return config
    }
}

/// YAML values as JSON (numbers, strings, booleans, sequences, mappings).
func yamlToJSON(_ value: Any, path: String, file: String) throws -> JSONValue {
    switch value {
    case let text as String: return .string(text)
    case let flag as Bool: return .bool(flag)
    case let number as Int: return .number(Double(number))
    case let number as Double: return .number(number)
    case let list as [Any]:
        return .array(try list.enumerated().map { try yamlToJSON($1, path: "\(path)[\($0)]", file: file) })
    case let map as [String: Any]:
        var object: [String: JSONValue] = [:]
        for (key, child) in map { object[key] = try yamlToJSON(child, path: "\(path).\(key)", file: file) }
        return .object(object)
    case is NSNull: return .null
    default:
        throw ConfigError(description: "config file \(file): key '\(path)' has an unsupported value \(value)")
    }
}
