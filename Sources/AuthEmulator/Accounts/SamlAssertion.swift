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

    /// The largest `SAMLResponse` read, as posted (base64 of a signed response with its
    /// certificate is 10–20 KB); larger is refused before it is decoded.
    static let maxBytes = 128 * 1024

    init(_ posted: String) throws(AuthError) {
        guard posted.utf8.count <= Self.maxBytes else {
            throw AuthError("INVALID_IDP_RESPONSE ((SAMLResponse is larger than 128 KiB.))")
        }
        if posted.hasPrefix("{") {
            guard let json = try? JSONValue.parse(Data(posted.utf8)) else { throw Self.unreadable }
            response = json
        } else if let decoded = Self.base64Decoded(posted) {
            let text = String(decoding: decoded, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("{"), let json = try? JSONValue.parse(Data(text.utf8)) {
                response = json
            } else if text.hasPrefix("<") {
                response = try Self.fromXML(text)
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

    private static func fromXML(_ xml: String) throws(AuthError) -> JSONValue {
        let document = try SamlDocumentReader(Array(xml.utf8))
        var assertion: [String: JSONValue] = [:]
        var subject: [String: JSONValue] = [:]
        if let nameId = document.nameId { subject["nameId"] = .string(nameId) }
        assertion["subject"] = .object(subject)
        var attributes: [String: JSONValue] = [:]
        for (name, values) in document.attributes {
            attributes[name] = values.count == 1 ? .string(values[0]) : .array(values.map(JSONValue.string))
        }
        if !attributes.isEmpty { assertion["attributeStatements"] = .object(attributes) }
        if let audience = document.audience { assertion["audience"] = .string(audience) }
        return .object(["assertion": .object(assertion)])
    }
}
