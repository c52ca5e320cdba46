import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import AuthEmulatorSQLite
import Foundation

/// Options naming the database and project, shared by `export`, `import` and `reset`.
struct StoreOptions: ParsableArguments {
    @Option(help: "YAML configuration file (for data and project).") var config: String?
    @Option(help: "SQLite database file (default ./.authemu/state.sqlite).") var data: String?
    @Option(help: "Project id (default demo-project).") var project: String?

    func appConfig() throws -> AppConfig {
        do {
            var flags = ConfigLayer()
            if let data { try flags.set("data", data, source: "--data") }
            if let project { try flags.set("project", project, source: "--project") }
            let environment = try ConfigLayer.fromEnvironment(ProcessInfo.processInfo.environment)
            let file = try config.map(ConfigLayer.fromFile) ?? ConfigLayer()
            return flags.over(environment).over(file).appConfig()
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }

    func emulator() async throws -> (Emulator, SQLiteStore, AppConfig) {
        let config = try appConfig()
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: config.dataPath)
        } catch {
            FileHandle.standardError.write(Data("authemu: cannot open the database: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let emulator = await Emulator(store: store, options: EmulatorOptions(defaultProjectId: config.projectId))
        return (emulator, store, config)
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
        try store.close()
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
        try store.close()
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
            FileHandle.standardError.write(Data("authemu: import: \(error)\n".utf8))
            throw ExitCode(2)
        } catch let error as AuthError {
            FileHandle.standardError.write(Data("authemu: import: \(error.message)\n".utf8))
            throw ExitCode(2)
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
        try store.close()
        print("removed \(removed) account(s) of project \(config.projectId)")
    }
}
