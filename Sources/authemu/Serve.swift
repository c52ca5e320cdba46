import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `authemu serve`: runs the daemon until SIGTERM / SIGINT; SIGHUP reloads the config file.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the emulator daemon.")

    @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on (default 9099; 0 picks a free one).") var port: Int?
    @Option(help: "YAML configuration file (see config/authemu.yaml).") var config: String?
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
    @Option(name: .customLong("import"), help: "Import a firebase-tools or authemu export directory at start.")
    var importDirectory: String?

    /// The layers that do not change on reload.
    func fixedLayers() throws -> (flags: ConfigLayer, environment: ConfigLayer) {
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
        return (flags, try ConfigLayer.fromEnvironment(ProcessInfo.processInfo.environment))
    }

    func run() async throws {
        let layer: ConfigLayer
        let fixed: (flags: ConfigLayer, environment: ConfigLayer)
        do {
            fixed = try fixedLayers()
            layer = fixed.flags.over(fixed.environment).over(try config.map(ConfigLayer.fromFile) ?? ConfigLayer())
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
        let appConfig = layer.appConfig()
        let format = LogFormat(rawValue: layer.logFormat ?? "auto") ?? .auto
        LoggingSystem.bootstrap { label in format.makeHandler(label: label) }
        LogSettings.shared.level = Logger.Level(rawValue: layer.logLevel ?? "info") ?? .info
        let logger = Logger(label: "authemu")

        let (opened, emulator) = try await Self.openStoreAndEmulator(appConfig, logger: logger)
        let store = opened.store
        if let importDirectory {
            let count = try await ImportRunner.run(emulator, projectId: appConfig.projectId, directory: importDirectory)
            logger.info("imported \(count) account(s) from \(importDirectory)")
        }

        let location = opened.location
        let activated = Systemd.listenFileDescriptors()
        let listening = ListeningAddress()
        let onRunning: @Sendable (any Channel) async -> Void = { channel in
            let host = channel.localAddress?.ipAddress ?? appConfig.host
            let port = channel.localAddress?.port ?? appConfig.port
            listening.value = (host, port)
            let how = activated.isEmpty ? "" : " (socket activation)"
            logger.info("authemu listening on \(host):\(port)\(how), project \(appConfig.projectId), state \(location)")
            if let warning = ListenerExposure.warning(boundTo: host, port: port, adminToken: appConfig.adminToken) {
                logger.warning("\(warning)")
            }
            FileHandle.standardOutput.write(Data(ListenerExposure.exportLines(boundTo: host, port: port).utf8))
            // The store is open and the listener accepts connections: only now are we ready. The
            // account count (a scan of the users' key: ~15 ms per million, more from a cold disk)
            // follows in a second status, so start-up does not grow with the database.
            let status = "Listening on \(host):\(port), project \(appConfig.projectId)"
            Systemd.notify("READY=1\nSTATUS=\(status)")
            Task(priority: .background) {
                guard let accounts = try? await store.read({ tx in try tx.countAllUsers() }) else { return }
                Systemd.notify("STATUS=\(status), \(accounts) accounts")
            }
        }
        var services = Listeners.services(
            config: appConfig, emulator: emulator, logger: logger, activated: activated, onPrimaryRunning: onRunning)
        let helper = { (service: any Service) in
            ServiceGroupConfiguration.ServiceConfiguration(
                service: service, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore)
        }
        services.append(helper(StoppingNotifier()))
        services.append(
            helper(
                ReloadService { [config] in
                    await Self.reload(file: config, fixed: fixed, emulator: emulator, logger: logger)
                }))
        if let interval = Systemd.watchdogInterval {
            services.append(helper(WatchdogService(interval: interval, address: listening, logger: logger)))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(layer.shutdownTimeoutSeconds ?? 10)
        try await ServiceGroup(configuration: groupConfiguration).run()
        await opened.close()
        logger.info("authemu stopped")
    }

    /// The store and the emulator on it; a database, config file or CA file that cannot be used
    /// stops start-up (exit 2) with a message.
    static func openStoreAndEmulator(_ appConfig: AppConfig, logger: Logger) async throws -> (OpenedStore, Emulator) {
        let opened: OpenedStore
        do {
            opened = try await OpenedStore.open(appConfig, logger: logger)
        } catch {
            throw stopped("cannot open the database: \(error)")
        }
        do {
            return (opened, try await makeEmulator(config: appConfig, store: opened.store, logger: logger))
        } catch let error as SeedError {
            throw stopped("config file: \(error)")
        } catch let error as FunctionsCAFileError {
            throw stopped("\(error)")
        }
    }

    /// Re-reads the file; applies project settings and the log level, or keeps the old ones.
    static func reload(
        file: String?, fixed: (flags: ConfigLayer, environment: ConfigLayer), emulator: Emulator, logger: Logger
    ) async {
        Systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(DispatchTime.now().uptimeNanoseconds / 1000)")
        defer { Systemd.notify("READY=1") }
        guard let file else {
            logger.info("SIGHUP: no --config file to reload")
            return
        }
        do {
            let layer = fixed.flags.over(fixed.environment).over(try ConfigLayer.fromFile(file))
            if let projects = layer.projects { try await emulator.applyProjectSeeds(projects) }
            LogSettings.shared.level = Logger.Level(rawValue: layer.logLevel ?? "info") ?? .info
            logger.info("SIGHUP: reloaded \(file)")
        } catch {
            logger.error("SIGHUP: \(file) was not applied, keeping the running configuration: \(error)")
        }
    }
}
