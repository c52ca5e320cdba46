import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import AuthEmulatorPostgres
import AuthEmulatorSQLite
import Foundation
import Logging

/// The store the configuration names, opened: SQLite in memory (`--ephemeral`), a SQLite file
/// (`--data`, `--store sqlite:PATH`), or PostgreSQL (`--store postgres://…`).
struct OpenedStore {
    let store: any AuthStore
    /// Where the state lives, for logs: a PostgreSQL password is masked.
    let location: String
    /// Where HTTP handlers run (`ConnectionExecutor`): on PostgreSQL, their connection's event loop.
    var connectionExecutor: ConnectionExecutor? = nil
    let close: @Sendable () async -> Void

    static func open(_ config: AppConfig, logger: Logger) async throws -> OpenedStore {
        if config.ephemeral {
            let store = try SQLiteStore()
            return OpenedStore(store: store, location: "in memory (--ephemeral)") { try? store.close() }
        }
        if let text = config.storeURL {
            let url = try PostgresStoreURL(text)
            let store = try await PostgresStore(url: url, logger: logger)
            return OpenedStore(
                store: store, location: "\(url.masked) (schema \(url.schema))",
                connectionExecutor: { EventLoopTaskExecutor($0) }
            ) { await store.close() }
        }
        let store = try SQLiteStore(path: config.dataPath)
        return OpenedStore(store: store, location: config.dataPath) { try? store.close() }
    }
}

/// A message on stderr and exit status 2: a database, config file or export that cannot be used
/// stops the command.
func stopped(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("authemu: \(message)\n".utf8))
    return ExitCode(2)
}
