import Foundation

/// Where a project's Cloud Functions emulator listens, and how that was learnt.
public struct FunctionsEmulatorAddress: Sendable, Hashable {
    /// `http://host:port` (an IPv6 host in brackets).
    public var origin: String
    /// For the log: the flag, key or file that named it, or the hub that listed it.
    public var foundThrough: String

    public init(origin: String, foundThrough: String) {
        self.origin = origin
        self.foundThrough = foundThrough
    }

    /// `http://host:port` from `host:port`, `[v6]:port` or `http://host:port`; a wildcard host
    /// (`0.0.0.0`, `::`) is reached on loopback, as firebase-tools' `connectableHostname` does.
    /// nil when it is none of those.
    public static func origin(_ text: String) -> String? {
        var rest = text
        if rest.lowercased().hasPrefix("http://") { rest = String(rest.dropFirst("http://".count)) }
        if rest.hasSuffix("/") { rest = String(rest.dropLast()) }
        let host: String
        let portText: Substring
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            guard rest[rest.index(after: close)...].hasPrefix(":") else { return nil }
            portText = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else { return nil }
            host = String(rest[..<colon])
            portText = rest[rest.index(after: colon)...]
        }
        guard let port = Int(portText), (1...65535).contains(port), !host.isEmpty,
            host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:_".contains($0) })
        else { return nil }
        return "http://\(connectable(host)):\(port)"
    }

    /// A host as something to connect to: wildcards become loopback, IPv6 goes in brackets.
    public static func connectable(_ host: String) -> String {
        switch host {
        case "0.0.0.0": return "127.0.0.1"
        case "::", "[::]": return "[::1]"
        default: return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        }
    }
}

/// How auth events reach a Functions emulator: the daemon's is HTTP with discovery
/// (`FunctionsEmulatorClient`); tests give their own.
public protocol FunctionsEmulatorLink: Sendable {
    /// Where `projectId`'s events go now; nil while no Functions emulator is known. A link that
    /// discovers looks again when its last look is a few seconds old, or at once on `lookAgain`
    /// (the last address failed).
    func locate(projectId: String, lookAgain: Bool) async -> FunctionsEmulatorAddress?
    /// Posts `event` to `address` and gives the HTTP status; throws when it cannot be reached.
    func send(_ event: AuthEvent, to address: FunctionsEmulatorAddress) async throws -> Int
    /// One line for the start-up log: where events go, or how they will be looked for.
    var startupDescription: String { get }
}

/// A Functions emulator that answered with an error status (5xx: kept and tried again).
struct FunctionsEmulatorStatusError: Error, CustomStringConvertible {
    let status: Int
    var description: String { "it answered HTTP \(status)" }
}
