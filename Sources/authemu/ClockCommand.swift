import ArgumentParser
import AuthEmulator
import Foundation

/// `authemu clock [advance DURATION | set TIME | freeze [TIME] | resume | reset]`: reads, moves or
/// freezes the running daemon's clock (`/emulator/v1/clock`).
struct ClockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock", abstract: "Show or move the running daemon's clock.",
        subcommands: [Show.self, Advance.self, SetTime.self, Freeze.self, Resume.self, Reset.self],
        defaultSubcommand: Show.self)

    struct Options: ParsableArguments {
        @Option(help: "Base URL of the daemon (default: FIREBASE_AUTH_EMULATOR_HOST, else http://127.0.0.1:9099).")
        var url: String = DaemonURL.fromEnvironment
        @Option(help: "Admin token, needed when the daemon is not on loopback (default: AUTHEMU_ADMIN_TOKEN or owner).")
        var adminToken: String = ProcessInfo.processInfo.environment["AUTHEMU_ADMIN_TOKEN"] ?? "owner"

        /// Sends the request and prints `now` and the offset; a refusal exits 1 with its message.
        func call(_ method: String, _ operation: String, _ body: [String: Any]? = nil) throws {
            guard let (host, port) = LoopbackHTTP.endpoint(url) else {
                throw ValidationError("--url must be http://host:port, got \(url)")
            }
            let json = try body.map { try JSONSerialization.data(withJSONObject: $0) }
            guard
                let reply = LoopbackHTTP.request(
                    method, host: host, port: port, path: "/emulator/v1/\(operation)", json: json,
                    headers: ["Authorization: Bearer \(adminToken)"], timeout: .seconds(10))
            else { throw DaemonURL.fail("clock", "cannot reach the daemon at \(url)") }
            let answer = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:]
            guard reply.status == 200, let now = answer["now"] as? String else {
                let message = (answer["error"] as? [String: Any])?["message"] as? String
                throw DaemonURL.fail("clock", message ?? "HTTP \(reply.status) from \(url)")
            }
            let offset = (answer["offsetSeconds"] as? NSNumber)?.doubleValue ?? 0
            let frozen = (answer["frozen"] as? Bool) == true ? ", frozen" : ""
            print("\(now) (offset \(offset.formatted(.number.grouping(.never))) s\(frozen))")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the daemon's time and its offset.")
        @OptionGroup var options: Options
        func run() throws { try options.call("GET", "clock") }
    }

    struct Advance: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move the clock forward (or back, with a leading -): 3601, 90s, 15m, 1h, 2d, 1w, 1h30m.")
        @Argument(help: "How far.") var duration: String
        @OptionGroup var options: Options
        func run() throws {
            guard let seconds = ClockDuration.seconds(duration) else {
                throw ValidationError("DURATION must look like 3601, 90s, 15m, 1h, 2d, 1w or 1h30m, got \(duration)")
            }
            try options.call("POST", "clock:advance", ["seconds": seconds])
        }
    }

    struct SetTime: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the clock to an RFC 3339 time.")
        @Argument(help: "The time, e.g. 2030-01-01T00:00:00Z.") var time: String
        @OptionGroup var options: Options
        func run() throws { try options.call("POST", "clock:set", ["time": time]) }
    }

    struct Freeze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the clock, at an RFC 3339 time or where it is; advance and set still move it.")
        @Argument(help: "The time to stand at, e.g. 2030-01-01T00:00:00Z (default: now).") var time: String?
        @OptionGroup var options: Options
        func run() throws {
            var body: [String: Any] = ["freeze": true]
            if let time { body["time"] = time }
            try options.call("POST", "clock:set", body)
        }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a frozen clock run again from where it stands.")
        @OptionGroup var options: Options
        func run() throws { try options.call("POST", "clock:resume", [:]) }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Back to the real time.")
        @OptionGroup var options: Options
        func run() throws { try options.call("POST", "clock:reset", [:]) }
    }
}

/// The daemon the CLI's helper commands talk to.
enum DaemonURL {
    /// `http://` + FIREBASE_AUTH_EMULATOR_HOST, else `http://127.0.0.1:9099`.
    static var fromEnvironment: String {
        guard let host = ProcessInfo.processInfo.environment["FIREBASE_AUTH_EMULATOR_HOST"], !host.isEmpty else {
            return "http://127.0.0.1:9099"
        }
        return host.hasPrefix("http://") ? host : "http://\(host)"
    }

    static func fail(_ command: String, _ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("authemu \(command): \(message)\n".utf8))
        return ExitCode(1)
    }
}
