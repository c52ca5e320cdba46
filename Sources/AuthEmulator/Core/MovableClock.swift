import Foundation
import Synchronization

/// How the emulator's clock stands: an offset from its base clock, or frozen at one instant.
public struct ClockSetting: Equatable, Sendable {
    /// Seconds added to the base clock while the clock runs.
    public var offsetSeconds: Double
    /// The instant the clock stands at, when frozen (`clock:set` with `freeze`).
    public var frozenAt: Date?

    public init(offsetSeconds: Double = 0, frozenAt: Date? = nil) {
        self.offsetSeconds = offsetSeconds
        self.frozenAt = frozenAt
    }

    /// The real time.
    public static let real = ClockSetting()
}

/// The emulator's clock: a base clock (the wall clock, or a test's `ManualClock`) plus an offset
/// that tests move (`clock:advance`, `clock:set`, `clock:reset`), or one instant it is frozen at.
/// Everything in the domain reads this one, so moving it expires tokens, SMS codes, TOTP steps and
/// pending credentials alike.
public final class MovableClock: AuthClock {
    public let base: any AuthClock
    private let state = Mutex(ClockSetting.real)

    public init(base: any AuthClock) { self.base = base }

    public func now() -> Date {
        let setting = self.setting
        return setting.frozenAt ?? base.now() + setting.offsetSeconds
    }

    public var setting: ClockSetting { state.withLock { $0 } }

    /// How far the clock is from its base: the offset, or the frozen instant's distance.
    public var offsetSeconds: TimeInterval {
        let setting = self.setting
        return setting.frozenAt.map { $0.timeIntervalSince(base.now()) } ?? setting.offsetSeconds
    }

    func apply(_ setting: ClockSetting) { state.withLock { $0 = setting } }
}

/// Where the clock's setting is kept, so a moved or frozen clock survives a restart until
/// `clock:reset`, and every daemon on one PostgreSQL database reads the same time.
public protocol ClockSettingRepository {
    /// The stored setting (`.real` when none was stored).
    func clockSetting() async throws -> ClockSetting
    func saveClockSetting(_ setting: ClockSetting) async throws
}
