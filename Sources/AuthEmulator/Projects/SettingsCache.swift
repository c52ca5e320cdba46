import Foundation

/// Scope settings are read on every request but change rarely, so they are cached in memory.
/// Every config or tenant write bumps the generation after it commits; a reader that started
/// before that cannot store what it read (it carries the generation it started with). At most
/// `capacity` scopes are kept (a client can name any number of projects); past it the cache
/// starts over.
final class SettingsCache: @unchecked Sendable {
    static let capacity = 4_096
    private let lock = NSLock()
    private var entries: [Scope: ScopeSettings] = [:]
    private var generation = 0

    func lookup(_ scope: Scope) -> (ScopeSettings?, Int) {
        lock.withLock { (entries[scope], generation) }
    }

    func store(_ settings: ScopeSettings, for scope: Scope, generation seen: Int) {
        lock.withLock {
            guard seen == generation else { return }
            if entries.count >= Self.capacity, entries[scope] == nil { entries.removeAll(keepingCapacity: true) }
            entries[scope] = settings
        }
    }

    func invalidate() {
        lock.withLock {
            generation += 1
            entries.removeAll()
        }
    }
}
