import Foundation

/// Scope settings are read on every request but change rarely, so they are cached in memory.
/// Every config or tenant write bumps the generation after it commits; a reader that started
/// before that cannot store what it read (it carries the generation it started with).
final class SettingsCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Scope: ScopeSettings] = [:]
    private var generation = 0

    func lookup(_ scope: Scope) -> (ScopeSettings?, Int) {
        lock.withLock { (entries[scope], generation) }
    }

    func store(_ settings: ScopeSettings, for scope: Scope, generation seen: Int) {
        lock.withLock {
            if seen == generation { entries[scope] = settings }
        }
    }

    func invalidate() {
        lock.withLock {
            generation += 1
            entries.removeAll()
        }
    }
}
