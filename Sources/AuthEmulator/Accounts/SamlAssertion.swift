import Foundation

/// The `SAMLResponse` a fake SAML IdP posts, in the form authemu reads it: the JSON firebase-tools'
/// emulator takes (`{"assertion": {"subject": {"nameId": …}, "attributeStatements": {…}}}`), that
/// JSON base64-encoded, or a base64-encoded SAML 2.0 `<Response>` document, as an IdP (or
/// `accounts:issueSamlResponse`) posts it to the app's ACS URL in an IdP-initiated sign-in.
///
/// An XML document is read, not verified: its `NameID`, its attributes (`Name` → value, a list for
/// several values) and its `Audience`. Signatures cannot be checked against an IdP that is not
/// there, as the emulator's fake id_tokens are unsigned.
struct SamlAssertion {
    /// The emulator's JSON form; an XML document is turned into it.
    var response: JSONValue

    init(_ posted: String) throws(AuthError) {
        if posted.hasPrefix("{") {
            guard let json = try? JSONValue.parse(Data(posted.utf8)) else { throw Self.unreadable }
            response = json
        } else if let decoded = Self.base64Decoded(posted) {
            let text = String(decoding: decoded, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("{"), let json = try? JSONValue.parse(Data(text.utf8)) {
                response = json
            } else if text.hasPrefix("<") {
                response = Self.fromXML(text)
            } else {
                throw Self.unreadable
            }
        } else {
            throw Self.unreadable
        }
        try check()
    }

    private static let unreadable = AuthError(
        "INVALID_IDP_RESPONSE ((SAMLResponse is neither JSON nor a base64-encoded SAML response.))")

    private func check() throws(AuthError) {
        guard let assertion = response["assertion"], !assertion.isNull else {
            throw AuthError("INVALID_IDP_RESPONSE ((Missing assertion in SAMLResponse.))")
        }
        guard let subject = assertion["subject"], !subject.isNull else {
            throw AuthError("INVALID_IDP_RESPONSE ((Missing assertion.subject in SAMLResponse.))")
        }
        guard let nameId = subject["nameId"], !nameId.isNull, nameId.stringValue != "" else {
            throw AuthError("INVALID_IDP_RESPONSE ((Missing assertion.subject.nameId in SAMLResponse.))")
        }
    }

    /// Base64 as IdPs post it: wrapped in lines, and with `+` turned into a space when the form
    /// field was not percent-encoded.
    private static func base64Decoded(_ text: String) -> Data? {
        let compact = String(
            text.unicodeScalars.compactMap { scalar -> Character? in
                switch scalar {
                case "\r", "\n", "\t": return nil
                case " ": return "+"
                default: return Character(scalar)
                }
            })
        guard !compact.isEmpty else { return nil }
        return Base64.decodeAny(compact)
    }

    private static func fromXML(_ xml: String) -> JSONValue {
        var assertion: [String: JSONValue] = [:]
        var subject: [String: JSONValue] = [:]
        if let nameId = firstText(xml, element: "NameID") { subject["nameId"] = .string(nameId) }
        assertion["subject"] = .object(subject)
        var attributes: [String: JSONValue] = [:]
        for match in xml.matches(of: attributePattern) {
            guard let name = attributeName(String(match.output.1)) else { continue }
            let values = match.output.2.matches(of: valuePattern).map {
                JSONValue.string(unescaped(String($0.output.1)))
            }
            attributes[name] = values.count == 1 ? values[0] : .array(values)
        }
        if !attributes.isEmpty { assertion["attributeStatements"] = .object(attributes) }
        if let audience = firstText(xml, element: "Audience") { assertion["audience"] = .string(audience) }
        return .object(["assertion": .object(assertion)])
    }

    private static func firstText(_ xml: String, element: String) -> String? {
        let pattern = try! Regex<(Substring, Substring)>("<(?:[A-Za-z0-9_.-]+:)?\(element)\\b[^>]*>([^<]*)</")
        return xml.firstMatch(of: pattern).map { unescaped(String($0.output.1)) }
    }

    private static func attributeName(_ tag: String) -> String? {
        tag.firstMatch(of: namePattern).map { unescaped(String($0.output.1)) }
    }

    nonisolated(unsafe) private static let attributePattern = try! Regex<(Substring, Substring, Substring)>(
        "<(?:[A-Za-z0-9_.-]+:)?Attribute\\b([^>]*)>(.*?)</(?:[A-Za-z0-9_.-]+:)?Attribute>"
    ).dotMatchesNewlines()
    nonisolated(unsafe) private static let valuePattern = try! Regex<(Substring, Substring)>(
        "<(?:[A-Za-z0-9_.-]+:)?AttributeValue\\b[^>]*>([^<]*)</")
    nonisolated(unsafe) private static let namePattern = try! Regex<(Substring, Substring)>("\\bName=\"([^\"]*)\"")

    private static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}
