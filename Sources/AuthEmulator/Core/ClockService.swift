import Foundation

/// `/emulator/v1/clock` and `authemu clock`: read and move the emulator's time.
public struct SetClockRequest: Decodable, Sendable {
    public var time: String?
}

public struct AdvanceClockRequest: Decodable, Sendable {
    public var seconds: Double?
}

extension Emulator {
    /// `{"now": RFC 3339, "offsetSeconds": N}`.
    public func clockState() -> JSONValue {
        .object([
            "now": .string(clock.now().rfc3339Millis),
            "offsetSeconds": .number(movableClock.offsetSeconds),
        ])
    }

    public func advanceClock(_ request: AdvanceClockRequest) async throws -> JSONValue {
        guard let seconds = request.seconds else { throw AuthError("MISSING_SECONDS", "seconds is required.") }
        guard seconds.isFinite, abs(seconds) <= Self.maximumClockOffset else {
            throw AuthError("INVALID_SECONDS", "seconds must be a number of at most \(Int(Self.maximumClockOffset)).")
        }
        return try await moveClock(to: movableClock.offsetSeconds + seconds)
    }

    public func setClock(_ request: SetClockRequest) async throws -> JSONValue {
        guard let text = request.time else { throw AuthError("MISSING_TIME", "time is required.") }
        guard let time = Self.parseRFC3339(text) else {
            throw AuthError("INVALID_TIME", "time must be an RFC 3339 date-time, e.g. 2030-01-01T00:00:00Z.")
        }
        return try await moveClock(to: time.timeIntervalSince(movableClock.base.now()))
    }

    public func resetClock() async throws -> JSONValue {
        try await moveClock(to: 0)
    }

    /// Reads the stored offset at start.
    public func restoreClockOffset() async throws {
        movableClock.setOffset(try await store.read { tx in try tx.clockOffset() })
    }

    /// Durably stores the offset, then moves the clock (a crash in between keeps the old time).
    private func moveClock(to offset: Double) async throws -> JSONValue {
        guard abs(offset) <= Self.maximumClockOffset else {
            throw AuthError("INVALID_TIME", "the clock can move at most 100 years from the real time.")
        }
        try await store.write { tx in try tx.saveClockOffset(offset) }
        movableClock.setOffset(offset)
        logger.notice(
            "clock moved: now \(clock.now().rfc3339Millis) (offset \(offset) s)", metadata: ["event": "clock"])
        return clockState()
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
