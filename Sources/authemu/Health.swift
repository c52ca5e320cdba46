import ArgumentParser
import Foundation

/// `authemu health --wait N`: exits 0 once the daemon answers `/readyz`.
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check (or wait until) the daemon is ready.")

    @Option(help: "Base URL of the daemon (default http://127.0.0.1:9099, or the port AUTHEMU_PORT names).")
    var url: String?
    @Option(help: "Seconds to keep trying before giving up (0 = one try).") var wait: Double = 0

    func run() async throws {
        // The image's HEALTHCHECK runs this without arguments, beside a daemon whose port may be moved.
        let port = ProcessInfo.processInfo.environment["AUTHEMU_PORT"].flatMap { Int($0) } ?? 9099
        let url = self.url ?? "http://127.0.0.1:\(port)"
        guard let (host, port) = LoopbackHTTP.endpoint(url) else {
            throw ValidationError("--url must be http://host:port, got \(url)")
        }
        let deadline = Date().addingTimeInterval(wait)
        repeat {
            if LoopbackHTTP.get(host: host, port: port, path: "/readyz", timeout: .seconds(2))?.status == 200 {
                print("ready")
                return
            }
            if Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        } while Date() < deadline
        FileHandle.standardError.write(Data("authemu: not ready at \(url) after \(wait) s\n".utf8))
        throw ExitCode(1)
    }
}
