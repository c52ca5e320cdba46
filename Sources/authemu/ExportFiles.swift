import AuthEmulator
import Foundation

/// Reads and writes the firebase-tools export layout:
/// `firebase-export-metadata.json`, `auth_export/accounts.json`, `accounts-<tenant>.json`,
/// `config.json`, plus authemu's `authemu-config.json` and `authemu-tenants.json`.
enum ExportFiles {
    static func write(_ export: ProjectExport, to directory: URL) throws {
        let auth = directory.appendingPathComponent("auth_export")
        try FileManager.default.createDirectory(at: auth, withIntermediateDirectories: true)
        let version = "authemu-1"
        try save(
            .object([
                "version": .string(version), "auth": .object(["version": .string(version), "path": "auth_export"]),
            ]),
            directory.appendingPathComponent("firebase-export-metadata.json"))
        for (tenant, users) in export.accounts {
            let name = tenant.map { "accounts-\($0).json" } ?? "accounts.json"
            try save(
                .object(["kind": "identitytoolkit#DownloadAccountResponse", "users": .array(users)]),
                auth.appendingPathComponent(name))
        }
        try save(export.emulatorConfig, auth.appendingPathComponent("config.json"))
        if let config = export.projectConfig { try save(config, auth.appendingPathComponent("authemu-config.json")) }
        if !export.tenants.isEmpty {
            try save(.object(export.tenants), auth.appendingPathComponent("authemu-tenants.json"))
        }
    }

    static func read(from directory: URL) throws -> ProjectExport {
        var auth = directory.appendingPathComponent("auth_export")
        let metadata = directory.appendingPathComponent("firebase-export-metadata.json")
        if let data = try? Data(contentsOf: metadata),
            let path = (try? JSONValue.parse(data))?.value(at: "auth.path")?.stringValue
        {
            auth = directory.appendingPathComponent(path)
        }
        guard FileManager.default.fileExists(atPath: auth.path) else {
            throw ExportFileError("\(directory.path) has no auth export (expected \(auth.path))")
        }
        var export = ProjectExport()
        for name in try FileManager.default.contentsOfDirectory(atPath: auth.path).sorted() {
            let file = auth.appendingPathComponent(name)
            if name == "accounts.json" || (name.hasPrefix("accounts-") && name.hasSuffix(".json")) {
                let tenant =
                    name == "accounts.json" ? nil : String(name.dropFirst("accounts-".count).dropLast(".json".count))
                export.accounts[tenant] = try load(file)["users"]?.arrayValue ?? []
            } else if name == "config.json" {
                export.emulatorConfig = try load(file)
            } else if name == "authemu-config.json" {
                export.projectConfig = try load(file)
            } else if name == "authemu-tenants.json" {
                export.tenants = try load(file).objectValue ?? [:]
            }
        }
        return export
    }

    private static func save(_ value: JSONValue, _ url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(value).write(to: url, options: .atomic)
    }

    private static func load(_ url: URL) throws -> JSONValue {
        do {
            return try JSONValue.parse(try Data(contentsOf: url))
        } catch {
            throw ExportFileError("\(url.path) is not valid JSON")
        }
    }
}

struct ExportFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
