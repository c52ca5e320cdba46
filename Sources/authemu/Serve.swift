import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import AuthEmulatorSQLite
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `authemu serve`: runs the daemon until SIGTERM / SIGINT.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the emulator daemon.")

    @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on (default 9099).") var port: Int?
    @Option(help: "YAML configuration file (see config/authemu.yaml).") var config: String?
    @Option(help: "SQLite database file (default ./.authemu/state.sqlite).") var data: String?
    @Flag(help: "Keep state in memory only; nothing is written to disk.") var ephemeral = false
    @Option(help: "Default project id that every API key maps to (default demo-project).") var project: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String?
    @Option(name: .customLong("import"), help: "Import a firebase-tools or authemu export directory at start.")
    var importDirectory: String?

    func run() async throws {
        let layer: ConfigLayer
        do {
            var flags = ConfigLayer()
            if let host { try flags.set("host", host, source: "--host") }
            if let port { try flags.set("port", port, source: "--port") }
            if let data { try flags.set("data", data, source: "--data") }
            if ephemeral { flags.ephemeral = true }
            if let project { try flags.set("project", project, source: "--project") }
            if let logLevel { try flags.set("log_level", logLevel, source: "--log-level") }
            let environment = try ConfigLayer.fromEnvironment(ProcessInfo.processInfo.environment)
            let file = try config.map(ConfigLayer.fromFile) ?? ConfigLayer()
            layer = flags.over(environment).over(file)
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
        let appConfig = layer.appConfig()
        var logger = Logger(label: "authemu")
        logger.logLevel = Logger.Level(rawValue: layer.logLevel ?? "info") ?? .info

        let store: SQLiteStore
        do {
            store = try openStore(appConfig)
        } catch {
            FileHandle.standardError.write(Data("authemu: cannot open the database: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if let importDirectory {
            let importer = await Emulator(
                store: store, options: EmulatorOptions(defaultProjectId: appConfig.projectId), logger: logger)
            let count = try await ImportRunner.run(importer, projectId: appConfig.projectId, directory: importDirectory)
            logger.info("imported \(count) account(s) from \(importDirectory)")
        }
        do {
            let app = try await buildApplication(config: appConfig, store: store, logger: logger)
            let location = appConfig.ephemeral ? "in memory (--ephemeral)" : appConfig.dataPath
            logger.info(
                "authemu listening on \(appConfig.host):\(appConfig.port), project \(appConfig.projectId), state \(location)"
            )
            FileHandle.standardOutput.write(
                Data("export FIREBASE_AUTH_EMULATOR_HOST=\(appConfig.host):\(appConfig.port)\n".utf8))
            let group = ServiceGroup(
                configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch let error as SeedError {
            FileHandle.standardError.write(Data("authemu: config file: \(error)\n".utf8))
            throw ExitCode(2)
        }
        try store.close()
        logger.info("authemu stopped")
    }
}
