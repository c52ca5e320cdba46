import AuthEmulator
import Foundation
import Logging

/// The level every handler consults, so SIGHUP can change it live.
final class LogSettings: @unchecked Sendable {
    static let shared = LogSettings()
    private let lock = NSLock()
    private var current: Logger.Level = .info
    private var destination = FileHandle.standardOutput

    var level: Logger.Level {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    /// Where text and JSON lines go: stdout, or the log file of `authemu exec`.
    var output: FileHandle {
        get { lock.withLock { destination } }
        set { lock.withLock { destination = newValue } }
    }
}

/// How log lines are written: human text or JSON lines to stdout, or structured journal entries.
enum LogFormat: String, CaseIterable {
    case auto, text, json, journal

    /// `auto` picks the journal when systemd connected stdout to it.
    var resolved: LogFormat { self == .auto ? (Systemd.loggingToJournal ? .journal : .text) : self }

    func makeHandler(label: String) -> any LogHandler {
        switch resolved {
        case .journal: JournalLogHandler(label: label)
        case .json: LineLogHandler(label: label, json: true)
        default: LineLogHandler(label: label, json: false)
        }
    }
}

/// Metadata keys become upper-case fields; these are the ones log readers filter on.
private func fieldName(_ key: String) -> String {
    "AUTHEMU_" + key.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
}

/// Structured entries through `sd_journal_sendv`: `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER` and
/// every metadata value as `AUTHEMU_<KEY>` (so `journalctl AUTHEMU_EVENT=sms -o json` reads codes).
struct JournalLogHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level {
        get { LogSettings.shared.level }
        set { LogSettings.shared.level = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = [
            "MESSAGE=\(event.message)", "PRIORITY=\(Self.priority(event.level))", "SYSLOG_IDENTIFIER=authemu",
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) { fields.append("\(fieldName(key))=\(value)") }
        Systemd.journal(fields)
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// One line per entry on stdout: `2026-… info message key=value` or a JSON object. In text, a
/// control character from whatever source (a request's field, a header) is written escaped
/// (`\n`, `\u{1B}`), so no value can start a forged line or move the terminal's cursor.
struct LineLogHandler: LogHandler {
    let label: String
    let json: Bool
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level {
        get { LogSettings.shared.level }
        set { LogSettings.shared.level = newValue }
    }

    private static let lock = NSLock()

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        // Not ISO8601DateFormatter: it traps where the zoneinfo folder lacks GMT (a minimal image).
        let time = Date().rfc3339Millis
        var line: String
        if json {
            var object: [String: String] = ["time": time, "level": event.level.rawValue, "message": "\(event.message)"]
            for (key, value) in merged { object[key] = "\(value)" }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        } else {
            line = "\(time) \(event.level.rawValue) \(Self.escaped("\(event.message)"))"
            let rendered = merged.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\(Self.escaped("\($0.value)"))" }
            if !rendered.isEmpty { line += " " + rendered.joined(separator: " ") }
        }
        let output = LogSettings.shared.output
        Self.lock.withLock { output.write(Data((line + "\n").utf8)) }
    }

    /// `text` with its control characters (C0, DEL, C1, U+2028/9) escaped; as it is otherwise.
    static func escaped(_ text: String) -> String {
        guard Validation.hasControlCharacter(text) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where Validation.hasControlCharacter(String(scalar)):
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
