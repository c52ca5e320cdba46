import Foundation

extension JSONValue {
    /// JSON text with keys sorted (stable tokens, files and responses). Written directly: going
    /// through `JSONEncoder` cost a fifth of a sign-in (generic `Encodable` boxing per value).
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(512)
        write(to: &output)
        return output
    }

    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): Self.writeNumber(value, to: &output)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Integral values print without a fraction (timestamps, counts); JSON has no NaN or infinity.
    static func writeNumber(_ value: Double, to output: inout [UInt8]) {
        if !value.isFinite {
            output.append(contentsOf: "null".utf8)
        } else if value.rounded() == value, abs(value) < 1e15 {
            output.append(contentsOf: String(Int64(value)).utf8)
        } else {
            output.append(contentsOf: "\(value)".utf8)
        }
    }

    /// A string literal: quotes, backslashes and control characters escaped (RFC 8259 §7).
    static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        let plain = value.withUTF8 { bytes in
            if needsEscaping(bytes) { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if plain {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether any byte is a control character, a quote or a backslash.
    static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        firstSpecial(in: UnsafeRawBufferPointer(bytes), from: 0) < bytes.count
    }

    /// The index of the first control character, quote or backslash at or after `start` (the end
    /// if there is none), eight bytes at a time (SWAR; the byte-by-byte test was the single
    /// costliest function of a sign-up). What a writer must escape, and where a reader's plain
    /// run of string bytes ends.
    static func firstSpecial(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// Nonzero exactly when some byte of `word` is below `bound` (`bound` at most 0x80).
        func anyBelow(_ word: UInt64, _ bound: UInt64) -> UInt64 { (word &- ones &* bound) & ~word & highs }
        var index = start
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let hits = anyBelow(word, 0x20) | anyBelow(word ^ (ones &* 0x22), 1) | anyBelow(word ^ (ones &* 0x5C), 1)
            if hits != 0 { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// A JSON object written member by member, in the order given (`OrderedJSONObject`, for payloads
/// whose key order is their source's), or with keys given in sorted order: the text
/// `JSONValue.object(…).serialized()` gives for the same members, without building, hashing and
/// sorting a dictionary first (a refresh token's cost ~7,000 instructions a sign-in that way).
struct SortedJSONObject {
    private(set) var bytes: [UInt8] = []
    private var isEmpty = true

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Appends `key: value`; a nil value is left out. `key` sorts after the previous member's (the
    /// tests of each caller compare its text with `serialized()`'s).
    mutating func member(_ key: String, _ value: JSONValue?) {
        guard let value else { return }
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONValue.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        value.write(to: &bytes)
    }

    /// Appends `key: [elements]`, each element JSON text already (users written by `wireData`).
    mutating func member(_ key: String, elements: [Data]) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONValue.writeString(key, to: &bytes)
        bytes.append(contentsOf: ":[".utf8)
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends `key: text`, `text` being JSON already (a nested object written in order).
    mutating func member(_ key: String, text: [UInt8]) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONValue.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: text)
    }

    /// The text of the object as it stands (its members so far, closed), without ending it.
    var closedBytes: [UInt8] { bytes + [UInt8(ascii: "}")] }

    /// The object's text.
    mutating func data() -> Data {
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    /// The object's text, as an answer.
    mutating func text() -> JSONText {
        bytes.append(UInt8(ascii: "}"))
        return JSONText(bytes: bytes)
    }

    /// The object's text, base64 (standard alphabet, padded), as the emulator's opaque tokens are.
    mutating func base64() -> String { data().base64EncodedString() }
}

/// A JSON object whose members keep the order they are written in (firebase-tools' event bodies,
/// which `JSON.stringify` writes in their source's order).
typealias OrderedJSONObject = SortedJSONObject

/// An answer already written as JSON text, for the few requests whose answer is worth writing
/// without a `JSONValue` first (`accounts:lookup`, its users written from their sorted members).
public struct JSONText: Sendable, Equatable {
    public let bytes: [UInt8]
}
