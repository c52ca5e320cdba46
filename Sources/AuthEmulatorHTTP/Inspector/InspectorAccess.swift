import AuthEmulator
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the inspector, and the protections of its forms:
/// - on a loopback listener anyone on this machine may; on any other, the admin credential
///   (`Authorization: Bearer …`, or the HttpOnly, SameSite=Strict cookie the login form sets);
/// - every state-changing POST carries the CSRF token of its page, which must equal the
///   SameSite=Strict cookie set with it (double submit: another site can neither read the cookie
///   nor make the browser send it);
/// - every page is served with a Content-Security-Policy that allows only the daemon's own
///   script and style.
struct InspectorAccess: Sendable {
    let adminToken: String
    let loopbackOnly: Bool

    static let sessionCookie = "authemu_admin"
    static let csrfCookie = "authemu_csrf"
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Whether the request may see the inspector.
    func allows(_ request: Request) -> Bool {
        if loopbackOnly { return true }
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
            Self.equal(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), adminToken)
        {
            return true
        }
        return Self.cookie(Self.sessionCookie, in: request).map { Self.equal($0, adminToken) } ?? false
    }

    /// The page's CSRF token: the request's cookie, or a new one (set by `headers`).
    static func csrfToken(_ request: Request) -> (token: String, isNew: Bool) {
        if let token = cookie(csrfCookie, in: request), token.count == 43 { return (token, false) }
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return (Base64.url(bytes), true)
    }

    /// A POST's form field `_csrf` equals its cookie.
    static func csrfValid(_ request: Request, form: [String: String]) -> Bool {
        guard let cookie = cookie(csrfCookie, in: request), let field = form["_csrf"] else { return false }
        return equal(cookie, field)
    }

    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    static func setCookie(_ name: String, _ value: String) -> String {
        "\(name)=\(value); Path=/emulator/ui; HttpOnly; SameSite=Strict"
    }

    static func equal(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8)
        let b = Array(right.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
