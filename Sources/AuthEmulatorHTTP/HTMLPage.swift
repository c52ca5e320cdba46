import Foundation
import HTTPTypes
import Hummingbird

/// How every HTML page leaves the daemon: with a strict Content-Security-Policy (scripts and styles
/// only from the daemon, inline ones only with the answer's nonce, no inline event handlers),
/// `X-Content-Type-Options: nosniff`, `no-store` and no referrer. A page built without a policy of
/// its own still gets `fallbackPolicy` from `BrowserDefenceMiddleware`, which runs no script at all,
/// so a new page cannot forget its policy and run someone else's script.
enum HTMLPage {
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    /// What an HTML answer without a policy of its own gets: nothing runs, loads or frames it.
    static let fallbackPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    /// A fresh nonce for one answer's inline `<script>` and `<style>` (128 random bits).
    static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// The headers every HTML page carries, with its policy.
    static func headers(policy: String) -> HTTPFields {
        [
            .contentType: "text/html; charset=utf-8", contentSecurityPolicy: policy, contentTypeOptions: "nosniff",
            .cacheControl: "no-store", referrerPolicy: "no-referrer",
        ]
    }

    static func response(_ html: String, policy: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: headers(policy: policy), body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Adds `fallbackPolicy` and `nosniff` to an HTML answer that has no policy.
    static func guarded(_ response: inout Response) {
        guard response.headers[contentSecurityPolicy] == nil,
            let type = response.headers[.contentType], type.utf8.starts(with: "text/html".utf8)
        else { return }
        response.headers[contentSecurityPolicy] = fallbackPolicy
        response.headers[contentTypeOptions] = "nosniff"
    }
}
