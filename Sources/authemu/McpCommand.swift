import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `authemu mcp …`: runs `authemu-mcp` (beside this binary, or in ../libexec/authemu) with the same arguments, so
/// the daemon itself never links the MCP SDK or Foundation's networking.
struct McpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Run the Model Context Protocol server for coding agents (stdio); see authemu mcp --help.")

    @Argument(
        parsing: .captureForPassthrough, help: "Options of authemu-mcp: --url, --project, --tenant, --admin-token.")
    var arguments: [String] = []

    func run() throws {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // Beside this binary (a build folder), or where the .deb puts it (/usr/bin -> /usr/libexec/authemu).
        let candidates = [
            directory.appendingPathComponent("authemu-mcp").path,
            directory.deletingLastPathComponent().appendingPathComponent("libexec/authemu/authemu-mcp").path,
        ]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ValidationError("authemu-mcp is not installed (looked for \(candidates.joined(separator: " and ")))")
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        throw ValidationError("cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
