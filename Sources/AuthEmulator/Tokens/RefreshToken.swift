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

    enum CodingKeys: String, CodingKey {
        case marker = "_AuthEmulatorRefreshToken"
        case localId, provider, extraClaims, projectId, secondFactor, tenantId, issuedAt
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

    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)) ?? Data()).base64EncodedString()
    }

    public static func decode(_ string: String) throws(AuthError) -> RefreshToken {
        guard let data = Data(base64Encoded: Base64.padded(string)),
            let token = try? JSONDecoder().decode(RefreshToken.self, from: data),
            token.marker == "DO NOT MODIFY"
        else { throw AuthError.invalidRefreshToken }
        return token
    }
}

enum Base64 {
    /// Accepts base64 or base64url with or without padding.
    static func padded(_ string: String) -> String {
        var value = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while value.count % 4 != 0 { value += "=" }
        return value
    }
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

    /// Validates a `customAttributes` value; returns it normalised, or nil for "clear".
    public static func validate(_ string: String) throws(AuthError) -> String? {
        if string.count > 1000 { throw AuthError.claimsTooLarge }
        if string.isEmpty { return nil }
        guard let parsed = try? JSONValue.parse(Data(string.utf8)) else { throw AuthError.invalidClaims }
        if parsed == .null { return nil }
        guard let object = parsed.objectValue else { throw AuthError.invalidClaims }
        if let bad = object.keys.sorted().first(where: reserved.contains) { throw AuthError.forbiddenClaim(bad) }
        return object.isEmpty ? nil : string
    }
}
