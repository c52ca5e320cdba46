import Foundation

/// `accounts:issueSamlResponse`: Identity Platform as a SAML IdP. The signed-in user of `idToken`
/// gets a SAML response for the relying party `rpId` to post to its ACS URL.
public struct IssueSamlResponseRequest: Decodable, Sendable {
    public var rpId: String?
    public var idToken: String?
    public var samlAppEntityId: String?
}

extension Emulator {
    /// The response is a base64 SAML 2.0 `<Response>` whose `NameID` is the user's email (else
    /// its localId), `Audience` the `rpId` and attributes `email`, `firstName` and `lastName` (the
    /// display name's first word and the rest). It is unsigned: nothing offline could check a
    /// signature. The ACS URL is the `callbackUri` of the scope's SAML provider whose `spEntityId`
    /// is `rpId`, so a test can sign in with it there (`signInWithIdp`, IdP-initiated); else the
    /// default one, `https://{project}.firebaseapp.com/__/auth/handler`. `samlAppEntityId` adds a
    /// `relayState` holding a `SAMLRequest` from that app, to start its SP-initiated flow.
    public func issueSamlResponse(_ request: IssueSamlResponseRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        guard let idToken = request.idToken, !idToken.isEmpty else { throw AuthError.missingIdToken }
        guard let rpId = request.rpId, !rpId.isEmpty else { throw AuthError("MISSING_RP_ID") }
        let claims = try tokens.decodeIdToken(idToken)
        let (user, samlConfigs) = try await store.read { tx in
            try await self.enabledSettings(tx, scope, create: false)
            let user = try await Emulator.userForIdToken(tx, claims, scope: scope)
            return (user, try await tx.listIdpConfigs(scope, kind: IdpConfigKind.saml.rawValue))
        }
        let acsEndpoint =
            samlConfigs.first { $0.value(at: "spConfig.spEntityId")?.stringValue == rpId }?
            .value(at: "spConfig.callbackUri")?.stringValue
            ?? "https://\(scope.projectId).firebaseapp.com/__/auth/handler"
        let names = user.displayName.map { $0.split(separator: " ", maxSplits: 1).map(String.init) } ?? []
        let document = SamlResponseDocument(
            issuer: "https://securetoken.google.com/\(scope.projectId)", audience: rpId, destination: acsEndpoint,
            nameId: user.email ?? user.localId, nameIdIsEmail: user.email != nil,
            attributes: [("email", user.email), ("firstName", names.first), ("lastName", names.dropFirst().first)],
            issuedAt: clock.now(), newId: { "_" + self.random.alphanumeric(32) })
        var response: [String: JSONValue] = [
            "samlResponse": .string(Data(document.response().utf8).base64EncodedString()),
            "acsEndpoint": .string(acsEndpoint), "isNewUser": false,
        ]
        if let app = request.samlAppEntityId, !app.isEmpty {
            let samlRequest = Data(document.authnRequest(from: app).utf8).base64EncodedString()
            response["relayState"] = .string("SAMLRequest=" + FormEncoding.encoded(samlRequest))
        }
        response.setIfPresent("email", user.email.map(JSONValue.string))
        response.setIfPresent("firstName", names.first.map(JSONValue.string))
        response.setIfPresent("lastName", names.dropFirst().first.map(JSONValue.string))
        return .object(response)
    }
}

/// The SAML 2.0 documents `issueSamlResponse` writes: a `<samlp:Response>` with one bearer
/// assertion valid for five minutes, and an app's `<samlp:AuthnRequest>`.
struct SamlResponseDocument {
    var issuer: String
    var audience: String
    var destination: String
    var nameId: String
    var nameIdIsEmail: Bool
    var attributes: [(name: String, value: String?)]
    var issuedAt: Date
    var newId: () -> String

    private static let protocolNamespace = "urn:oasis:names:tc:SAML:2.0:protocol"
    private static let assertionNamespace = "urn:oasis:names:tc:SAML:2.0:assertion"

    func response() -> String {
        let now = Self.instant(issuedAt)
        let expiry = Self.instant(issuedAt.addingTimeInterval(300))
        let format =
            nameIdIsEmail
            ? "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
            : "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"
        let attributeElements = attributes.compactMap { attribute in
            attribute.value.map {
                #"<saml:Attribute Name="\#(attribute.name)"><saml:AttributeValue>\#(Self.escaped($0))</saml:AttributeValue></saml:Attribute>"#
            }
        }.joined()
        return #"<?xml version="1.0" encoding="UTF-8"?>"#
            + #"<samlp:Response xmlns:samlp="\#(Self.protocolNamespace)" xmlns:saml="\#(Self.assertionNamespace)" ID="\#(newId())" Version="2.0" IssueInstant="\#(now)" Destination="\#(Self.escaped(destination))">"#
            + "<saml:Issuer>\(Self.escaped(issuer))</saml:Issuer>"
            + #"<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>"#
            + #"<saml:Assertion ID="\#(newId())" Version="2.0" IssueInstant="\#(now)">"#
            + "<saml:Issuer>\(Self.escaped(issuer))</saml:Issuer>"
            + #"<saml:Subject><saml:NameID Format="\#(format)">\#(Self.escaped(nameId))</saml:NameID>"#
            + #"<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">"#
            + #"<saml:SubjectConfirmationData NotOnOrAfter="\#(expiry)" Recipient="\#(Self.escaped(destination))"/>"#
            + "</saml:SubjectConfirmation></saml:Subject>"
            + #"<saml:Conditions NotBefore="\#(now)" NotOnOrAfter="\#(expiry)">"#
            + "<saml:AudienceRestriction><saml:Audience>\(Self.escaped(audience))</saml:Audience></saml:AudienceRestriction>"
            + "</saml:Conditions>"
            + #"<saml:AuthnStatement AuthnInstant="\#(now)"><saml:AuthnContext>"#
            + "<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified</saml:AuthnContextClassRef>"
            + "</saml:AuthnContext></saml:AuthnStatement>"
            + (attributeElements.isEmpty
                ? "" : "<saml:AttributeStatement>\(attributeElements)</saml:AttributeStatement>")
            + "</saml:Assertion></samlp:Response>"
    }

    func authnRequest(from app: String) -> String {
        #"<samlp:AuthnRequest xmlns:samlp="\#(Self.protocolNamespace)" xmlns:saml="\#(Self.assertionNamespace)" ID="\#(newId())" Version="2.0" IssueInstant="\#(Self.instant(issuedAt))">"#
            + "<saml:Issuer>\(Self.escaped(app))</saml:Issuer></samlp:AuthnRequest>"
    }

    /// `xs:dateTime` in UTC, whole seconds, as SAML writes instants.
    private static func instant(_ date: Date) -> String { date.formatted(.iso8601) }

    private static func escaped(_ text: String) -> String { MarkupEscaping.escaped(text) }
}
