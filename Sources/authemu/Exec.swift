import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// `authemu exec -- COMMAND`: what `firebase emulators:exec --only auth COMMAND` does. A daemon
/// (in memory unless a store is named; on a free port unless one is given) starts, COMMAND runs
/// once it is ready with `FIREBASE_AUTH_EMULATOR_HOST` and `GCLOUD_PROJECT` set, and its exit
/// status becomes this command's. The daemon's log goes to a file, kept when COMMAND fails.
struct Exec: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start a daemon, run a command against it, stop the daemon; exit with the command's status.",
        discussion: """
            authemu exec [serve options] [--import DIR] [--export-on-exit DIR] -- COMMAND [ARGS...]
            One argument with a space in it runs through /bin/sh -c, as firebase emulators:exec "npm test" does.
            """)

    @OptionGroup var options: ServeOptions
    @Option(help: "Export the default project to this directory after COMMAND ends (firebase-tools layout).")
    var exportOnExit: String?
    @Option(help: "Write the daemon's log here (default: a new file in the temporary directory, removed on success).")
    var logFile: String?
    @Argument(parsing: .captureForPassthrough, help: "The command to run, after --.")
    var command: [String] = []

    func validate() throws {
        guard !commandLine.isEmpty else { throw ValidationError("give the command to run after --") }
    }

    /// The command without the `--` that ends the options.
    var commandLine: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

    func run() async throws {
        let (fixed, given) = try options.layers()
        var layer = Self.execDefaults(given)
        if layer.project == nil, let project = Self.firebaseEmulatorsProject(commandLine) {
            // The wrapped firebase-tools runs its Functions emulator (and hub) as this project.
            do {
                try layer.set("project", project, source: "the wrapped firebase command's --project")
            } catch let error as ConfigError {
                throw ValidationError(error.description)
            }
        }
        let appConfig = layer.appConfig()
        let log = try ExecLog.open(path: logFile)
        let format = LogFormat(rawValue: given.logFormat ?? "text") ?? .text
        LoggingSystem.bootstrap { label in (format == .auto ? LogFormat.text : format).makeHandler(label: label) }
        LogSettings.shared.level = Logger.Level(rawValue: given.logLevel ?? "info") ?? .info
        LogSettings.shared.output = log.handle
        let logger = Logger(label: "authemu")
        fixed.logSources(logger)

        let (opened, emulator): (OpenedStore, Emulator)
        do {
            (opened, emulator) = try await Serve.openStoreAndEmulator(appConfig, logger: logger)
            try await options.importIfAsked(into: emulator, projectId: appConfig.projectId, logger: logger)
        } catch {
            // The reason is on stderr already; the command never runs.
            FileHandle.standardError.write(
                Data("authemu exec: the command was not run (daemon log: \(log.path))\n".utf8))
            throw error
        }
        let runner = CommandRunner(
            argv: ChildProcess.argv(for: commandLine), projectId: appConfig.projectId, emulator: emulator,
            exportDirectory: exportOnExit, logger: logger)
        let outcome = await runner.runBesideDaemon(config: appConfig)
        await opened.close()
        try log.finish(outcome)
    }

    /// The project of a wrapped `firebase emulators:exec` or `emulators:start` (`--project ID`,
    /// `-P ID`, `--project=ID`), as one argument list or one shell line.
    static func firebaseEmulatorsProject(_ argv: [String]) -> String? {
        let words = argv.count == 1 ? argv[0].split(separator: " ").map(String.init) : argv
        guard let command = words.firstIndex(where: { $0 == "emulators:exec" || $0 == "emulators:start" }),
            words[..<command].contains(where: {
                ["firebase", "firebase-tools"].contains(($0 as NSString).lastPathComponent)
            })
        else { return nil }
        for (index, word) in words.enumerated() {
            if word.hasPrefix("--project=") { return String(word.dropFirst("--project=".count)) }
            if word == "--project" || word == "-P", index + 1 < words.count { return words[index + 1] }
        }
        return nil
    }

    /// `exec` keeps no state unless a layer names where it lives, and takes a free port unless one
    /// is given.
    static func execDefaults(_ layer: ConfigLayer) -> ConfigLayer {
        var layer = layer
        if !layer.namesStore { layer.ephemeral = true }
        if layer.port == nil { layer.port = 0 }
        return layer
    }
}

/// How `exec` ended: COMMAND's status, or why it never ran.
enum ExecOutcome {
    case finished(status: Int32)
    case notStarted(reason: String)
}

/// The daemon's log file of one `exec`.
struct ExecLog {
    let path: String
    let handle: FileHandle
    /// Chosen by the user (always kept) or made here (removed when COMMAND succeeds).
    let isTemporary: Bool

    static func open(path: String?) throws -> ExecLog {
        let chosen =
            path
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent(
                "authemu-exec-\(ProcessInfo.processInfo.processIdentifier).log")
        guard FileManager.default.createFile(atPath: chosen, contents: nil),
            let handle = FileHandle(forWritingAtPath: chosen)
        else { throw stopped("cannot write the daemon's log to \(chosen)") }
        return ExecLog(path: chosen, handle: handle, isTemporary: path == nil)
    }

    /// Exits as COMMAND did; says where the log is when it failed or never ran.
    func finish(_ outcome: ExecOutcome) throws {
        try? handle.close()
        switch outcome {
        case .finished(let status) where status == 0:
            if isTemporary { try? FileManager.default.removeItem(atPath: path) }
        case .finished(let status):
            FileHandle.standardError.write(
                Data("authemu exec: the command exited with \(status); daemon log: \(path)\n".utf8))
            throw ExitCode(status)
        case .notStarted(let reason):
            throw stopped("exec: \(reason); the command was not run (daemon log: \(path))")
        }
    }
}
