import AuthEmulatorHTTP
import Foundation
import NIOCore

/// What `serve` says about who can reach it: a listener that is not loopback-only gets one clear
/// warning, and the `export` lines name addresses a client can use instead of `0.0.0.0`.
enum ListenerExposure {
    static func isLoopback(_ address: String) -> Bool { isLoopbackAddress(address) }

    static func isWildcard(_ address: String) -> Bool { address == "0.0.0.0" || address == "::" }

    /// The warning for a listener other hosts can reach; nil when only this machine can.
    static func warning(boundTo address: String, port: Int, adminToken: String) -> String? {
        guard !isLoopback(address) else { return nil }
        let who =
            isWildcard(address)
            ? "every host that can reach any of this machine's addresses"
            : "every host that can reach \(address)"
        let credential =
            adminToken == "owner"
            ? "The admin credential is the well-known 'Bearer owner' (the Admin SDKs send it), so anyone who "
                + "can connect can read and change every account and setting; set admin_token to change it "
                + "(the Admin SDKs then no longer act as admin)."
            : "Admin APIs need the admin_token you set."
        return "authemu listens on \(hostPort(address, port)), not on loopback only: \(who) can use it. \(credential)"
    }

    /// `host:port` values for `FIREBASE_AUTH_EMULATOR_HOST`, best first: the address itself, or for
    /// a wildcard listener the host name, then the machine's addresses, then loopback.
    static func clientHosts(boundTo address: String, port: Int) -> [String] {
        guard isWildcard(address) else { return [hostPort(address, port)] }
        var hosts: [String] = []
        let name = ProcessInfo.processInfo.hostName
        if !name.isEmpty, name != "localhost" { hosts.append("\(name):\(port)") }
        for device in (try? System.enumerateDevices()) ?? [] {
            guard let ip = device.address?.ipAddress, !isLoopback(ip), !ip.hasPrefix("fe80") else { continue }
            if address == "0.0.0.0", ip.contains(":") { continue }
            let entry = hostPort(ip, port)
            if !hosts.contains(entry) { hosts.append(entry) }
        }
        hosts.append(hostPort(address == "::" ? "::1" : "127.0.0.1", port))
        return hosts
    }

    static func hostPort(_ address: String, _ port: Int) -> String {
        address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    }

    /// The first line can be pasted; the others are comments naming the alternatives.
    static func exportLines(boundTo address: String, port: Int) -> String {
        clientHosts(boundTo: address, port: port).enumerated().map { index, host in
            (index == 0 ? "" : "# or: ") + "export FIREBASE_AUTH_EMULATOR_HOST=\(host)"
        }.joined(separator: "\n") + "\n"
    }
}
