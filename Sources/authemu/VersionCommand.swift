import ArgumentParser
import AuthEmulator

/// `authemu version [--json]`: the version and the commit the binary was built from, as a bug
/// report needs them (`authemu --version` prints the same line).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print the version and the commit this binary was built from.")
    @Flag(help: "As JSON: {\"version\": …, \"commit\": …}.") var json = false

    func run() {
        guard json else { return print("authemu \(BuildVersion.description)") }
        let answer: JSONValue = .object([
            "version": .string(BuildVersion.number), "commit": .string(BuildVersion.commit),
        ])
        print(answer.jsonString())
    }
}
