import ArgumentParser
import AuthEmulator
import Foundation
import Logging

/// The options `serve` and `exec` share, and the configuration layers they give.
struct ServeOptions: ParsableArguments {
    @Option(help: "Address to listen on (default localhost: 127.0.0.1 and ::1).") var host: String?
    @Option(help: "Port to listen on (default 9099; 0 picks a free one).") var port: Int?
    @Option(help: "YAML configuration file (see config/authemu.yaml); default AUTHEMU_CONFIG.") var config: String?
    @Option(help: "SQLite database file (default ./.authemu/state.sqlite).") var data: String?
    @Flag(help: "Keep state in memory only; nothing is written to disk.") var ephemeral = false
    @Option(
        help: """
            Where the state lives: sqlite:PATH, or postgres://user:password@host:port/database[?schema=NAME] \
            to share it between several daemons.
            """)
    var store: String?
    @Option(help: "Default project id that every API key maps to (default demo-project).") var project: String?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel: String?
    @Option(help: "Log format: auto (journal under systemd, else text), text, json, journal.") var logFormat: String?
    @Option(help: "Token signing: none (unsigned, as firebase-tools) or rs256 (signed; keys at the JWKS URLs).")
    var tokenSigning: String?
    @Option(help: "PEM file of extra CA certificates for https:// blocking functions (self-signed test servers).")
    var functionsCaFile: String?
    @Option(
        help: """
            Where user.create/user.delete events go: the Cloud Functions emulator's host:port, or none \
            (default: firebase.json's emulators.functions, else found through the Emulator Suite hub).
            """)
    var functionsEmulator: String?
    @Option(name: .customLong("import"), help: "Import a firebase-tools or authemu export directory at start.")
    var importDirectory: String?
    @Option(
        help: """
            firebase.json to take emulators.auth.host/port and singleProjectMode from (default: the one in this \
            folder or the nearest parent, with .firebaserc's default project; 'none' reads none).
            """)
    var firebaseJson: String?

    /// The layers that do not change on reload.
    func fixedLayers() throws -> FixedLayers {
        var flags = ConfigLayer()
        if let host { try flags.set("host", host, source: "--host") }
        if let port { try flags.set("port", port, source: "--port") }
        if let data { try flags.set("data", data, source: "--data") }
        if ephemeral { flags.ephemeral = true }
        if let store {
            guard data == nil, !ephemeral else {
                throw ConfigError(description: "--store names where the state lives: give it or --data/--ephemeral")
            }
            try flags.set("store", store, source: "--store")
        }
        if let project { try flags.set("project", project, source: "--project") }
        if let logLevel { try flags.set("log_level", logLevel, source: "--log-level") }
        if let logFormat { try flags.set("log_format", logFormat, source: "--log-format") }
        if let tokenSigning { try flags.set("token_signing", tokenSigning, source: "--token-signing") }
        if let functionsCaFile { try flags.set("functions_ca_file", functionsCaFile, source: "--functions-ca-file") }
        if let functionsEmulator {
            try flags.set("functions_emulator", functionsEmulator, source: "--functions-emulator")
        }
        let firebase =
            firebaseJson == "none"
            ? FirebaseProjectFiles()
            : try FirebaseProjectFiles.discover(
                from: FileManager.default.currentDirectoryPath, explicit: firebaseJson)
        return FixedLayers(
            flags: flags, environment: try ConfigLayer.fromEnvironment(ProcessInfo.processInfo.environment),
            firebase: firebase)
    }

    /// `--import DIR`, when given: the export is loaded into the default project at start.
    func importIfAsked(into emulator: Emulator, projectId: String, logger: Logger) async throws {
        guard let directory = importDirectory else { return }
        let count = try await ImportRunner.run(emulator, projectId: projectId, directory: directory)
        logger.info("imported \(count) account(s) from \(directory)")
    }

    /// `--config`, else `AUTHEMU_CONFIG` (a container's mounted file without a command of its own).
    var configFile: String? { config ?? ProcessInfo.processInfo.environment["AUTHEMU_CONFIG"] }

    /// Every layer, the YAML file read now; a bad value becomes a usage error naming the key.
    func layers() throws -> (FixedLayers, ConfigLayer) {
        do {
            let fixed = try fixedLayers()
            return (fixed, fixed.over(file: try configFile.map(ConfigLayer.fromFile) ?? ConfigLayer()))
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }
}

/// Flags, `AUTHEMU_*` variables and firebase.json: read once at start; the YAML file goes between.
struct FixedLayers {
    var flags: ConfigLayer
    var environment: ConfigLayer
    var firebase: FirebaseProjectFiles

    /// Flags > environment > YAML file > firebase.json / .firebaserc > defaults.
    func over(file: ConfigLayer) -> ConfigLayer {
        flags.over(environment).over(file).over(firebase.layer)
    }

    /// Says which firebase-tools files were read, if any.
    func logSources(_ logger: Logger) {
        guard let json = firebase.firebaseJSON else { return }
        let rc = firebase.firebaserc.map { " and \($0)" } ?? ""
        logger.info("read \(json)\(rc) (firebase-tools project files: auth emulator host and port, project)")
    }
}
