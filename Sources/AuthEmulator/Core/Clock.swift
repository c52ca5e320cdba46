import Foundation

/// Where the emulator reads the time. Nothing in the domain calls `Date()` directly, so tests can
/// move time (code expiry, TOTP windows) without sleeping.
public protocol AuthClock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemClock: AuthClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that stands still until told to move; for tests.
public final class ManualClock: AuthClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    public func now() -> Date { lock.withLock { current } }

    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }

    public func set(_ date: Date) { lock.withLock { current = date } }
}

extension Date {
    /// Milliseconds since the epoch, as the Identity Toolkit writes `createdAt` / `lastLoginAt`.
    public var epochMillis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
    /// Whole seconds since the epoch (JWT `iat`, `validSince`).
    public var epochSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    /// RFC 3339 UTC with milliseconds, e.g. `2022-08-01T18:31:15.426Z` (iOS needs the fraction).
    /// (The format style is plain Swift; `ISO8601DateFormatter` went through ICU's calendar code.)
    public var rfc3339Millis: String { formatted(Self.rfc3339Style) }

    private static let rfc3339Style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
