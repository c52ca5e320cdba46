import Foundation
import Synchronization

/// The emulator's clock: a base clock (the wall clock, or a test's `ManualClock`) plus an offset
/// that tests move (`clock:advance`, `clock:set`, `clock:reset`). Everything in the domain reads
/// this one, so moving it expires tokens, SMS codes, TOTP steps and pending credentials alike.
public final class MovableClock: AuthClock {
    public let base: any AuthClock
    private let offset = Mutex<TimeInterval>(0)

    public init(base: any AuthClock) { self.base = base }

    public func now() -> Date { base.now() + offsetSeconds }

    public var offsetSeconds: TimeInterval { offset.withLock { $0 } }

    func setOffset(_ seconds: TimeInterval) { offset.withLock { $0 = seconds } }
}

/// Where the clock's offset is kept, so it survives a restart until `clock:reset`.
public protocol ClockOffsetRepository {
    /// The stored offset in seconds (0 when none was stored).
    func clockOffset() throws -> Double
    func saveClockOffset(_ seconds: Double) throws
}
