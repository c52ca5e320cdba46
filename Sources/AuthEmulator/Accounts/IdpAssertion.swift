import Crypto
import Foundation

/// What the fake IdP of firebase-tools asserted: `providerId`, an unsigned `id_token` (JWT or
/// plain JSON claims, `sub` required) or `access_token`, and for `saml.*` providers a
/// `SAMLResponse` (`SamlAssertion`; alone, an IdP-initiated sign-in), read from `requestUri`'s
/// query, then `postBody`, then the URI fragment (a later source wins).
struct IdpAssertion: Sendable {
    var providerId: String
    var rawId: String
    var claims: [String: JSONValue]
    var idToken: String?
    var accessToken: String?
    var samlResponse: JSONValue?

    init(requestUri: String?, postBody: String?, tokens: TokenService) throws(AuthError) {
        guard let requestUri, !requestUri.isEmpty else { throw AuthError("MISSING_REQUEST_URI") }
        guard let components = URLComponents(string: requestUri), components.scheme != nil else {
            throw AuthError("INVALID_REQUEST_URI")
        }
        var fields = FormEncoding.fields(components.percentEncodedQuery ?? "")
        for (key, value) in FormEncoding.fields(postBody ?? "") { fields[key] = value }
        for (key, value) in FormEncoding.fields(components.percentEncodedFragment ?? "") { fields[key] = value }
        fields = fields.filter { !$0.key.isEmpty }
        guard let providerId = fields["providerId"]?.lowercased(), !providerId.isEmpty else {
            throw AuthError(
                "INVALID_CREDENTIAL_OR_PROVIDER_ID",
                "Invalid IdP response/credential: \(Self.describe(requestUri, fields))")
        }
        self.providerId = providerId
        idToken = fields["id_token"].flatMap { $0.isEmpty ? nil : $0 }
        accessToken = fields["access_token"].flatMap { $0.isEmpty ? nil : $0 }
        if let saml = fields["SAMLResponse"], !saml.isEmpty { samlResponse = try SamlAssertion(saml).response }
        var parsed = try Self.claims(idToken, tokens)
        if parsed == nil { parsed = try Self.claims(accessToken, tokens) }
        // IdP-initiated SAML (the iOS SDK's `SignInWithSamlIdpRequest`, firebase-tools#9058): the
        // IdP's assertion alone, posted to the ACS URL; its NameID is the user.
        if parsed == nil, idToken == nil, providerId.hasPrefix("saml."),
            let nameId = samlResponse?.value(at: "assertion.subject.nameId")?.stringValue
        {
            parsed = ["sub": .string(nameId)]
        }
        // Google Play Games: the app's `serverAuthCode` (`code`), which production exchanges with
        // Google. The emulator's fake code is what its fake id_token is: the player's claims as
        // strict JSON or an unsigned JWT (`sub` the player id).
        if parsed == nil, providerId == Self.playGamesProviderId,
            let code = (fields["code"] ?? fields["serverAuthCode"]).flatMap({ $0.isEmpty ? nil : $0 })
        {
            guard let player = try Self.claims(code, tokens) else {
                throw AuthError(
                    "INVALID_IDP_RESPONSE",
                    "Unable to parse serverAuthCode: \(code) ((Auth Emulator only accepts strict JSON or JWTs as fake Play Games codes.))"
                )
            }
            parsed = player
        }
        // An opaque access token alone (Flutter and Android send `access_token=…&providerId=…`, as
        // production accepts): a user keyed by the token, the provider's profile fields empty.
        if parsed == nil, idToken == nil, let accessToken { parsed = ["sub": .string(Self.subject(of: accessToken))] }
        guard let claims = parsed else {
            if let idToken {
                throw AuthError(
                    "INVALID_IDP_RESPONSE",
                    "Unable to parse id_token: \(idToken) ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))"
                )
            }
            throw AuthError(
                "NOT_IMPLEMENTED", "The Auth Emulator only supports sign-in with credentials (id_token required).",
                kind: .notImplemented)
        }
        self.claims = claims
        rawId = claims["sub"]?.stringValue ?? ""
    }

    static let playGamesProviderId = "playgames.google.com"

    /// The IdP user id of an opaque access token: the token itself, or for a token over 128
    /// characters `sha256:` and its hex digest, so the same token is always the same user.
    static func subject(of accessToken: String) -> String {
        guard accessToken.count > 128 else { return accessToken }
        return "sha256:" + SHA256.hash(data: Data(accessToken.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The claims of an unsigned JWT or a JSON object; nil when `token` is neither.
    private static func claims(_ token: String?, _ tokens: TokenService) throws(AuthError) -> [String: JSONValue]? {
        guard let token else { return nil }
        let claims: [String: JSONValue]
        if token.hasPrefix("{") {
            guard let object = (try? JSONValue.parse(Data(token.utf8)))?.objectValue else {
                throw AuthError(
                    "INVALID_IDP_RESPONSE",
                    "Unable to parse id_token: \(token) ((Auth Emulator failed to parse fake id_token as strict JSON.))"
                )
            }
            claims = object
        } else {
            guard let decoded = tokens.decodeUnverified(token) else { return nil }
            claims = decoded
        }
        guard let sub = claims["sub"], !sub.isNull, sub.stringValue != "" else {
            throw AuthError(
                "INVALID_IDP_RESPONSE",
                #"Invalid Idp Response: id_token missing required fields. ((Missing "sub" field. This field is required and must be a unique identifier.))"#
            )
        }
        guard sub.stringValue != nil else {
            throw AuthError("INVALID_IDP_RESPONSE", #"((The "sub" field must be a string.))"#)
        }
        return claims
    }

    private static func describe(_ requestUri: String, _ fields: [String: String]) -> String {
        guard !fields.isEmpty else { return requestUri }
        let query = fields.keys.sorted().map { "\($0)=\(fields[$0]!)" }.joined(separator: "&")
        return "\(requestUri.split(separator: "?", maxSplits: 1)[0])?\(query)"
    }

    var email: String? {
        if providerId.hasPrefix("saml."), let nameId = samlResponse?.value(at: "assertion.subject.nameId")?.stringValue,
            Validation.isEmail(nameId)
        {
            return nameId
        }
        return claims["email"]?.stringValue?.lowercased()
    }
    /// `email_verified` true (or Apple's "true"); SAML assertions always verify their email.
    var emailVerified: Bool {
        if providerId.hasPrefix("saml.") { return true }
        return claims["email_verified"]?.boolValue ?? (claims["email_verified"]?.stringValue == "true")
    }
    var displayName: String? { claims["name"]?.stringValue }
    var photoUrl: String? { claims["picture"]?.stringValue }
    var screenName: String? { claims["screen_name"]?.stringValue }
    /// SAML attribute statements, which also go into the ID token as `firebase.sign_in_attributes`.
    var signInAttributes: JSONValue? { samlResponse?.value(at: "assertion.attributeStatements") }

    /// The provider entry a sign-in links (production sets `federatedId` to the raw id here).
    var providerInfo: ProviderUserInfo {
        ProviderUserInfo(
            providerId: providerId, rawId: rawId, federatedId: rawId, email: email, displayName: displayName,
            photoUrl: photoUrl, screenName: screenName)
    }

    /// The IdP part of the response, as firebase-tools' fake user-info fetch builds it.
    var response: [String: JSONValue] {
        var response: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyAssertionResponse", "context": "", "providerId": .string(providerId),
            "emailVerified": .bool(emailVerified), "federatedId": .string(rawId),
            "oauthAccessToken": .string(accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(providerId)"),
        ]
        response.setIfPresent("displayName", displayName.map(JSONValue.string))
        response.setIfPresent("fullName", displayName.map(JSONValue.string))
        response.setIfPresent("screenName", screenName.map(JSONValue.string))
        response.setIfPresent("email", email.map(JSONValue.string))
        response.setIfPresent("photoUrl", photoUrl.map(JSONValue.string))
        response.setIfPresent("oauthIdToken", idToken.map(JSONValue.string))
        if providerId == "google.com" {
            response["federatedId"] = .string("https://accounts.google.com/\(rawId)")
            let givenName = claims["given_name"]?.stringValue
            let familyName = claims["family_name"]?.stringValue
            response.setIfPresent("firstName", givenName.map(JSONValue.string))
            response.setIfPresent("lastName", familyName.map(JSONValue.string))
            var scopes = "openid https://www.googleapis.com/auth/userinfo.profile"
            if email != nil { scopes += " https://www.googleapis.com/auth/userinfo.email" }
            var info: [String: JSONValue] = [
                "granted_scopes": .string(scopes), "id": .string(rawId), "verified_email": .bool(emailVerified),
                "locale": "en",
            ]
            info.setIfPresent("name", displayName.map(JSONValue.string))
            info.setIfPresent("given_name", givenName.map(JSONValue.string))
            info.setIfPresent("family_name", familyName.map(JSONValue.string))
            info.setIfPresent("email", email.map(JSONValue.string))
            info.setIfPresent("picture", photoUrl.map(JSONValue.string))
            response["rawUserInfo"] = .string(JSONValue.object(info).jsonString())
        } else if providerId.hasPrefix("saml.") {
            response.setIfPresent("rawUserInfo", signInAttributes.map { .string($0.jsonString()) })
        } else {
            response["rawUserInfo"] = .string(JSONValue.object(claims).jsonString())
        }
        return response
    }
}
