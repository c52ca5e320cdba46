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

/// `authemu import DIR`: reads a firebase-tools (or authemu) export into the database.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import accounts and configuration from a firebase-tools or authemu export.")
    @Argument(help: "Export directory (containing firebase-export-metadata.json or auth_export/).") var directory:
        String
    @OptionGroup var options: StoreOptions

    func run() async throws {
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
}

/// `authemu reset`: empties a project's state (accounts, outboxes, codes), keeping its config.
struct Reset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove a project's accounts, SMS/APNs outboxes and email codes (config and tenants are kept).")
    @OptionGroup var options: StoreOptions

    func run() async throws {
        let (emulator, store, config) = try await options.emulator()
        let removed = try await emulator.resetProject(config.projectId)
        await store.close()
        print("removed \(removed) account(s) of project \(config.projectId)")
    }
}
