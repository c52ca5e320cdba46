import Foundation
import Hummingbird

/// The parameters of an IdP widget link (`/emulator/auth/handler?…`) that the page turns into a
/// navigation: each must be what an SDK sends, so no link can make the page (on the daemon's
/// origin, where the codes and accounts are) open a `javascript:` or `data:` URL.
/// - `redirectUrl`: an `http(s)` address (where the JS SDK's redirect flow returns);
/// - `ibi` (iOS bundle id), `clientId` (reversed: the app's URL scheme) and `appId` (its
///   `app-1-…` scheme): the scheme of the app, letters, digits, `+`, `-` and `.`, never a scheme
///   that runs or embeds content;
/// - `apn`: an Android package name;
/// - `eventId`, `authType`: letters, digits, `-`, `_`, `.`, `:`.
enum IdpWidgetLink {
    /// Why the link is refused, or nil.
    static func refusal(_ query: Parameters) -> String? {
        if let url = query.get("redirectUrl"), !url.isEmpty, !isWebAddress(url) {
            return "redirectUrl must be an http(s) address"
        }
        if let ibi = query.get("ibi"), !ibi.isEmpty, !isAppScheme(ibi) { return "ibi is not an iOS bundle id" }
        if let clientId = query.get("clientId"), !clientId.isEmpty,
            !isAppScheme(
                clientId.split(separator: ".", omittingEmptySubsequences: false).reversed().joined(separator: "."))
        {
            return "clientId is not an OAuth client id"
        }
        if let appId = query.get("appId"), !appId.isEmpty,
            !appId.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "-") })
        {
            return "appId is not a Firebase app id"
        }
        if let apn = query.get("apn"), !apn.isEmpty, !isPackageName(apn) { return "apn is not an Android package name" }
        for name in ["eventId", "authType"] {
            if let value = query.get(name), !value.utf8.allSatisfy(isTokenByte) {
                return "\(name) holds characters an SDK never sends"
            }
        }
        return nil
    }

    /// Whether a URL from a request may be navigated to by a page of the daemon's: `http(s)` only.
    static func isWebAddress(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return false }
        return true
    }

    /// An app's custom URL scheme (RFC 3986 §3.1), not one that runs or embeds content.
    static func isAppScheme(_ scheme: String) -> Bool {
        guard let first = scheme.utf8.first, isLetter(first), scheme.utf8.count <= 200,
            scheme.utf8.allSatisfy({
                isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else { return false }
        return !forbiddenSchemes.contains(scheme.lowercased())
    }

    static let forbiddenSchemes: Set<String> = [
        "javascript", "data", "vbscript", "file", "blob", "about", "filesystem", "intent",
    ]

    /// `com.example.app`: dot-separated Java identifiers.
    static func isPackageName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 200
            && parts.allSatisfy { part in
                guard let first = part.utf8.first, isLetter(first) else { return false }
                return part.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") }
            }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: ":")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
