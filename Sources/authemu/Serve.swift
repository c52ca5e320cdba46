import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import CEarlySignals
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `authemu serve`: runs the daemon until SIGTERM / SIGINT; SIGHUP reloads the config file.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the emulator daemon.")

    @OptionGroup var options: ServeOptions

    func run() async throws {
        let (fixed, layer) = try options.layers()
        var config = layer.appConfig()
        let format = LogFormat(rawValue: layer.logFormat ?? "auto") ?? .auto
        LoggingSystem.bootstrap { label in format.makeHandler(label: label) }
        LogSettings.shared.level = Logger.Level(rawValue: layer.logLevel ?? "info") ?? .info
        let logger = Logger(label: "authemu")
        fixed.logSources(logger)
        if authemu_early_sighup_ignored() == 1 { logger.debug("SIGHUP ignored until the reload handler runs") }
        MallocTuning.apply()
        let files = FileDescriptorLimit.raiseToHard()
        logger.debug("open files limit \(files.after) (was \(files.before))")
        let activated = Systemd.listenFileDescriptors()
        if config.connections.maxConnections == nil {
            let listeners = activated.isEmpty ? Listeners.addresses(for: config.host).count : activated.count
            config.connections.maxConnections = FileDescriptorLimit.connectionsPerListener(
                limit: files.after, listeners: listeners)
        }
        let appConfig = config

        let (opened, emulator) = try await Self.openStoreAndEmulator(appConfig, logger: logger)
        let store = opened.store
        try await options.importIfAsked(into: emulator, projectId: appConfig.projectId, logger: logger)
        if let name = EarlyStop.signalName {
            logger.info("\(name) during start-up: stopping before listening")
            await opened.close()
            return
        }

        let location = opened.location
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
                guard let accounts = try? await store.read({ tx in try await tx.countAllUsers() }) else { return }
                Systemd.notify("STATUS=\(status), \(accounts) accounts")
            }
        }
        var services = Listeners.services(
            config: appConfig, emulator: emulator, logger: logger, activated: activated,
            connectionExecutor: opened.connectionExecutor, onPrimaryRunning: onRunning)
        let helper = { (service: any Service) in
            ServiceGroupConfiguration.ServiceConfiguration(
                service: service, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore)
        }
        services.append(helper(StoppingNotifier()))
        services.append(
            ServiceGroupConfiguration.ServiceConfiguration(
                service: EarlyStopService(logger: logger), successTerminationBehavior: .gracefullyShutdownGroup))
        services.append(
            helper(
                ReloadService { [config = options.configFile] in
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
        file: String?, fixed: FixedLayers, emulator: Emulator, logger: Logger
    ) async {
        Systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(DispatchTime.now().uptimeNanoseconds / 1000)")
        defer { Systemd.notify("READY=1") }
        guard let file else {
            logger.info("SIGHUP: no --config file to reload")
            return
        }
        do {
            let layer = fixed.over(file: try ConfigLayer.fromFile(file))
            if let projects = layer.projects { try await emulator.applyProjectSeeds(projects) }
            LogSettings.shared.level = Logger.Level(rawValue: layer.logLevel ?? "info") ?? .info
            logger.info("SIGHUP: reloaded \(file)")
        } catch {
            logger.error("SIGHUP: \(file) was not applied, keeping the running configuration: \(error)")
        }
    }
}
