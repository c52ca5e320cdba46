import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// A JWT whose claims are free-form JSON (custom claims sit at the top level of ID tokens).
struct JSONClaims: JWTPayload {
    var claims: [String: JSONValue]

    init(_ claims: [String: JSONValue]) { self.claims = claims }

    init(from decoder: Decoder) throws {
        claims = try [String: JSONValue](from: decoder)
    }

    func encode(to encoder: Encoder) throws { try claims.encode(to: encoder) }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Which second factor a session was completed with (`firebase.sign_in_second_factor`).
public struct SecondFactorClaim: Codable, Sendable, Equatable {
    public var identifier: String
    public var provider: String

    public init(identifier: String, provider: String) {
        self.identifier = identifier
        self.provider = provider
    }
}

/// What a presented ID token says, once decoded.
public struct IdTokenClaims: Sendable {
    public var localId: String
    public var projectId: String?
    public var tenantId: String?
    public var signInProvider: String
    public var secondFactor: SecondFactorClaim?
    public var issuedAt: Int64
    /// `exp`; nil when the token has none (firebase-tools' tokens of old exports).
    public var expiresAt: Int64?
    /// `auth_time`: when the session's user authenticated.
    public var authTime: Int64?
}

/// The claims the emulator reads back from ID tokens (see `ClaimsDecoder`).
struct IdTokenPayload: JWTPayload {
    struct Firebase: Codable {
        var tenant: String?
        var sign_in_provider: String?
        var second_factor_identifier: String?
        var sign_in_second_factor: String?
    }
    var user_id: String?
    var sub: String?
    var aud: String?
    var iss: String?
    var iat: Double?
    var exp: Double?
    var auth_time: Double?
    var firebase: Firebase?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Issues and reads ID tokens, refresh tokens and session cookies. ID tokens are unsigned
/// (`alg: none`) exactly as firebase-tools issues them; the Admin SDKs in emulator mode accept
/// only those.
public struct TokenService: Sendable {
    public static let idTokenLifetime: Int64 = 3600
    let keys: JWTKeyCollection
    /// The RS256 key ID tokens and session cookies are signed with (none: unsigned).
    let signing = SigningState()
    private let decoded = BoundedCache<String, IdTokenClaims>(capacity: 1024)
    /// Refresh tokens whose seal was checked (a client refreshes with the same one again and again).
    private let openedRefreshTokens = BoundedCache<String, RefreshToken>(capacity: 1024)
    /// What refresh tokens and MFA pending credentials are sealed with (`TokenSeal`).
    public let seal = TokenSeal()
    let clock: any AuthClock

    /// jwt-kit's parser with the emulator's JSON decoding (see `ClaimsDecoder`).
    static let parser = DefaultJWTParser(jsonDecoder: ClaimsDecoder())

    public init(clock: any AuthClock) async {
        self.clock = clock
        self.keys = await JWTKeyCollection().addUnsecuredNone(
            parser: Self.parser, serializer: DefaultJWTSerializer(jsonEncoder: ClaimsEncoder()))
    }

    /// Builds the ID token of §5.1 of the firebase-tools reference.
    public func idToken(
        for user: UserRecord, scope: Scope, signInProvider: String, secondFactor: SecondFactorClaim? = nil,
        extraClaims: [String: JSONValue] = [:], signInAttributes: JSONValue? = nil, authTime: Int64? = nil
    ) async throws -> String {
        let now = clock.now().epochSeconds
        var claims: [String: JSONValue] = [:]
        claims.reserveCapacity(16 + extraClaims.count)
        if let name = user.displayName { claims["name"] = .string(name) }
        if let picture = user.photoUrl { claims["picture"] = .string(picture) }
        if let custom = user.customAttributes, let object = CustomClaims.parse(custom) {
            for (key, value) in object { claims[key] = value }
        }
        for (key, value) in extraClaims { claims[key] = value }
        if let email = user.email { claims["email"] = .string(email) }
        // The claim follows the record, as firebase-tools: also for a phone user a blocking
        // function marked verified; an address never verified reads false.
        if let verified = user.emailVerified ?? (user.email != nil ? false : nil) {
            claims["email_verified"] = .bool(verified)
        }
        if let phone = user.phoneNumber { claims["phone_number"] = .string(phone) }
        if signInProvider == "anonymous" { claims["provider_id"] = .string("anonymous") }
        claims["auth_time"] = .number(Double(authTime ?? now))
        claims["user_id"] = .string(user.localId)
        var firebase: [String: JSONValue] = [
            "identities": .object(Self.identities(of: user)),
            "sign_in_provider": .string(signInProvider),
        ]
        if let secondFactor {
            firebase["sign_in_second_factor"] = .string(secondFactor.provider)
            firebase["second_factor_identifier"] = .string(secondFactor.identifier)
        }
        if let tenant = scope.tenantId { firebase["tenant"] = .string(tenant) }
        if let signInAttributes { firebase["sign_in_attributes"] = signInAttributes }
        claims["firebase"] = .object(firebase)
        claims["iat"] = .number(Double(now))
        claims["exp"] = .number(Double(now + Self.idTokenLifetime))
        claims["aud"] = .string(scope.projectId)
        claims["iss"] = .string("https://securetoken.google.com/\(scope.projectId)")
        claims["sub"] = .string(user.localId)
        return try await keys.sign(JSONClaims(claims), kid: signing.kid)
    }

    static func identities(of user: UserRecord) -> [String: JSONValue] {
        var identities: [String: [String]] = [:]
        if let email = user.email { identities["email"] = [email] }
        for provider in user.providers where provider.providerId != "password" {
            guard let rawId = provider.rawId else { continue }
            identities[provider.providerId, default: []].append(rawId)
        }
        return identities.mapValues { .array($0.map { .string($0) }) }
    }

    /// Decodes an ID token without checking a signature (as firebase-tools does).
    /// Decoded tokens are remembered: clients present the same ID token for its whole hour.
    /// A token past its `exp` on the emulator's clock answers `TOKEN_EXPIRED`, as production does
    /// (so a test that moves the clock an hour sees its ID token expire).
    /// Where tokens are signed (RS256), the token is verified first (`verifySigned`), so a forged,
    /// edited or unsigned one is `INVALID_ID_TOKEN`; only verified tokens are remembered.
    public func decodeIdToken(_ token: String) throws(AuthError) -> IdTokenClaims {
        let claims: IdTokenClaims
        if let known = decoded[token] {
            claims = known
        } else {
            if let key = signing.verifier { try Self.verifySigned(token, with: key) }
            claims = try Self.decodeIdTokenClaims(
                token, issuer: signing.verifier == nil ? nil : "https://securetoken.google.com/")
            decoded[token] = claims
        }
        if let expiresAt = claims.expiresAt, expiresAt <= clock.now().epochSeconds { throw AuthError.tokenExpired }
        return claims
    }

    /// The claims of an ID token; with `issuer`, its `iss` must be that prefix and its `aud`.
    static func decodeIdTokenClaims(_ token: String, issuer: String? = nil) throws(AuthError) -> IdTokenClaims {
        guard let claims = try? Self.parser.parse([UInt8](token.utf8), as: IdTokenPayload.self).payload,
            let localId = claims.user_id ?? claims.sub, !localId.isEmpty
        else { throw AuthError.invalidIdToken }
        if let issuer {
            guard let audience = claims.aud, claims.iss == issuer + audience else { throw AuthError.invalidIdToken }
        }
        var secondFactor: SecondFactorClaim?
        if let identifier = claims.firebase?.second_factor_identifier,
            let provider = claims.firebase?.sign_in_second_factor
        {
            secondFactor = SecondFactorClaim(identifier: identifier, provider: provider)
        }
        return IdTokenClaims(
            localId: localId, projectId: claims.aud, tenantId: claims.firebase?.tenant,
            signInProvider: claims.firebase?.sign_in_provider ?? "custom", secondFactor: secondFactor,
            issuedAt: claims.iat?.truncatedInt64 ?? 0, expiresAt: claims.exp?.truncatedInt64,
            authTime: claims.auth_time?.truncatedInt64)
    }

    /// An RS256 token of the daemon's key: header `alg` RS256 and `kid` the key's, and a valid
    /// PKCS#1 v1.5 SHA-256 signature over `header.payload`. Anything else is `INVALID_ID_TOKEN`.
    static func verifySigned(_ token: String, with key: SigningVerifier) throws(AuthError) {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64.decodeAny(String(decoding: parts[0], as: UTF8.self)),
            let header = try? JSONValue.parse(headerData), header["alg"]?.stringValue == "RS256",
            header["kid"]?.stringValue == key.kid,
            let signature = Base64.decodeAny(String(decoding: parts[2], as: UTF8.self))
        else { throw AuthError.invalidIdToken }
        let signed = Data(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        guard
            key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
        else { throw AuthError.invalidIdToken }
    }

    /// A refresh token this daemon issued (its seal holds), else `INVALID_REFRESH_TOKEN`.
    public func openRefreshToken(_ text: String) throws(AuthError) -> RefreshToken {
        if let known = openedRefreshTokens[text] { return known }
        let token = try RefreshToken.open(text, seal: seal)
        openedRefreshTokens[text] = token
        return token
    }

    /// A session cookie: the ID token's claims re-issued with a longer life (§5.4).
    public func sessionCookie(from idToken: String, projectId: String, validDuration: Int64) async throws -> String {
        guard var raw = decodeUnverified(idToken) else { throw AuthError.invalidIdToken }
        let now = clock.now().epochSeconds
        raw["iat"] = .number(Double(now))
        raw["exp"] = .number(Double(now + validDuration))
        raw["iss"] = .string("https://session.firebase.google.com/\(projectId)")
        return try await keys.sign(JSONClaims(raw), kid: signing.kid)
    }

    /// An unsigned (`alg: none`) JWT of arbitrary claims (what blocking functions receive).
    public func unsignedToken(_ claims: [String: JSONValue]) async throws -> String {
        try await keys.sign(JSONClaims(claims))
    }

    /// Decodes any JWT's payload without verification (custom tokens, fake IdP id_tokens).
    public func decodeUnverified(_ token: String) -> [String: JSONValue]? {
        try? Self.parser.parse([UInt8](token.utf8), as: JSONClaims.self).payload.claims
    }
}
