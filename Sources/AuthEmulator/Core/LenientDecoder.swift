import Foundation

/// Decodes typed requests from a normalised `JSONValue` the way firebase-tools' validator lets
/// them through: numbers are accepted for string fields (the Admin SDK sends `validSince` as a
/// number), numeric strings for number fields, and proto enum integers for enum names
/// (`WireEnum`). Anything else mistyped becomes an `INVALID_ARGUMENT` naming the JSON pointer.
public enum LenientDecoder {
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(AuthError) -> T {
        if let common = T.self as? any CommonShapeDecodable.Type, let request = common.init(commonShape: value) {
            return request as! T
        }
        do {
            return try T(from: ValueDecoder(value: value, codingPath: []))
        } catch let error as AuthError {
            throw error
        } catch let DecodingError.typeMismatch(_, context) {
            throw AuthError.invalidJSON("\(pointer(context.codingPath)) \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw AuthError.invalidJSON("\(pointer(context.codingPath)) \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw AuthError.invalidJSON("\(pointer(context.codingPath + [key])) is required")
        } catch let DecodingError.valueNotFound(_, context) {
            throw AuthError.invalidJSON("\(pointer(context.codingPath)) must not be null")
        } catch {
            throw AuthError.invalidJSON("\(error)")
        }
    }

    static func pointer(_ path: [any CodingKey]) -> String {
        "/" + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
    }
}

/// A request read straight from the body when it has the shape clients send, each field of its
/// JSON type: `Decodable`'s containers cost an `accounts:lookup` ~12,000 instructions. Any other
/// shape answers nil, and `LenientDecoder` decodes it as any request (coercions, errors).
public protocol CommonShapeDecodable: Decodable {
    init?(commonShape body: JSONValue)
}

/// A proto enum on the wire: accepted as its name or as its integer (Android sends
/// `requestType: 6` for `EMAIL_SIGNIN`). `allCases` must list the cases in proto number order.
public protocol WireEnum: RawRepresentable, CaseIterable, Codable, Sendable where RawValue == String {}

extension WireEnum {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let name = try? container.decode(String.self), let value = Self(rawValue: name) {
            self = value
            return
        }
        if let number = try? container.decode(Int.self) {
            let cases = Array(Self.allCases)
            if number >= 0, number < cases.count {
                self = cases[number]
                return
            }
        }
        throw DecodingError.dataCorrupted(
            .init(codingPath: decoder.codingPath, debugDescription: "must be equal to one of the allowed values"))
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "must be object"))
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let array) = value else {
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: codingPath, debugDescription: "must be array"))
        }
        return UnkeyedContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleContainer(value: value, codingPath: codingPath)
    }
}

/// JSONValue fields keep the raw JSON (no coercion); `Data` is base64 text, as `JSONEncoder`
/// writes it (an authemu download's `emulatorPasswordHash.signerKey`); everything else goes
/// through the decoder.
private func decodeValue<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    if T.self == JSONValue.self { return value as! T }
    if T.self == Data.self, case .string(let text) = value {
        guard let data = Base64.decodeAny(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "must be base64"))
        }
        return data as! T
    }
    return try T(from: ValueDecoder(value: value, codingPath: path))
}

private struct IndexKey: CodingKey {
    var stringValue: String { "\(intValue!)" }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool { (object[key.stringValue] ?? .null) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return try decodeValue(T.self, value, codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = object[key.stringValue] else { return nil }
        if value == .null {
            // A list sent as null is refused, as firebase-tools' schema check does; other nulls are absent.
            guard T.self is any RangeReplaceableCollection.Type, !(T.self is any StringProtocol.Type) else {
                return nil
            }
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: codingPath + [key], debugDescription: "must be array"))
        }
        return try decodeValue(T.self, value, codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key]).container(
            keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    init(array: [JSONValue], codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "end"))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: array[currentIndex], codingPath: codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        if !isAtEnd, array[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = try next()
        return try decodeValue(T.self, decoder.value, decoder.codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    { try next().container(keyedBy: type) }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func mismatch(_ expected: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "must be \(expected)"))
    }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        switch value {
        case .bool(let bool): return bool
        case .string("true"): return true
        case .string("false"): return false
        default: throw mismatch("boolean")
        }
    }

    func decode(_ type: String.Type) throws -> String {
        switch value {
        case .string(let string): return string
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e18 { return String(Int64(number)) }
            return String(number)
        default: throw mismatch("string")
        }
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .number(let number): return number
        case .string(let string):
            if let number = Double(string) { return number }
            throw mismatch("number")
        default: throw mismatch("number")
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let number = try decode(Double.self)
        guard number.rounded() == number, let integer = I(exactly: number) else { throw mismatch("integer") }
        return integer
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeValue(T.self, value, codingPath)
    }
}
