import Foundation
import Logging
import NIOCore
import Synchronization

/// Sends committed auth events to the Functions emulator, outside every request: the store hands
/// them over in commit order (`enqueue`, called by the writer, never waits), and each project's
/// events leave one at a time, in that order, from a task of that project's own. While no
/// Functions emulator is known, or the known one cannot be reached, events wait in a bounded
/// queue (`Limits`) and are sent once one answers; what does not fit, or waits too long, is
/// dropped with a warning. A problem is logged once while it lasts, not once per event.
public final class AuthEventDelivery: Sendable {
    public struct Limits: Sendable {
        /// Events waiting, over every project; a new event beyond it is dropped.
        public var maxEvents = 10_000
        /// The same while no Functions emulator has ever answered, which is most daemons': enough
        /// for the events of the seconds before a late one starts, without a sender per project
        /// looking for it every second for each of ten thousand projects.
        public var maxEventsUntilReached = 1_000
        /// Their bodies' bytes, over every project (a body is at most ~64 KiB: `FieldLimits`).
        public var maxBytes = 16 << 20
        /// How long an event waits for a Functions emulator before it is dropped.
        public var maxAge: Duration = .seconds(300)
        /// The pause before a failed event is tried again, or before a project with no known
        /// Functions emulator looks again.
        public var retryAfter: Duration = .seconds(1)

        public init() {}
    }

    /// What the delivery reads time from and waits with (real time in the daemon; tests step it).
    public struct Timing: Sendable {
        public var now: @Sendable () -> ContinuousClock.Instant
        public var pause: @Sendable (Duration) async -> Void

        public init(
            now: @escaping @Sendable () -> ContinuousClock.Instant, pause: @escaping @Sendable (Duration) async -> Void
        ) {
            self.now = now
            self.pause = pause
        }

        public static let real = Timing(now: { .now }, pause: { try? await Task.sleep(for: $0) })
    }

    let link: any FunctionsEmulatorLink
    let limits: Limits
    let timing: Timing
    let logger: Logger
    private let state = Mutex(State())

    public init(link: any FunctionsEmulatorLink, limits: Limits = Limits(), timing: Timing = .real, logger: Logger) {
        self.link = link
        self.limits = limits
        self.timing = timing
        self.logger = logger
    }

    struct Pending {
        let event: AuthEvent
        let since: ContinuousClock.Instant
    }

    /// What was last said about a project's deliveries, so that each change is said once.
    enum Status: Equatable {
        case delivering(origin: String)
        case down(origin: String)
        case refused(origin: String, status: Int)
    }

    struct State {
        var lanes: [String: CircularBuffer<Pending>] = [:]
        var count = 0
        var bytes = 0
        /// Whether a Functions emulator has ever answered an event.
        var reached = false
        var status: [String: Status] = [:]
        /// Events of a project dropped (full queue or too old) since it last delivered one.
        var dropped: [String: Int] = [:]

        /// One count per project that dropped events: bounded as `status` is, by forgetting the
        /// counts (they only word a log line) when a new project would pass the bound.
        mutating func boundDropped(adding project: String) {
            if dropped.count >= AuthEventDelivery.maxProjectsRemembered, dropped[project] == nil { dropped.removeAll() }
        }
    }

    /// Projects whose delivery status and drop counts are remembered at once.
    static let maxProjectsRemembered = 10_000

    /// Events waiting, and their bytes (for tests and the status line).
    public var waiting: (events: Int, bytes: Int) { state.withLock { ($0.count, $0.bytes) } }

    /// Queues events just committed; starts the project's sender if it is idle. Never waits.
    public func enqueue(_ events: [AuthEvent]) {
        let now = timing.now()
        var starting: [String] = []
        var full: [(project: String, known: Bool)] = []
        state.withLock { state in
            for event in events {
                let maxEvents = state.reached ? limits.maxEvents : min(limits.maxEvents, limits.maxEventsUntilReached)
                guard state.count < maxEvents, state.bytes + event.body.count <= limits.maxBytes else {
                    if state.dropped[event.projectId, default: 0] == 0 {
                        state.boundDropped(adding: event.projectId)
                        full.append((event.projectId, state.status[event.projectId] != nil))
                    }
                    state.dropped[event.projectId, default: 0] += 1
                    continue
                }
                if state.lanes[event.projectId] == nil {
                    state.lanes[event.projectId] = CircularBuffer(initialCapacity: 4)
                    starting.append(event.projectId)
                }
                state.lanes[event.projectId]!.append(Pending(event: event, since: now))
                state.count += 1
                state.bytes += event.body.count
            }
        }
        // Quiet while no Functions emulator was ever reached: most daemons serve none.
        for (project, known) in full {
            logger.log(
                level: known ? .warning : .debug,
                "auth events of project \(project) are being dropped: the queue for the Functions emulator is full (at most \(limits.maxEvents) events, \(limits.maxEventsUntilReached) until one has answered, and \(limits.maxBytes) bytes)",
                metadata: ["event": "functions", "project": "\(project)"])
        }
        for project in starting { Task { await self.send(project) } }
    }

    /// Sends a project's events in order until none waits.
    private func send(_ project: String) async {
        var lookAgain = false
        while let pending = head(of: project) {
            guard let address = await link.locate(projectId: project, lookAgain: lookAgain) else {
                lookAgain = false
                await timing.pause(limits.retryAfter)
                continue
            }
            do {
                let status = try await link.send(pending.event, to: address)
                if (500...599).contains(status) { throw FunctionsEmulatorStatusError(status: status) }
                removeHead(of: project)
                report(
                    project,
                    (200...299).contains(status)
                        ? .delivering(origin: address.origin)
                        : .refused(origin: address.origin, status: status), address: address, reason: nil)
                lookAgain = false
            } catch {
                report(project, .down(origin: address.origin), address: address, reason: "\(error)")
                lookAgain = true
                await timing.pause(limits.retryAfter)
            }
        }
    }

    /// The project's oldest event, after dropping those that waited too long; nil (and the
    /// project's queue gone) when none is left.
    private func head(of project: String) -> Pending? {
        let now = timing.now()
        let (pending, expired, known) = state.withLock { state -> (Pending?, Int, Bool) in
            var expired = 0
            while let first = state.lanes[project]?.first, now - first.since > limits.maxAge {
                state.lanes[project]!.removeFirst()
                state.count -= 1
                state.bytes -= first.event.body.count
                expired += 1
            }
            if expired > 0 {
                state.boundDropped(adding: project)
                state.dropped[project, default: 0] += expired
            }
            let first = state.lanes[project]?.first
            if first == nil { state.lanes[project] = nil }
            return (first, expired, state.status[project] != nil)
        }
        if expired > 0 {
            let level: Logger.Level = known ? .warning : .debug
            logger.log(
                level: level,
                "dropped \(expired) auth event(s) of project \(project) that waited \(limits.maxAge) for a Functions emulator",
                metadata: ["event": "functions", "project": "\(project)"])
        }
        return pending
    }

    /// Takes off the event a Functions emulator has answered.
    private func removeHead(of project: String) {
        state.withLock { state in
            state.reached = true
            guard let first = state.lanes[project]?.removeFirst() else { return }
            state.count -= 1
            state.bytes -= first.event.body.count
        }
    }

    /// Logs a change of a project's delivery status, once.
    private func report(_ project: String, _ status: Status, address: FunctionsEmulatorAddress, reason: String?) {
        let (previous, dropped, waiting) = state.withLock { state -> (Status?, Int, Int) in
            let previous = state.status[project]
            // One entry per project that ever had an event: bounded by the projects in use.
            if state.status.count >= Self.maxProjectsRemembered, previous == nil { state.status.removeAll() }
            state.status[project] = status
            let dropped = state.dropped[project] ?? 0
            if case .delivering = status { state.dropped[project] = nil }
            return (previous, dropped, state.lanes[project]?.count ?? 0)
        }
        guard previous != status else { return }
        let metadata: Logger.Metadata = ["event": "functions", "project": "\(project)"]
        switch status {
        case .delivering(let origin):
            let lost = dropped > 0 ? "; \(dropped) event(s) were dropped meanwhile" : ""
            let verb = if case .down = previous { "answers again" } else { "takes them" }
            logger.info(
                "auth events of project \(project) go to the Functions emulator at \(origin) (\(address.foundThrough)): it \(verb); \(waiting) waiting\(lost)",
                metadata: metadata)
        case .down(let origin):
            logger.warning(
                "auth events of project \(project): the Functions emulator at \(origin) (\(address.foundThrough)) cannot be reached (\(reason ?? "no answer")); events wait until it answers (at most \(limits.maxEvents), \(limits.maxEventsUntilReached) until one has answered, each for \(limits.maxAge))",
                metadata: metadata)
        case .refused(let origin, let code):
            logger.warning(
                "auth events of project \(project): \(origin) (\(address.foundThrough)) answered HTTP \(code), so the event was dropped; is a Functions emulator listening there?",
                metadata: metadata)
        }
    }
}
