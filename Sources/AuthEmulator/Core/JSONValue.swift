import Foundation

/// A JSON document as a value. Request bodies are normalised in this form (snake_case keys to
/// camelCase, as firebase-tools does) before being decoded into typed requests.
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    public var isNull: Bool { self == .null }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 {
                try container.encode(Int64(number))
            } else {
                try container.encode(number)
            }
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }
}

extension JSONValue {
    /// Parses JSON text; a syntax error becomes the firebase-tools `parseError` envelope.
    /// `JSONReader` reads the text clients send; what it does not take, `JSONSerialization` judges.
    public static func parse(_ data: Data) throws(AuthError) -> JSONValue {
        if let value = JSONReader.read(data) { return value }
        return try parseWithFoundation(data)
    }

    /// Parses JSON text with `JSONSerialization`, which also takes a byte order mark, UTF-16 and
    /// UTF-32 text, and a trailing comma.
    static func parseWithFoundation(_ data: Data) throws(AuthError) -> JSONValue {
        // JSONSerialization is several times faster here than decoding through `Decodable`, which
        // has to probe each value's type by catching errors.
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw AuthError.malformedJSON("The body is not valid JSON.")
        }
        return JSONValue(foundation: object)
    }

    /// About how many values JSON text holds (commas, colons and opening brackets outside
    /// strings, plus one), counted in one pass over the bytes and stopped once past `limit`:
    /// what parsing it would materialise, known before parsing.
    public static func valueCount(_ data: Data, stoppingAfter limit: Int) -> Int {
        data.withUnsafeBytes { bytes in
            var count = 1
            var inString = false
            var escaped = false
            for byte in bytes {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "{"):
                    count += 1
                    if count > limit { return count }
                default: break
                }
            }
            return count
        }
    }

    /// Converts JSONSerialization's output (booleans arrive as NSNumber of type `c`). The exact
    /// types it produces are matched first: a failing `as?` from `Any` tries every bridging
    /// conversion and cost ~10,000 instructions per value.
    init(foundation value: Any) {
        let type = type(of: value)
        if type == String.self {
            self = .string(value as! String)
            return
        }
        if type == [String: Any].self {
            self = .object((value as! [String: Any]).mapValues(JSONValue.init(foundation:)))
            return
        }
        if type == [Any].self {
            self = .array((value as! [Any]).map(JSONValue.init(foundation:)))
            return
        }
        if type is NSNumber.Type {
            let number = value as! NSNumber
            self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
            return
        }
        switch value {
        case let text as String: self = .string(text)
        case let number as NSNumber:
            self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]: self = .array(array.map(JSONValue.init(foundation:)))
        case let object as [String: Any]: self = .object(object.mapValues(JSONValue.init(foundation:)))
        default: self = .null
        }
    }

    /// Encodes any value into a JSONValue (used to store and echo wire shapes).
    public static func from(_ value: some Encodable) throws -> JSONValue {
        try parse(JSONEncoder().encode(value))
    }

    /// Serialised JSON text (stable key order).
    public func jsonString() -> String { String(decoding: serialized(), as: UTF8.self) }

    /// Recursively rewrites `snake_case` keys as `camelCase` (`refresh_token` → `refreshToken`).
    public func camelCasedKeys() -> JSONValue {
        guard hasSnakeCaseKeys else { return self }
        switch self {
        case .object(let object):
            var result: [String: JSONValue] = [:]
            for (key, value) in object {
                result[Self.camelCase(key)] = value.camelCasedKeys()
            }
            return .object(result)
        case .array(let array):
            return .array(array.map { $0.camelCasedKeys() })
        default:
            return self
        }
    }

    /// Whether any key at any depth has an underscore (most bodies have none: nothing to rebuild).
    var hasSnakeCaseKeys: Bool {
        switch self {
        case .object(let object):
            object.contains { $0.key.utf8.contains(UInt8(ascii: "_")) || $0.value.hasSnakeCaseKeys }
        case .array(let array): array.contains { $0.hasSnakeCaseKeys }
        default: false
        }
    }

    /// `refresh_token` → `refreshToken` (API field names are ASCII).
    static func camelCase(_ key: String) -> String {
        let underscore = UInt8(ascii: "_")
        guard key.utf8.contains(underscore), key.utf8.first != underscore else { return key }
        var result: [UInt8] = []
        var upperNext = false
        for byte in key.utf8 {
            if byte == underscore {
                upperNext = true
            } else if upperNext {
                result.append((UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte)
                upperNext = false
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

extension Double {
    /// Truncated to an integer, or nil when there is none in range (NaN, infinity, beyond 64 bits):
    /// `Int(_:)` traps on those, and every number here can come from a client.
    public var truncatedInt64: Int64? { isFinite ? Int64(exactly: rounded(.towardZero)) : nil }
    public var truncatedInt: Int? { truncatedInt64.flatMap { Int(exactly: $0) } }
}

extension [String: JSONValue] {
    /// Sets `key` when there is a value. For objects being built: assigning `nil` to an absent
    /// key still hashes it and searches the table.
    mutating func setIfPresent(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }
}
