import AuthEmulator
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the inspector, and the protections of its forms:
/// - on a loopback listener anyone on this machine may; on any other, the admin credential
///   (`Authorization: Bearer …`), or the session the login form opens: an HttpOnly,
///   SameSite=Strict cookie holding a value this daemon issued (`session()`), never the token;
/// - every state-changing POST carries the CSRF token of its page, which must equal the
///   SameSite=Strict cookie set with it (double submit: another site can neither read the cookie
///   nor make the browser send it);
/// - every page is served with a Content-Security-Policy that allows only the daemon's own
///   script and style.
struct InspectorAccess: Sendable {
    let adminToken: String
    let loopbackOnly: Bool
    /// Signs session values: one per process (every listener honours a session), so a restart
    /// (or a new `admin_token`, which the value is bound to) ends every session.
    private static let sessionKey = SymmetricKey(size: .bits256)

    static let sessionCookie = "authemu_admin"
    static let csrfCookie = "authemu_csrf"
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Whether the request may see the inspector.
    func allows(_ request: Request) -> Bool {
        if loopbackOnly { return true }
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
            ConstantTime.equal(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), adminToken)
        {
            return true
        }
        return Self.cookie(Self.sessionCookie, in: request).map(isSession) ?? false
    }

    /// A new session value: a random nonce and its HMAC under the daemon's key and the admin
    /// token. Stateless: nothing is stored per session, and a stolen cookie is not the token.
    func session() -> String {
        let nonce = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        return Base64.url(nonce) + "." + Base64.url(mac(nonce))
    }

    /// Whether a cookie holds a session this daemon issued under the current admin token.
    func isSession(_ value: String) -> Bool {
        let parts = value.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let nonce = Base64.decodeAny(String(parts[0])), nonce.count == 16 else {
            return false
        }
        return ConstantTime.equal(String(parts[1]), Base64.url(mac(nonce)))
    }

    private func mac(_ nonce: Data) -> Data {
        var hmac = HMAC<SHA256>(key: Self.sessionKey)
        hmac.update(data: nonce)
        hmac.update(data: Data(adminToken.utf8))
        return Data(hmac.finalize())
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
        return ConstantTime.equal(cookie, field)
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
}
