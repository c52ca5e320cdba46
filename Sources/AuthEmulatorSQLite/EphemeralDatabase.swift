import Foundation

/// `--ephemeral`'s database: a file of this process's own, in a fresh directory under the
/// temporary directory, removed when the daemon stops (and, after a `kill -9`, by the next
/// ephemeral start, which removes the directories of processes that are gone). A file rather than
/// memory so that reads have connections of their own, as with `--data`: on the one connection of
/// an in-memory database, one 0.3 s read (a lookup of 150,000 ids) held every other read and
/// write for its whole length.
public struct EphemeralDatabase: Sendable {
    public let directory: URL
    public var path: String { directory.appendingPathComponent("state.sqlite").path }

    static let prefix = "authemu-ephemeral-"

    /// A fresh directory under `temporary` (mode 0700), after removing abandoned ones.
    public static func make(in temporary: URL = FileManager.default.temporaryDirectory) throws -> EphemeralDatabase {
        removeAbandoned(in: temporary)
        let name = "\(prefix)\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        let directory = temporary.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return EphemeralDatabase(directory: directory)
    }

    /// Removes the directory and the database in it.
    public func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Removes the ephemeral directories whose process no longer runs (`kill(pid, 0)` finds none;
    /// one of another user's live process answers EPERM and is left alone).
    static func removeAbandoned(in temporary: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0,
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }
}
