import Foundation

/// `ActionCodeSettings.linkDomain`: the Firebase Hosting domain that opens email action links in
/// an app, which replaced Dynamic Links. With `canHandleCodeInApp`, production sends
/// `https://<linkDomain>/__/auth/links?link=<action URL>`; the SDKs take the `link` parameter
/// apart, so the action URL inside stays the emulator's own and works against it.
enum LinkDomain {
    /// The domain a request names (lower-cased), or nil when it names none. A domain under
    /// firebaseapp.com or web.app must be the project's own; when the project lists its custom
    /// Hosting domains (`emulatorSettings.hostingDomains`), it must be one of those or its own.
    static func checked(_ domain: String?, projectId: String, hostingDomains: [String]) throws -> String? {
        guard let domain, !domain.isEmpty else { return nil }
        let host = domain.lowercased()
        let own = ["\(projectId.lowercased()).firebaseapp.com", "\(projectId.lowercased()).web.app"]
        let valid = isHostname(host)
        let hostedByGoogle = host.hasSuffix(".firebaseapp.com") || host.hasSuffix(".web.app")
        let listed = hostingDomains.isEmpty || hostingDomains.contains { $0.lowercased() == host }
        guard valid, own.contains(host) || (!hostedByGoogle && listed) else {
            throw AuthError(
                "INVALID_HOSTING_LINK_DOMAIN",
                "The provided Hosting link domain is not configured in Firebase Hosting or is not owned by the current project."
            )
        }
        return host
    }

    /// The link production sends: the action URL inside `https://<domain>/__/auth/links`.
    static func wrap(_ actionLink: String, in domain: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return
            "https://\(domain)/__/auth/links?link=\(actionLink.addingPercentEncoding(withAllowedCharacters: allowed) ?? actionLink)"
    }

    /// Dot-separated labels of letters, digits and hyphens, no scheme, port or path.
    static func isHostname(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, text.count <= 253 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
