import Foundation

/// `application/x-www-form-urlencoded` text: the token endpoint's request bodies and the
/// `postBody` a client passes to signInWithIdp.
public enum FormEncoding {
    /// The decoded `key=value` pairs of `text`; a pair without `=` has an empty value, and a
    /// repeated key keeps its last value.
    public static func fields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.utf8.split(separator: UInt8(ascii: "&")) {
            // Keeping empty parts: a pair of just "=" has none otherwise, and parts[0] would trap.
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            fields[decoded(parts[0])] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return fields
    }

    /// `+` is a space, `%XX` a byte; a `%` not followed by two hex digits is kept as it is, and
    /// bytes that are not UTF-8 become U+FFFD. (Foundation's `removingPercentEncoding` made a
    /// token refresh cost twice a sign-in.)
    public static func decoded(_ bytes: Substring.UTF8View.SubSequence) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `text` as a form value: everything but unreserved characters (RFC 3986) percent-encoded.
    public static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
