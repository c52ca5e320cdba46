import Foundation
import Synchronization

/// The events one run of a write's body recorded (`AuthEventRecorder.record`). A store makes one
/// for each run and hands its events on only when that run commits.
public final class RecordedEvents: @unchecked Sendable {
    /// Only the run's own task touches it, one statement at a time.
    public private(set) var events: [AuthEvent] = []

    public init() {}

    public func append(_ event: AuthEvent) { events.append(event) }
}

/// Where a store hands the events of each commit, in commit order (the emulator connects its
/// `AuthEventDelivery` once, at start). Before that, and in a process without one, events go
/// nowhere.
public final class CommittedEventOutlet: Sendable {
    private let handler = Mutex<(@Sendable ([AuthEvent]) -> Void)?>(nil)

    public init() {}

    public func connect(_ handler: @escaping @Sendable ([AuthEvent]) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Called by the store right after the commit of the run that recorded `recorded`.
    public func deliver(_ recorded: RecordedEvents?) {
        guard let recorded, !recorded.events.isEmpty else { return }
        handler.withLock { $0 }?(recorded.events)
    }
}
