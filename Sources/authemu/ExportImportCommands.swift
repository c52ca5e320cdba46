import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import Foundation
import Logging

/// Options naming the database and project, shared by `export`, `import` and `reset`.
struct StoreOptions: ParsableArguments {
    @Option(help: "YAML configuration file (for data and project).") var config: String?
    @Option(help: "SQLite database file (default ./.authemu/state.sqlite).") var data: String?
    @Option(help: "Where the state lives: sqlite:PATH or postgres://user:password@host:port/database[?schema=NAME].")
    var store: String?
    @Option(help: "Project id (default demo-project).") var project: String?

    func appConfig() throws -> AppConfig {
        do {
            var flags = ConfigLayer()
            if let data { try flags.set("data", data, source: "--data") }
            if let store {
                guard data == nil else { throw ConfigError(description: "give --store or --data, not both") }
                try flags.set("store", store, source: "--store")
            }
            if let project { try flags.set("project", project, source: "--project") }
            let environment = try ConfigLayer.fromEnvironment(ProcessInfo.processInfo.environment)
            let file = try config.map(ConfigLayer.fromFile) ?? ConfigLayer()
            return flags.over(environment).over(file).appConfig()
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }

    func emulator() async throws -> (Emulator, OpenedStore, AppConfig) {
        var config = try appConfig()
        config.ephemeral = false
        let opened: OpenedStore
        do {
            opened = try await OpenedStore.open(config, logger: Logger(label: "authemu"))
        } catch {
            throw stopped("cannot open the database: \(error)")
        }
        let emulator = await Emulator(
            store: opened.store, options: EmulatorOptions(defaultProjectId: config.projectId))
        return (emulator, opened, config)
    }
}

/// `authemu export DIR`: writes one project in the firebase-tools export layout.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export a project's accounts and configuration (firebase-tools layout).")
    @Argument(help: "Directory to write (created if missing).") var directory: String
    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (emulator, store, config) = try await options.emulator()
        let export = try await emulator.exportProject(config.projectId)
        try ExportFiles.write(export, to: URL(fileURLWithPath: directory))
        await store.close()
        let count = export.accounts.values.reduce(0) { $0 + $1.count }
        print("exported \(count) account(s) of project \(config.projectId) to \(directory)")
    }
}

/// `authemu import DIR`: reads a firebase-tools (or authemu) export into the database, or with
/// `--url` into a running daemon (`POST /emulator/v1/projects/{p}:import`).
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import accounts and configuration from a firebase-tools or authemu export.")
    @Argument(help: "Export directory (containing firebase-export-metadata.json or auth_export/).") var directory:
        String
    @OptionGroup var options: StoreOptions
    @Option(
        help:
            "Load into the running daemon at this URL (http://host:port) instead of its database: accounts of the project and its tenants, and config.json."
    )
    var url: String?
    @Option(help: "Admin token sent with --url (default AUTHEMU_ADMIN_TOKEN).")
    var adminToken: String? = ProcessInfo.processInfo.environment["AUTHEMU_ADMIN_TOKEN"]

    func run() async throws {
        if let url {
            guard options.data == nil, options.store == nil else {
                throw ValidationError("give --url or --data/--store, not both")
            }
            let projectId = try options.appConfig().projectId
            let count = try ImportRunner.post(url: url, projectId: projectId, directory: directory, token: adminToken)
            print("imported \(count) account(s) into project \(projectId) at \(url)")
            return
        }
        let (emulator, store, config) = try await options.emulator()
        let count = try await ImportRunner.run(emulator, projectId: config.projectId, directory: directory)
        await store.close()
        print("imported \(count) account(s) into project \(config.projectId)")
    }
}

enum ImportRunner {
    /// Imports and turns every failure into a message for the user.
    static func run(_ emulator: Emulator, projectId: String, directory: String) async throws -> Int {
        do {
            let export = try ExportFiles.read(from: URL(fileURLWithPath: directory))
            return try await emulator.importProject(projectId, export)
        } catch let error as ExportFileError {
            throw stopped("import: \(error)")
        } catch let error as AuthError {
            throw stopped("import: \(error.message)")
        }
    }

    /// Resets the project and each of its tenants on a running daemon (`DELETE …/accounts`);
    /// answers how many scopes were reset.
    static func reset(url: String, projectId: String, token: String?) throws -> Int {
        guard let (host, port) = LoopbackHTTP.endpoint(url) else {
            throw ValidationError("--url must be http://host:port, got \(url)")
        }
        let headers = ["Authorization: Bearer \(token ?? "owner")"]
        func call(_ method: String, _ path: String) throws -> JSONValue {
            guard
                let reply = LoopbackHTTP.request(
                    method, host: host, port: port, path: path, headers: headers, timeout: .seconds(60))
            else { throw stopped("reset: cannot reach the daemon at \(url)") }
            let answer = try? JSONValue.parse(reply.body)
            guard reply.status == 200, let answer else {
                let message =
                    answer?.value(at: "error.message")?.stringValue ?? String(decoding: reply.body, as: UTF8.self)
                throw stopped("reset: \(url) answered \(reply.status) to \(method) \(path): \(message)")
            }
            return answer
        }
        var tenants: [String] = []
        var pageToken: String?
        repeat {
            var path = "/identitytoolkit.googleapis.com/v2/projects/\(projectId)/tenants?pageSize=1000"
            if let pageToken { path += "&pageToken=\(FormEncoding.encoded(pageToken))" }
            let page = try call("GET", path)
            tenants += (page["tenants"]?.arrayValue ?? []).compactMap {
                $0["name"]?.stringValue?.split(separator: "/").last.map(String.init)
            }
            pageToken = page["nextPageToken"]?.stringValue
        } while pageToken != nil
        _ = try call("DELETE", "/emulator/v1/projects/\(projectId)/accounts")
        for tenant in tenants {
            _ = try call("DELETE", "/emulator/v1/projects/\(projectId)/tenants/\(tenant)/accounts")
        }
        return tenants.count + 1
    }

    /// Sends each scope's accounts (the project's with its config.json) to a running daemon.
    static func post(url: String, projectId: String, directory: String, token: String?) throws -> Int {
        guard let (host, port) = LoopbackHTTP.endpoint(url) else {
            throw ValidationError("--url must be http://host:port, got \(url)")
        }
        let export: ProjectExport
        do {
            export = try ExportFiles.read(from: URL(fileURLWithPath: directory))
        } catch let error as ExportFileError {
            throw stopped("import: \(error)")
        }
        var scopes = export.accounts
        if scopes[nil] == nil { scopes[nil] = [] }
        var imported = 0
        for (tenantId, users) in scopes.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            var body: [String: JSONValue] = ["users": .array(users)]
            var path = "/emulator/v1/projects/\(projectId)"
            if let tenantId { path += "/tenants/\(tenantId)" } else { body["config"] = export.emulatorConfig }
            guard
                let reply = LoopbackHTTP.request(
                    "POST", host: host, port: port, path: path + ":import",
                    json: Data(JSONValue.object(body).serialized()),
                    headers: token.map { ["Authorization: Bearer \($0)"] } ?? [], timeout: .seconds(300))
            else { throw stopped("import: cannot reach the daemon at \(url)") }
            let answer = try? JSONValue.parse(reply.body)
            guard reply.status == 200, let count = answer?["importedCount"]?.doubleValue else {
                let message =
                    answer?.value(at: "error.message")?.stringValue ?? String(decoding: reply.body, as: UTF8.self)
                throw stopped("import: \(url) answered \(reply.status): \(message)")
            }
            if let refused = answer?["error"]?.arrayValue, let first = refused.first {
                throw stopped(
                    "import: \(refused.count) account(s) of \(tenantId.map { "tenant \($0)" } ?? "the project") were refused, first: \(first.jsonString())"
                )
            }
            imported += Int(count)
        }
        return imported
    }
}

/// `authemu reset`: empties a project's state (accounts, outboxes, codes), keeping its config.
struct Reset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Remove a project's accounts, SMS/APNs outboxes, email codes and faults (config and tenants are kept); with --to, then import an export."
    )
    @OptionGroup var options: StoreOptions
    @Option(help: "Then import this export directory: one call that sets a known state between tests.") var to: String?
    @Option(help: "Reset the running daemon at this URL (http://host:port) instead of its database.") var url: String?
    @Option(help: "Admin token sent with --url (default AUTHEMU_ADMIN_TOKEN).")
    var adminToken: String? = ProcessInfo.processInfo.environment["AUTHEMU_ADMIN_TOKEN"]

    func run() async throws {
        if let url {
            guard options.data == nil, options.store == nil else {
                throw ValidationError("give --url or --data/--store, not both")
            }
            let projectId = try options.appConfig().projectId
            let scopes = try ImportRunner.reset(url: url, projectId: projectId, token: adminToken)
            print("reset project \(projectId) and \(scopes - 1) tenant(s) at \(url)")
            guard let to else { return }
            let count = try ImportRunner.post(url: url, projectId: projectId, directory: to, token: adminToken)
            print("imported \(count) account(s) into project \(projectId) at \(url)")
            return
        }
        let (emulator, store, config) = try await options.emulator()
        let removed = try await emulator.resetProject(config.projectId)
        print("removed \(removed) account(s) of project \(config.projectId)")
        if let to {
            let count = try await ImportRunner.run(emulator, projectId: config.projectId, directory: to)
            print("imported \(count) account(s) into project \(config.projectId)")
        }
        await store.close()
    }
}
