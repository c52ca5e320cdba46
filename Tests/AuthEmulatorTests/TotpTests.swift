import AuthEmulator
import Foundation
import Testing

@Suite("RFC 6238 TOTP")
struct TotpTests {
    /// RFC 6238 appendix B, SHA1 rows (secret "12345678901234567890", 8 digits).
    @Test(
        "RFC 6238 SHA1 test vectors",
        arguments: [
            (59.0, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ])
    func vectors(time: Double, expected: String) {
        let secret = Array("12345678901234567890".utf8)
        #expect(
            Totp.code(secret: secret, step: Totp.step(at: Date(timeIntervalSince1970: time)), digits: 8) == expected)
    }

    @Test("base32 round-trips and matches RFC 4648 examples")
    func base32() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.decode("MZXW6YTBOI======") == Array("foobar".utf8))
        #expect(Base32.decode("mzxw6ytboi") == Array("foobar".utf8))
        #expect(Base32.decode("MZ1") == nil)
        #expect(Base32.decode("MzXw 6YtB oI==") == Array("foobar".utf8))  // case, spaces, padding
        for bad in ["MZ0", "MZ8", "MZ@", "MZ[", "MZ`", "MZ{", "MZXW6YTBOı", "MZé"] {
            #expect(Base32.decode(bad) == nil)
        }
        #expect(Base32.decode("") == [])
        let bytes = (0..<20).map { UInt8($0 * 13 % 256) }
        #expect(Base32.encode(bytes).count == 32)
        #expect(Base32.decode(Base32.encode(bytes)) == bytes)
    }

    @Test("window edges for adjacentIntervals 0, 1, 5 and 10", arguments: [0, 1, 5, 10])
    func windows(intervals: Int) {
        let secret = Array("12345678901234567890".utf8)
        let now = Date(timeIntervalSince1970: 1_700_000_015)
        let current = Totp.step(at: now)
        for offset in -(intervals + 1)...(intervals + 1) {
            let code = Totp.code(secret: secret, step: current + Int64(offset))
            let match = Totp.matchingStep(code: code, secret: secret, at: now, adjacentIntervals: intervals)
            if abs(offset) <= intervals {
                #expect(match == current + Int64(offset), "offset \(offset)")
            } else {
                #expect(match == nil, "offset \(offset)")
            }
        }
    }
}
