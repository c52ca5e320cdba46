import Foundation
import Testing

@testable import AuthEmulator

/// `JSONReader` against `JSONSerialization`, the parser it stands in for: every document either
/// reads to the same value, or the reader declines it and `JSONSerialization` judges.
@Suite("JSON reading: the same values as JSONSerialization, or declined")
struct JSONReaderTests {
    @Test("documents read exactly: escapes, surrogate pairs, numbers, nesting, whitespace")
    func exactValues() throws {
        let cases: [(String, JSONValue)] = [
            (#"{"idToken":"eyJ.x-y_z"}"#, .object(["idToken": "eyJ.x-y_z"])),
            (
                #" { "a" : [ 1 , -25 , 0 , -0 , 100 , 999999999999999999 ] } "#,
                .object(["a": .array([1, -25, 0, 0, 100, .number(999_999_999_999_999_999)])])
            ),
            (
                #"{"a":"\"\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00\u0000"}"#,
                .object(["a": "\"\\/\u{8}\u{c}\n\r\tAé😀\u{0}"])
            ),
            ("{\"é\":\"🙂 ü\"}", .object(["é": "🙂 ü"])),
            (
                #"{"a":true,"b":false,"c":null,"d":{},"e":[]}"#,
                .object(["a": true, "b": false, "c": .null, "d": .object([:]), "e": .array([])])
            ),
            (#"{"a":1,"a":2}"#, .object(["a": 2])),
            (
                #"{"max":9007199254740993}"#, .object(["max": .number(9_007_199_254_740_992)])
            ),
            ("\"top\"", "top"),
        ]
        for (text, expected) in cases {
            let data = Data(text.utf8)
            #expect(JSONReader.read(data) == expected, "\(text)")
            #expect(try JSONValue.parseWithFoundation(data) == expected, "\(text)")
        }
    }

    @Test("declined, then judged by JSONSerialization as before: fractions, long integers, oddities, errors")
    func declined() throws {
        let accepted: [([UInt8], JSONValue)] = [
            (
                Array(#"{"a":-2.5,"b":1E+2,"c":2.5e-3}"#.utf8),
                .object(["a": .number(-2.5), "b": 100, "c": .number(0.0025)])
            ),
            (Array(#"{"big":123456789012345678901234567890}"#.utf8), .object(["big": .number(1.2345678901234568e29)])),
            ([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8), .object(["a": 1])),
            (Array(#"{"a":1}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), .object(["a": 1])),
            (Array(#"{"a":1,}"#.utf8), .object(["a": 1])),
        ]
        for (bytes, expected) in accepted {
            #expect(JSONReader.read(Data(bytes)) == nil)
            #expect(try JSONValue.parse(Data(bytes)) == expected)
        }
        let refused: [[UInt8]] = [
            Array("{\"a\":\"x".utf8) + [0xFF] + Array("\"}".utf8),
            Array("{\"a\":\"".utf8) + [0xED, 0xA0, 0x80, 0x22, 0x7D],
            Array(#"{"a":"\ud800"}"#.utf8), Array(#"{"a":"\udc00x"}"#.utf8), Array(#"{"a":1e400}"#.utf8),
            Array("{\"a\":\"x\ty\"}".utf8), Array(#"{"a":01}"#.utf8), Array(#"{"a":1.}"#.utf8),
            Array(#"{"a":.5}"#.utf8),
            Array(#"{"a":+1}"#.utf8), Array(#"{"a":1} x"#.utf8), Array("{\"a\":1}\u{0C}".utf8),
            Array(#"{"a":"\x"}"#.utf8),
            Array(#"{"a":"\u12"}"#.utf8), Array(#"{"a":TRUE}"#.utf8), Array(#"{"a":NaN}"#.utf8), [], Array("  ".utf8),
            Array(String(repeating: "[", count: 513).utf8) + Array(String(repeating: "]", count: 513).utf8),
        ]
        for bytes in refused {
            #expect(JSONReader.read(Data(bytes)) == nil, "\(bytes)")
            #expect(throws: AuthError.malformedJSON("The body is not valid JSON.")) { try JSONValue.parse(Data(bytes)) }
        }
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(JSONReader.read(Data(deepest.utf8)) != nil)
    }

    @Test("generated documents read to JSONSerialization's values; mutated ones never read otherwise")
    func differential() throws {
        var random = SplitMix64(seed: 0x5EED_0043)
        var (read, mutatedRead) = (0, 0)
        for _ in 0..<600 {
            let text = Self.document(&random, depth: 0)
            let data = Data(text.utf8)
            let expected = try JSONValue.parseWithFoundation(data)
            // Declined only for a fraction, an exponent or a long integer.
            if let value = JSONReader.read(data) {
                read += 1
                #expect(value == expected, "\(text)")
            } else {
                #expect(text.contains { ".eE".contains($0) } || text.contains(/[0-9]{19}/), "\(text)")
            }
            for _ in 0..<12 {
                let mutated = Data(Self.mutate(Array(data), &random))
                guard let value = JSONReader.read(mutated) else { continue }
                mutatedRead += 1
                #expect(
                    value == (try? JSONValue.parseWithFoundation(mutated)),
                    "\(String(decoding: mutated, as: UTF8.self))")
            }
        }
        // Most documents, and many of their mutations, are read rather than declined.
        #expect(read > 300 && mutatedRead > 500, "\(read) \(mutatedRead)")
    }

    /// Random JSON text: objects and arrays up to four deep, strings of ASCII, escapes, accents,
    /// astral characters and control characters (written escaped), numbers of every form, random
    /// whitespace between tokens.
    private static func document(_ random: inout SplitMix64, depth: Int) -> String {
        let space = [" ", "", "\n", "\t", "\r\n", ""][random.below(6)]
        switch depth < 4 ? random.below(8) : 2 + random.below(6) {
        case 0:
            let members = (0..<random.below(5)).map { _ in
                string(&random) + space + ":" + space + document(&random, depth: depth + 1)
            }
            return "{" + space + members.joined(separator: "," + space) + space + "}"
        case 1:
            let elements = (0..<random.below(5)).map { _ in document(&random, depth: depth + 1) }
            return "[" + space + elements.joined(separator: space + "," + space) + "]"
        case 2, 3: return string(&random)
        case 4, 5: return number(&random)
        default: return ["true", "false", "null"][random.below(3)]
        }
    }

    private static func string(_ random: inout SplitMix64) -> String {
        let pieces = [
            "a", "Z", "0", " ", "é", "🙂", "漢", #"\""#, #"\\"#, #"\/"#, #"\n"#, #"\t"#, #"\b"#, #"\u0041"#, #"\u00E9"#,
            #"\ud83d\ude00"#, #"\u0000"#, #"\uFFFF"#, "idToken", "eyJhbGciOiJSUzI1NiJ9.", "-_~.+",
        ]
        return "\"" + (0..<random.below(12)).map { _ in pieces[random.below(pieces.count)] }.joined() + "\""
    }

    private static func number(_ random: inout SplitMix64) -> String {
        let sign = random.below(3) == 0 ? "-" : ""
        let integer = random.below(4) == 0 ? "0" : String(1 + random.below(9)) + String(random.next() % 10_000_000)
        let long = integer != "0" && random.below(10) == 0 ? String(random.next()) + String(random.next()) : ""
        let fraction = random.below(3) == 0 ? "." + String(random.next() % 100_000) : ""
        let exponent =
            random.below(4) == 0
            ? ["e", "E"][random.below(2)] + ["", "+", "-"][random.below(3)] + String(random.below(250)) : ""
        return sign + integer + long + fraction + exponent
    }

    /// One byte deleted, replaced or inserted, from the bytes JSON's grammar turns on.
    private static func mutate(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let interesting = Array(#"{}[],:"\/u0-.eE+ tfn1"#.utf8) + [0x00, 0x09, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xFF]
        var bytes = bytes
        let position = random.below(bytes.count + 1)
        let byte = interesting[random.below(interesting.count)]
        switch random.below(3) {
        case 0 where position < bytes.count: bytes.remove(at: position)
        case 1 where position < bytes.count: bytes[position] = byte
        default: bytes.insert(byte, at: position)
        }
        return bytes
    }
}

/// A seeded generator, so every run tests the same documents.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
