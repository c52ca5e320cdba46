import ArgumentParser
import AuthEmulator

@main
struct Authemu: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authemu",
        abstract: "A local emulator of the Firebase Authentication / Identity Platform backend.",
        version: "authemu \(BuildVersion.description)",
        subcommands: [
            Serve.self, Exec.self, Codes.self, TotpCommand.self, ClockCommand.self, Health.self, Export.self,
            Import.self,
            Reset.self, McpCommand.self, VersionCommand.self,
        ])
}
