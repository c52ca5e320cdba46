import ArgumentParser
import Foundation

/// `authemu codes`: prints the newest pending SMS code from the running daemon's outbox.
struct Codes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the newest pending SMS code (waiting for one with --wait).")

    @Option(help: "Phone number (E.164) the code was sent to; any number if omitted.") var phone: String?
    @Option(help: "Project id.") var project = "demo-project"
    @Option(help: "Tenant id.") var tenant: String?
    @Option(help: "Seconds to wait for a code to arrive (at most 30).") var wait: Double = 0
    @Flag(help: "Print the whole outbox message as JSON.") var json = false
    @Option(help: "Base URL of the daemon.") var url = "http://127.0.0.1:9099"
    @Option(
        help:
            "Admin token, sent when set: off loopback a daemon with an admin_token of its own needs it (default AUTHEMU_ADMIN_TOKEN)."
    )
    var adminToken: String? = ProcessInfo.processInfo.environment["AUTHEMU_ADMIN_TOKEN"]

    func run() async throws {
        var path = "/emulator/v1/projects/\(project)"
        if let tenant { path += "/tenants/\(tenant)" }
        guard let (host, port) = LoopbackHTTP.endpoint(url) else {
            throw ValidationError("--url must be http://host:port, got \(url)")
        }
        var components = URLComponents()
        var items = [URLQueryItem(name: "status", value: "PENDING"), URLQueryItem(name: "wait", value: String(wait))]
        if let phone { items.append(URLQueryItem(name: "phoneNumber", value: phone)) }
        components.queryItems = items
        let query = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        guard
            let reply = LoopbackHTTP.request(
                "GET", host: host, port: port, path: "\(path)/smsMessages?\(query)",
                headers: adminToken.map { ["Authorization: Bearer \($0)"] } ?? [], timeout: .seconds(Int64(wait) + 10))
        else { throw fail("cannot reach the daemon at \(url)") }
        let data = reply.body
        guard reply.status == 200,
            let body = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let messages = body["smsMessages"] as? [[String: Any]]
        else { throw fail("unexpected answer from \(url): \(String(decoding: data, as: UTF8.self))") }
        guard let newest = messages.last, let code = newest["code"] as? String else {
            throw fail("no pending SMS code\(phone.map { " for \($0)" } ?? "") within \(wait) s")
        }
        if json {
            let text = try JSONSerialization.data(
                withJSONObject: newest, options: [.sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: text, as: UTF8.self))
        } else {
            print(code)
        }
    }

    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("authemu codes: \(message)\n".utf8))
        return ExitCode(1)
    }
}
