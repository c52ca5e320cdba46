import Foundation
import Testing

@testable import AuthEmulator

/// A SAML 2.0 `<Response>` as an IdP posts it, read in one pass (`SamlDocumentReader`).
@Suite("SAML documents")
struct SamlDocumentTests {
    static func read(_ xml: String) throws -> SamlDocumentReader { try SamlDocumentReader(Array(xml.utf8)) }

    static func refusal(_ xml: String) -> String? {
        do {
            _ = try read(xml)
            return nil
        } catch let error as AuthError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test("NameID, Audience and attributes by local name; entities, CDATA, comments and several values")
    func reads() throws {
        let document = try Self.read(
            """
            <?xml version="1.0"?><!-- an IdP's note --><samlp:Response xmlns:samlp="p" xmlns:saml="a">
            <saml:Assertion><saml:Subject><saml:NameID Format='x'>ada&amp;co@example.com</saml:NameID></saml:Subject>
            <saml:Conditions><saml:AudienceRestriction><saml:Audience>app&#x41;</saml:Audience></saml:AudienceRestriction>
            </saml:Conditions><saml:AttributeStatement>
            <saml:Attribute Name="role"><saml:AttributeValue>admin</saml:AttributeValue>
            <saml:AttributeValue><![CDATA[<ops>]]></saml:AttributeValue></saml:Attribute>
            <Attribute Name="team &quot;a&quot;"><AttributeValue>x&#60;y</AttributeValue></Attribute>
            <saml:Attribute Name="empty"/></saml:AttributeStatement></saml:Assertion></samlp:Response>
            """)
        #expect(document.nameId == "ada&co@example.com")
        #expect(document.audience == "appA")
        #expect(document.attributes.map(\.name) == ["role", "team \"a\"", "empty"])
        #expect(document.attributes.map(\.values) == [["admin", "<ops>"], ["x<y"], []])
    }

    @Test("a DTD, an unclosed element, a wrong end tag, an unknown entity and deep nesting are refused")
    func refuses() {
        let prefix = "INVALID_IDP_RESPONSE ((SAMLResponse is not a readable SAML document: "
        #expect(
            Self.refusal(#"<!DOCTYPE r [<!ENTITY a "aaaa">]><r>&a;</r>"#) == prefix + "a DTD is not allowed.))")
        #expect(Self.refusal("<r><NameID>x</NameID>") == prefix + "an element is not closed.))")
        #expect(Self.refusal("<r><a></b></r>") == prefix + "an end tag closes no element of its name.))")
        #expect(Self.refusal("<r><NameID>&bogus;</NameID></r>") == prefix + "&bogus; is not a known reference.))")
        #expect(Self.refusal("<r a=b/>") == prefix + "an attribute value is not quoted.))")
        #expect(Self.refusal("<r><!-- open") == prefix + "a comment is not closed.))")
        let deep = String(repeating: "<a>", count: 65) + String(repeating: "</a>", count: 65)
        #expect(Self.refusal(deep) == prefix + "elements are nested more than 64 deep.))")
        let shallow = String(repeating: "<a>", count: 64) + String(repeating: "</a>", count: 64)
        #expect(Self.refusal(shallow) == nil)
    }

    @Test("the input that made the old patterns quadratic is read in one pass: unclosed Attribute tags")
    func pathological() throws {
        let repeated = String(repeating: "<saml:Attribute Name=\"n\">", count: 4_000)
        #expect(
            Self.refusal(repeated)
                == "INVALID_IDP_RESPONSE ((SAMLResponse is not a readable SAML document: elements are nested more than 64 deep.))"
        )
        let flat =
            "<r>"
            + String(
                repeating: "<saml:Attribute Name=\"n\"><saml:AttributeValue>v</saml:AttributeValue></saml:Attribute>",
                count: 1_000) + "</r>"
        let document = try Self.read(flat)
        #expect(document.attributes.count == 1_000)
    }

    @Test("a SAMLResponse over 128 KiB is refused before it is decoded")
    func sizeLimit() {
        let large = String(repeating: "A", count: SamlAssertion.maxBytes + 1)
        #expect(throws: AuthError("INVALID_IDP_RESPONSE ((SAMLResponse is larger than 128 KiB.))")) {
            _ = try SamlAssertion(large)
        }
    }
}
