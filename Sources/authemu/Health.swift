import ArgumentParser
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `authemu health --wait N`: exits 0 once the daemon answers `/readyz`.
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check (or wait until) the daemon is ready.")

    @Option(help: "Base URL of the daemon.") var url = "http://127.0.0.1:9099"
    @Option(help: "Seconds to keep trying before giving up (0 = one try).") var wait: Double = 0

    func run() async throws {
        let deadline = Date().addingTimeInterval(wait)
        guard let target = URL(string: url + "/readyz") else { throw ValidationError("--url is not a URL: \(url)") }
        repeat {
            var request = URLRequest(url: target)
            request.timeoutInterval = 2
            if let (_, response) = try? await URLSession.shared.data(for: request),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                print("ready")
                return
            }
            if Date() < deadline { try await Task.sleep(nanoseconds: 100_000_000) }
        } while Date() < deadline
        FileHandle.standardError.write(Data("authemu: not ready at \(url) after \(wait) s\n".utf8))
        throw ExitCode(1)
    }
}
