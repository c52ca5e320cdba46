import Foundation

/// `ActionCodeSettings.linkDomain`: the Firebase Hosting domain that opens email action links in
/// an app, which replaced Dynamic Links. With `canHandleCodeInApp`, production sends
/// `https://<linkDomain>/__/auth/links?link=<action URL>`; the SDKs take the `link` parameter
/// apart, so the action URL inside stays the emulator's own and works against it.
enum LinkDomain {
    /// The domain a request names (lower-cased), or nil when it names none. As production, it is
    /// never a default Hosting domain (under firebaseapp.com or web.app, the project's own
    /// included); when the project lists its custom Hosting domains
    /// (`emulatorSettings.hostingDomains`), it must be one of those. A project that lists none
    /// takes any host name: the emulator cannot know which domains production would find.
    static func checked(_ domain: String?, hostingDomains: [String]) throws -> String? {
        guard let domain, !domain.isEmpty else { return nil }
        let host = domain.lowercased()
        let hostedByDefault = host.hasSuffix(".firebaseapp.com") || host.hasSuffix(".web.app")
        let listed = hostingDomains.isEmpty || hostingDomains.contains { $0.lowercased() == host }
        guard isHostname(host), !hostedByDefault, listed else { throw refusal }
        return host
    }

    /// Production's answer, as the Admin SDKs' integration suites read it.
    static let refusal = AuthError(
        "INVALID_HOSTING_LINK_DOMAIN",
        "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. This cannot be a default hosting domain (web.app or firebaseapp.com)."
    )

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
