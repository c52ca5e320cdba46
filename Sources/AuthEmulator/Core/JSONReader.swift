import Foundation

/// Reads JSON text (RFC 8259, UTF-8) straight into a `JSONValue`, in one pass over its bytes.
/// `JSONSerialization` first builds Foundation objects that then have to be cast back value by
/// value: ~20,000 instructions of an `accounts:lookup`, most of them on its one ~900-byte token.
///
/// It reads what clients send and nothing more lenient: anything it does not take (a byte order
/// mark, UTF-16, a trailing comma, a number beyond a `Double`, nesting deeper than 512, invalid
/// UTF-8 or a lone surrogate) answers nil, and `JSONValue.parse` hands the text to
/// `JSONSerialization`, whose verdict stands. So a body either reads as it always did or fails as
/// it always did; a test compares both on generated and mutated documents.
struct JSONReader {
    /// `JSONSerialization`'s limit: deeper text is refused, and recursion stays bounded.
    static let maxDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The value of the text, or nil when it is not JSON this reader takes.
    static func read(_ data: Data) -> JSONValue? {
        data.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            guard let value = reader.value() else { return nil }
            reader.skipWhitespace()
            return reader.index == bytes.count ? value : nil
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func value() -> JSONValue? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case .some(let byte) where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): return number()
        default: return nil
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    private mutating func object() -> JSONValue? {
        guard enter() else { return nil }
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let member = value() else { return nil }
            members[key] = member
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: return nil
            }
        }
    }

    private mutating func array() -> JSONValue? {
        guard enter() else { return nil }
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let element = value() else { return nil }
            elements.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// Steps into an object or array (past its bracket), unless that is one level too deep.
    private mutating func enter() -> Bool {
        depth += 1
        index += 1
        return depth <= Self.maxDepth
    }

    /// A string literal, from its opening quote: the run up to the first quote, backslash or
    /// control byte found eight bytes at a time, then escapes decoded if there are any.
    private mutating func string() -> String? {
        index += 1
        let start = index
        index = JSONValue.firstSpecial(in: bytes, from: index)
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            let run = UnsafeRawBufferPointer(rebasing: bytes[start..<index - 1]).assumingMemoryBound(to: UInt8.self)
            return String(validating: run, as: UTF8.self)
        }
        var text = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(validating: text, as: UTF8.self)
            }
            guard byte == UInt8(ascii: "\\"), let scalar = escape() else { return nil }
            text.append(contentsOf: UTF8.encode(scalar)!)
            let run = index
            index = JSONValue.firstSpecial(in: bytes, from: index)
            text.append(contentsOf: bytes[run..<index])
        }
        return nil
    }

    /// One escape, from its backslash; a `\u` high surrogate takes the low one that must follow.
    private mutating func escape() -> Unicode.Scalar? {
        index += 1
        guard let letter = current else { return nil }
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(letter)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = hex4() else { return nil }
            if (0xDC00...0xDFFF).contains(unit) { return nil }
            guard (0xD800...0xDBFF).contains(unit) else { return Unicode.Scalar(unit) }
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
        default: return nil
        }
    }

    private mutating func hex4() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. An integer of up to 18
    /// digits is read exactly; others are declined, as `JSONSerialization` rounds them in its own
    /// way, not always to the nearest `Double` (`-24117165.28561179` is one ulp off), and a body
    /// reads as it always did.
    private mutating func number() -> JSONValue? {
        let negative = current == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = current, (0x30...0x39).contains(first) else { return nil }
        var integer: Int64 = 0
        var digits = 0
        if first == 0x30 {
            index += 1
        } else {
            while let byte = current, (0x30...0x39).contains(byte) {
                guard digits < 18 else { return nil }
                integer = integer * 10 + Int64(byte - 0x30)
                digits += 1
                index += 1
            }
        }
        switch current {
        case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
        default: return .number(Double(negative ? -integer : integer))
        }
    }
}
