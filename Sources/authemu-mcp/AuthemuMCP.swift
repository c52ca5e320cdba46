import ArgumentParser
import AuthEmulatorTesting
import Foundation
import Logging
import MCP

/// `authemu mcp` (this binary, `authemu-mcp`): a Model Context Protocol server over stdio for
/// coding agents, which talks to a running daemon through the AuthEmulatorTesting helpers.
@main
struct AuthemuMCP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authemu mcp",
        abstract: "A Model Context Protocol server (stdio) for coding agents, talking to a running authemu daemon.")

    @Option(help: "The daemon (default: FIREBASE_AUTH_EMULATOR_HOST, else http://127.0.0.1:9099).")
    var url: String?
    @Option(help: "The project the tools act on.") var project: String = "demo-project"
    @Option(help: "A tenant of the project, for tenant-scoped tools.") var tenant: String?
    @Option(help: "The daemon's admin credential (its admin_token).") var adminToken: String = "owner"

    func validate() throws {
        if let url, Self.host(of: url) == nil {
            throw ValidationError("--url must be http://HOST:PORT or HOST:PORT, got \(url)")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let emulator = AuthEmulator(
            host: url.flatMap(Self.host), projectId: project, tenantId: tenant, adminToken: adminToken)
        let server = Server(
            name: "authemu", version: "0.1.0", capabilities: .init(tools: .init(listChanged: false)))
        let tools = EmulatorTools(emulator: emulator)
        await server.withMethodHandler(ListTools.self) { _ in .init(tools: EmulatorTools.catalog) }
        await server.withMethodHandler(CallTool.self) { params in
            await tools.call(params.name, arguments: params.arguments ?? [:])
        }
        try await server.start(transport: StdioTransport())
        await server.waitUntilCompleted()
    }

    /// `host:port` of `http://host:port[/]` or `host:port`; nil for anything else.
    static func host(of url: String) -> String? {
        var text = url
        if text.hasPrefix("http://") { text.removeFirst("http://".count) }
        while text.hasSuffix("/") { text.removeLast() }
        guard let colon = text.lastIndex(of: ":"), Int(text[text.index(after: colon)...]) != nil,
            colon != text.startIndex, !text.contains("/")
        else { return nil }
        return text
    }
}
