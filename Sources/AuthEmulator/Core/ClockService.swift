import Foundation

/// `/emulator/v1/clock` and `authemu clock`: read, move, freeze and resume the emulator's time.
public struct SetClockRequest: Decodable, Sendable {
    public var time: String?
    /// `true` stops the clock at `time` (or at the current instant when `time` is absent); `false`
    /// lets it run; absent keeps it as it is.
    public var freeze: Bool?
}

public struct AdvanceClockRequest: Decodable, Sendable {
    public var seconds: Double?
}

/// The clock as `/`, the inspector and `authemu clock` show it.
public struct ClockReading: Sendable {
    public var now: Date
    public var offsetSeconds: Double
    public var frozen: Bool
    /// The real, running time.
    public var isReal: Bool { !frozen && offsetSeconds == 0 }
}

extension Emulator {
    public func clockReading() -> ClockReading {
        let setting = movableClock.setting
        return ClockReading(
            now: clock.now(), offsetSeconds: movableClock.offsetSeconds, frozen: setting.frozenAt != nil)
    }

    /// `{"now": RFC 3339, "offsetSeconds": N, "frozen": Bool}`; `now` may name the instant a
    /// change set the clock to (a running clock has moved on by the time the write committed).
    public func clockState(setTo instant: Date? = nil) -> JSONValue {
        var reading = clockReading()
        if let instant { reading.now = instant }
        return .object([
            "now": .string(reading.now.rfc3339Millis), "offsetSeconds": .number(reading.offsetSeconds),
            "frozen": .bool(reading.frozen),
        ])
    }

    /// Moves the clock by `seconds`; a frozen clock stays frozen at the moved instant.
    public func advanceClock(_ request: AdvanceClockRequest) async throws -> JSONValue {
        guard let seconds = request.seconds else { throw AuthError("MISSING_SECONDS", "seconds is required.") }
        guard seconds.isFinite, abs(seconds) <= Self.maximumClockOffset else {
            throw AuthError("INVALID_SECONDS", "seconds must be a number of at most \(Int(Self.maximumClockOffset)).")
        }
        let setting = movableClock.setting
        guard let frozenAt = setting.frozenAt else {
            return try await save(ClockSetting(offsetSeconds: setting.offsetSeconds + seconds))
        }
        return try await moveClock(to: frozenAt + seconds, frozen: true)
    }

    /// Sets the time, freezes or lets the clock run (`freeze`), or both.
    public func setClock(_ request: SetClockRequest) async throws -> JSONValue {
        let frozen = request.freeze ?? (movableClock.setting.frozenAt != nil)
        guard let text = request.time else {
            switch request.freeze {
            case true?: return try await moveClock(to: clock.now(), frozen: true)
            case false?: return try await resumeClock()
            case nil: throw AuthError("MISSING_TIME", "time is required.")
            }
        }
        guard let time = Self.parseRFC3339(text) else {
            throw AuthError("INVALID_TIME", "time must be an RFC 3339 date-time, e.g. 2030-01-01T00:00:00Z.")
        }
        return try await moveClock(to: time, frozen: frozen)
    }

    /// Lets a frozen clock run again from the instant it stands at.
    public func resumeClock() async throws -> JSONValue {
        guard let frozenAt = movableClock.setting.frozenAt else { return clockState() }
        return try await moveClock(to: frozenAt, frozen: false)
    }

    public func resetClock() async throws -> JSONValue {
        try await save(.real)
    }

    /// Reads the stored setting at start, and when another daemon on the database changed it.
    public func restoreClockSetting() async throws {
        movableClock.apply(try await store.read { tx in try await tx.clockSetting() })
    }

    /// Sets the clock to `time`, frozen or running from there; answers `time` as `now`.
    private func moveClock(to time: Date, frozen: Bool) async throws -> JSONValue {
        try await save(
            ClockSetting(offsetSeconds: time.timeIntervalSince(movableClock.base.now()), frozenAt: frozen ? time : nil),
            setTo: time)
    }

    /// Durably stores the setting, then applies it (a crash in between keeps the old time).
    private func save(_ setting: ClockSetting, setTo instant: Date? = nil) async throws -> JSONValue {
        guard abs(setting.offsetSeconds) <= Self.maximumClockOffset else {
            throw AuthError("INVALID_TIME", "the clock can move at most 100 years from the real time.")
        }
        try await store.write { tx in try await tx.saveClockSetting(setting) }
        movableClock.apply(setting)
        let how = setting.frozenAt == nil ? "offset \(movableClock.offsetSeconds) s" : "frozen"
        logger.notice("clock moved: now \(clock.now().rfc3339Millis) (\(how))", metadata: ["event": "clock"])
        return clockState(setTo: instant)
    }

    /// 100 years either way.
    static let maximumClockOffset: Double = 100 * 365.25 * 86_400

    public static func parseRFC3339(_ text: String) -> Date? {
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return (try? fractional.parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}

/// Durations as the CLI and helpers write them: `3601`, `90s`, `15m`, `1h`, `2d`, `1w`, `1h30m`,
/// with an optional leading `-`.
public enum ClockDuration {
    public static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
        let sign: Double = rest.hasPrefix("-") ? -1 : 1
        if rest.hasPrefix("-") || rest.hasPrefix("+") { rest = rest.dropFirst() }
        if let plain = Double(rest), plain.isFinite { return sign * plain }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        var total: Double = 0
        var number = ""
        for character in rest {
            if character.isNumber || character == "." {
                number.append(character)
            } else if let unit = units[character], let value = Double(number) {
                total += value * unit
                number = ""
            } else {
                return nil
            }
        }
        guard number.isEmpty, !rest.isEmpty else { return nil }
        return sign * total
    }
}
