import ArgumentParser
import AuthEmulator
import Foundation

/// `authemu totp SECRET`: the RFC 6238 code of a base32 secret (as an authenticator app shows).
struct TotpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "totp", abstract: "Print the current TOTP code of a base32 shared secret.")

    @Argument(help: "The base32 shared secret (sharedSecretKey).") var secret: String
    @Option(help: "Compute the code at this time: seconds since the epoch or an RFC 3339 date.") var at: String?

    func run() throws {
        guard let key = Base32.decode(secret), !key.isEmpty else {
            throw ValidationError("SECRET is not base32 (A-Z, 2-7): \(secret)")
        }
        var date = Date()
        if let at {
            if let seconds = Double(at) {
                date = Date(timeIntervalSince1970: seconds)
            } else if let parsed = ISO8601DateFormatter().date(from: at) {
                date = parsed
            } else {
                throw ValidationError("--at must be seconds since the epoch or an RFC 3339 date, got \(at)")
            }
        }
        print(Totp.code(secret: key, step: Totp.step(at: date)))
    }
}
