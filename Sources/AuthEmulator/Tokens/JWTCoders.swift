import Foundation
import JWTKit

/// jwt-kit's JSON encoder, with free-form claims written directly (the generic `JSONEncoder` path
/// was a tenth of every sign-in); other payloads still go through `JSONEncoder`.
struct ClaimsEncoder: JWTJSONEncoder {
    private static let fallback = JSONEncoder.defaultForJWT

    func encode<T: Encodable>(_ value: T) throws -> Data {
        if let claims = value as? JSONClaims { return Data(JSONValue.object(claims.claims).serialized()) }
        if let header = value as? JWTHeader {
            return Data(JSONValue.object(header.fields.mapValues(JSONValue.init(headerField:))).serialized())
        }
        return try Self.fallback.encode(value)
    }
}

/// jwt-kit's JSON decoder for the types the emulator reads on every authenticated request
/// (headers, ID token claims, free-form claims): parsed once into `JSONValue` and mapped, instead
/// of `JSONDecoder`'s per-field type probing (a quarter of an `accounts:lookup`).
struct ClaimsDecoder: JWTJSONDecoder {
    private static let fallback = JSONDecoder.defaultForJWT

    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if T.self == JWTHeader.self {
            guard let object = try JSONValue.parse(data).objectValue else { throw AuthError.invalidIdToken }
            return JWTHeader(fields: try object.mapValues { try $0.headerField(depth: 0) }) as! T
        }
        if T.self == IdTokenPayload.self {
            let claims = try JSONValue.parse(data)
            guard case .object = claims else { throw AuthError.invalidIdToken }
            return IdTokenPayload(claims: claims) as! T
        }
        if T.self == JSONClaims.self {
            guard let object = try JSONValue.parse(data).objectValue else { throw AuthError.invalidIdToken }
            return JSONClaims(object) as! T
        }
        return try Self.fallback.decode(type, from: data)
    }
}

extension IdTokenPayload {
    /// The claims the emulator reads; a claim of the wrong type counts as absent.
    init(claims: JSONValue) {
        let firebase = claims["firebase"]
        self.init(
            user_id: claims["user_id"]?.stringValue, sub: claims["sub"]?.stringValue, aud: claims["aud"]?.stringValue,
            iss: claims["iss"]?.stringValue,
            iat: claims["iat"]?.doubleValue, exp: claims["exp"]?.doubleValue,
            auth_time: claims["auth_time"]?.doubleValue,
            firebase: firebase?.objectValue.map { _ in
                Firebase(
                    tenant: firebase?["tenant"]?.stringValue,
                    sign_in_provider: firebase?["sign_in_provider"]?.stringValue,
                    second_factor_identifier: firebase?["second_factor_identifier"]?.stringValue,
                    sign_in_second_factor: firebase?["sign_in_second_factor"]?.stringValue)
            })
    }
}

extension JSONValue {
    fileprivate init(headerField: JWTHeaderField) {
        switch headerField {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .number(Double(value))
        case .decimal(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array(let values): self = .array(values.map(JSONValue.init(headerField:)))
        case .object(let object): self = .object(object.mapValues(JSONValue.init(headerField:)))
        }
    }

    /// A header value as jwt-kit models it (integral numbers as `int`), nested at most 32 deep as
    /// jwt-kit's own decoding allows.
    fileprivate func headerField(depth: Int) throws -> JWTHeaderField {
        guard depth <= 32 else { throw AuthError.invalidIdToken }
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let value): return Int(exactly: value).map { .int($0) } ?? .decimal(value)
        case .string(let value): return .string(value)
        case .array(let values): return .array(try values.map { try $0.headerField(depth: depth + 1) })
        case .object(let object): return .object(try object.mapValues { try $0.headerField(depth: depth + 1) })
        }
    }
}
