import Foundation

/// firebase-tools' `singleProjectMode`: what a request for a project other than the default gets.
public enum SingleProjectMode: String, Sendable, CaseIterable {
    /// Any project is served quietly (authemu's default without a `firebase.json`).
    case off
    /// Served, with one warning per other project id (firebase-tools' default).
    case warn
    /// Refused with firebase-tools' error (400).
    case error
}

/// The project ids already warned about, so each is named once.
final class WarnedProjects: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Set<String> = []

    /// Ids remembered; past it the set starts over (an id may then be warned about again).
    static let capacity = 1_000

    /// True the first time an id is seen.
    func firstTime(_ projectId: String) -> Bool {
        lock.withLock {
            if seen.count >= Self.capacity, !seen.contains(projectId) { seen.removeAll(keepingCapacity: true) }
            return seen.insert(projectId).inserted
        }
    }
}

extension Emulator {
    /// Checks a request's project against the single-project mode: a warning the first time an
    /// other id is seen, or firebase-tools' 400 in `error` mode.
    public func admitProject(_ projectId: String) throws(AuthError) {
        let mode = options.singleProjectMode
        guard mode != .off, projectId != options.defaultProjectId else { return }
        let text =
            "Multiple projectIds are not recommended in single project mode. Requested project ID \(projectId), "
            + "but the emulator is configured for \(options.defaultProjectId). To opt-out of single project mode "
            + "add/set the 'singleProjectMode' false property in the firebase.json emulators config."
        if mode == .error { throw AuthError(text) }
        if warnedProjects.firstTime(projectId) { logger.warning("\(text)") }
    }
}
