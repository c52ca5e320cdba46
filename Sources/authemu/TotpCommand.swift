import ArgumentParser
import AuthEmulator
import Foundation

/// `authemu totp SECRET`: the RFC 6238 code of a base32 secret (as an authenticator app shows).
struct TotpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "totp", abstract: "Print the current TOTP code of a base32 shared secret.")

    @Argument(help: "The base32 shared secret (sharedSecretKey).") var secret: String
    @Option(help: "Compute the code at this time: seconds since the epoch or an RFC 3339 date.") var at: String?
    @Option(
        help: """
            Without --at, the time is the daemon's clock here, which tests may have moved (default: \
            FIREBASE_AUTH_EMULATOR_HOST, else http://127.0.0.1:9099); this machine's clock if it does not answer.
            """)
    var url: String = DaemonURL.fromEnvironment

    func run() throws {
        guard let key = Base32.decode(secret), !key.isEmpty else {
            throw ValidationError("SECRET is not base32 (A-Z, 2-7): \(secret)")
        }
        var date = daemonTime() ?? Date()
        if let at {
            if let seconds = Double(at) {
                date = Date(timeIntervalSince1970: seconds)
            } else if let parsed = Emulator.parseRFC3339(at) {
                date = parsed
            } else {
                throw ValidationError("--at must be seconds since the epoch or an RFC 3339 date, got \(at)")
            }
        }
        print(Totp.code(secret: key, step: Totp.step(at: date)))
    }

    /// The daemon's (possibly moved) time, or nil with a note when it cannot be asked.
    private func daemonTime() -> Date? {
        guard at == nil else { return nil }
        guard let (host, port) = LoopbackHTTP.endpoint(url),
            let reply = LoopbackHTTP.get(host: host, port: port, path: "/emulator/v1/clock", timeout: .seconds(2)),
            reply.status == 200,
            let answer = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any],
            let now = (answer["now"] as? String).flatMap(Emulator.parseRFC3339)
        else {
            FileHandle.standardError.write(
                Data("authemu totp: no daemon clock at \(url); using this machine's time\n".utf8))
            return nil
        }
        return now
    }
}
