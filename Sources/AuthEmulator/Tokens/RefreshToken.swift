import Foundation

/// A refresh token: standard base64 of JSON, as firebase-tools makes them (tests decode them),
/// plus `issuedAt` so revocation through `validSince` also ends refresh tokens.
public struct RefreshToken: Codable, Sendable, Equatable {
    public var marker = "DO NOT MODIFY"
    public var localId: String
    public var provider: String
    public var extraClaims: [String: JSONValue]
    public var projectId: String
    public var secondFactor: SecondFactorClaim?
    public var tenantId: String?
    public var issuedAt: Int64?
    /// The session's `auth_time`, kept across refreshes (absent in tokens of older versions).
    public var authTime: Int64?

    enum CodingKeys: String, CodingKey {
        case marker = "_AuthEmulatorRefreshToken"
        case localId, provider, extraClaims, projectId, secondFactor, tenantId, issuedAt, authTime
    }

    public init(
        localId: String, provider: String, extraClaims: [String: JSONValue] = [:], scope: Scope,
        secondFactor: SecondFactorClaim? = nil, issuedAt: Int64
    ) {
        self.localId = localId
        self.provider = provider
        self.extraClaims = extraClaims
        self.projectId = scope.projectId
        self.secondFactor = secondFactor
        self.tenantId = scope.tenantId
        self.issuedAt = issuedAt
    }

    public var scope: Scope { Scope(projectId: projectId, tenantId: tenantId) }

    /// Its members but the seal, in sorted order (the text `JSONEncoder` with sorted keys gives,
    /// built directly: it is on every sign-in).
    func content() -> SortedJSONObject {
        var object = SortedJSONObject()
        object.member(CodingKeys.marker.rawValue, .string(marker))
        object.member("authTime", authTime.map { .number(Double($0)) })
        object.member("extraClaims", .object(extraClaims))
        object.member("issuedAt", issuedAt.map { .number(Double($0)) })
        object.member("localId", .string(localId))
        object.member("projectId", .string(projectId))
        object.member("provider", .string(provider))
        object.member(
            "secondFactor",
            secondFactor.map {
                .object(["identifier": .string($0.identifier), "provider": .string($0.provider)])
            })
        object.member("tenantId", tenantId.map(JSONValue.string))
        return object
    }

    /// Base64 of its JSON, the last member `seal` (`TokenSeal`) over the text of the others.
    public func encoded(sealedBy seal: TokenSeal) -> String {
        var object = content()
        object.member("seal", .string(seal.seal(object.closedBytes)))
        return object.base64()
    }

    /// Reads a token made by `encoded(sealedBy:)` with this seal; anything else, and a token whose
    /// members were changed, is `INVALID_REFRESH_TOKEN`.
    static func open(_ string: String, seal: TokenSeal) throws(AuthError) -> RefreshToken {
        guard let data = Data(base64Encoded: Base64.padded(string)),
            let json = try? JSONValue.parse(data), let sealText = json["seal"]?.stringValue
        else { throw AuthError.invalidRefreshToken }
        let token = try parse(json)
        guard seal.isValid(sealText, for: token.content().closedBytes) else { throw AuthError.invalidRefreshToken }
        return token
    }

    private static func parse(_ json: JSONValue) throws(AuthError) -> RefreshToken {
        guard json[CodingKeys.marker.rawValue]?.stringValue == "DO NOT MODIFY",
            let localId = json["localId"]?.stringValue, let provider = json["provider"]?.stringValue,
            let projectId = json["projectId"]?.stringValue
        else { throw AuthError.invalidRefreshToken }
        var secondFactor: SecondFactorClaim?
        if let claim = json["secondFactor"], !claim.isNull {
            guard let identifier = claim["identifier"]?.stringValue, let provider = claim["provider"]?.stringValue
            else { throw AuthError.invalidRefreshToken }
            secondFactor = SecondFactorClaim(identifier: identifier, provider: provider)
        }
        var token = RefreshToken(
            localId: localId, provider: provider, extraClaims: json["extraClaims"]?.objectValue ?? [:],
            scope: Scope(projectId: projectId, tenantId: json["tenantId"]?.stringValue), secondFactor: secondFactor,
            issuedAt: 0)
        token.issuedAt = json["issuedAt"]?.doubleValue?.truncatedInt64
        token.authTime = json["authTime"]?.doubleValue?.truncatedInt64
        return token
    }
}

public enum Base64 {
    /// Unpadded base64url of bytes (JWK members, RFC 7515 §2).
    public static func url(_ data: some DataProtocol) -> String {
        var text = Data(data).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(
            text.map { character in
                switch character {
                case "+": "-"
                case "/": "_"
                default: character
                }
            })
    }

    /// Standard padded base64 from base64 or base64url with or without padding.
    public static func padded(_ string: String) -> String {
        var string = string
        return string.withUTF8 { utf8 in
            let padding = (4 - utf8.count % 4) % 4
            return String(unsafeUninitializedCapacity: utf8.count + padding) { output in
                // One pass over the bytes (`map` with a closure cost ~15 instructions a byte).
                for index in utf8.indices {
                    let byte = utf8[index]
                    output[index] =
                        byte == UInt8(ascii: "-")
                        ? UInt8(ascii: "+") : byte == UInt8(ascii: "_") ? UInt8(ascii: "/") : byte
                }
                for index in utf8.count..<(utf8.count + padding) { output[index] = UInt8(ascii: "=") }
                return utf8.count + padding
            }
        }
    }

    /// Bytes of base64 or base64url, padded or not (what the Admin SDKs upload).
    public static func decodeAny(_ string: String) -> Data? { Data(base64Encoded: padded(string)) }
}

/// Custom claims (`customAttributes`): a JSON object string of at most 1000 characters with no
/// reserved names.
public enum CustomClaims {
    public static let reserved: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time",
        "firebase", "at_hash", "c_hash",
    ]

    static func parse(_ string: String) -> [String: JSONValue]? {
        (try? JSONValue.parse(Data(string.utf8)))?.objectValue
    }

    /// Validates a `customAttributes` value; returns it as sent, or nil for "clear" (an empty string
    /// or `null`). `{}` is kept: the Admin SDKs send it for `setCustomUserClaims(uid, {} / null)`
    /// and read `customClaims: {}` back.
    public static func validate(_ string: String) throws(AuthError) -> String? {
        if string.count > 1000 { throw AuthError.claimsTooLarge }
        if string.isEmpty { return nil }
        guard let parsed = try? JSONValue.parse(Data(string.utf8)) else { throw AuthError.invalidClaims }
        if parsed == .null { return nil }
        guard let object = parsed.objectValue else { throw AuthError.invalidClaims }
        if let bad = object.keys.sorted().first(where: reserved.contains) { throw AuthError.forbiddenClaim(bad) }
        return string
    }
}
