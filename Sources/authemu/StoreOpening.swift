import ArgumentParser
import AuthEmulator
import AuthEmulatorHTTP
import AuthEmulatorPostgres
import AuthEmulatorSQLite
import Foundation
import Logging

/// The store the configuration names, opened: a SQLite file removed at stop (`--ephemeral`), a SQLite file
/// (`--data`, `--store sqlite:PATH`), or PostgreSQL (`--store postgres://…`).
struct OpenedStore {
    let store: any AuthStore
    /// Where the state lives, for logs: a PostgreSQL password is masked.
    let location: String
    /// Where HTTP handlers run (`ConnectionExecutor`): on PostgreSQL, their connection's event loop.
    var connectionExecutor: ConnectionExecutor? = nil
    let close: @Sendable () async -> Void

    static func open(_ config: AppConfig, logger: Logger) async throws -> OpenedStore {
        if config.ephemeral { return try ephemeral(logger: logger) }
        if let text = config.storeURL {
            let url = try PostgresStoreURL(text)
            let store = try await PostgresStore(url: url, logger: logger)
            return OpenedStore(
                store: store, location: "\(url.masked) (schema \(url.schema))",
                connectionExecutor: { EventLoopTaskExecutor($0) }
            ) { await store.close() }
        }
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: config.dataPath)
        } catch let error as StoreOpenError {
            throw error
        } catch {
            throw StoreOpenError(Self.explain(path: config.dataPath, error))
        }
        return OpenedStore(store: store, location: config.dataPath) { try? store.close() }
    }

    /// `--ephemeral`: a database file of its own under the temporary directory, removed at stop
    /// (`EphemeralDatabase`); in memory only where no temporary directory can be written.
    static func ephemeral(logger: Logger) throws -> OpenedStore {
        do {
            let database = try EphemeralDatabase.make()
            do {
                let store = try SQLiteStore(path: database.path)
                return OpenedStore(store: store, location: "\(database.path), removed at stop (--ephemeral)") {
                    try? store.close()
                    database.remove()
                }
            } catch {
                database.remove()
                throw error
            }
        } catch {
            logger.warning("--ephemeral: no database file can be made in the temporary directory (\(error)); in memory")
            let store = try SQLiteStore()
            return OpenedStore(store: store, location: "in memory (--ephemeral)") { try? store.close() }
        }
    }

    /// Why a database file could not be opened, naming it, and how to fix a permission problem
    /// (a volume first written by another uid, a directory this user cannot write).
    static func explain(path: String, _ error: any Error) -> String {
        let files = FileManager.default
        let who = "this process (uid \(getuid()), gid \(getgid()))"
        let directory =
            (path as NSString).deletingLastPathComponent.isEmpty
            ? "." : (path as NSString).deletingLastPathComponent
        for file in [path, path + "-wal", path + "-shm"] where files.fileExists(atPath: file) {
            if !files.isWritableFile(atPath: file) {
                return "\(file) exists but \(who) cannot write it: make it writable by this user or its group "
                    + "(a container volume: chmod -R g+w, the image runs its user in group 0)"
            }
        }
        if !files.fileExists(atPath: path), !files.isWritableFile(atPath: directory) {
            return "cannot create \(path): \(who) cannot write the directory \(directory)"
        }
        return "\(path): \(error)"
    }
}

/// A message on stderr and exit status 2: a database, config file or export that cannot be used
/// stops the command.
func stopped(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("authemu: \(message)\n".utf8))
    return ExitCode(2)
}
