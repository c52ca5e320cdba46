/// A `Host` header's or an origin's `host[:port]`, parsed exactly (RFC 3986 §3.2.2): an IPv6
/// literal in brackets, or a name of letters, digits, `-`, `_` and `.`; then nothing, or `:` and
/// one to five digits. Anything else (userinfo, a path, a space, an empty label, a trailing dot, a
/// port that is not a number) is no name at all. Both defences that read names (the `Host` check,
/// `DaemonNames`, and the trusted-origin check, `OriginPolicy`) use it, so they cannot disagree.
struct HostName: Equatable {
    /// Lowercased; an IPv6 literal without its brackets.
    let host: String
    let isIPv6: Bool

    init?(authority: Substring) {
        var rest = authority[...]
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            let literal = rest[rest.index(after: rest.startIndex)..<close]
            guard !literal.isEmpty, literal.utf8.allSatisfy(Self.isIPv6Byte) else { return nil }
            host = literal.lowercased()
            isIPv6 = true
            rest = rest[rest.index(after: close)...]
        } else {
            let end = rest.firstIndex(of: ":") ?? rest.endIndex
            let name = rest[..<end]
            guard Self.isName(name) else { return nil }
            host = name.lowercased()
            isIPv6 = false
            rest = rest[end...]
        }
        guard rest.isEmpty || Self.isPort(rest) else { return nil }
    }

    /// Loopback for certain: `localhost`, a name under `.localhost` (RFC 6761 §6.3), a dotted-quad
    /// IPv4 address in 127.0.0.0/8, or `::1`.
    var isLoopback: Bool {
        if isIPv6 { return host == "::1" || host == "0:0:0:0:0:0:0:1" }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        guard let octets = Self.ipv4(host) else { return false }
        return octets[0] == 127
    }

    /// The four numbers of a dotted-quad address (each 0–255, one to three digits), else nil.
    static func ipv4(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(part), value <= 255
            else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// Labels of letters, digits, `-` and `_`, joined by single dots, with no empty label (so no
    /// trailing dot), at most 253 bytes.
    private static func isName(_ name: Substring) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        var previousWasDot = true
        for byte in name.utf8 {
            if byte == UInt8(ascii: ".") {
                if previousWasDot { return false }
                previousWasDot = true
                continue
            }
            previousWasDot = false
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default:
                return false
            }
        }
        return !previousWasDot
    }

    /// `:` and one to five digits.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static func isIPv6Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: ":"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
