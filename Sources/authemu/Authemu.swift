import ArgumentParser

@main
struct Authemu: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authemu",
        abstract: "A local emulator of the Firebase Authentication / Identity Platform backend.",
        subcommands: [
            Serve.self, Exec.self, Codes.self, TotpCommand.self, ClockCommand.self, Health.self, Export.self,
            Import.self,
            Reset.self, McpCommand.self,
        ])
}
