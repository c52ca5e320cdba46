import Crypto
import Foundation

/// RFC 6238 TOTP (HMAC-SHA1, 6 digits, 30-second steps) and the RFC 4648 base32 that carries
/// the shared secret.
public enum Totp {
    public static let period: Int64 = 30
    public static let digits = 6

    /// The time step of a moment.
    public static func step(at date: Date, period: Int64 = period) -> Int64 {
        Int64((date.timeIntervalSince1970).rounded(.down)) / period
    }

    /// The code for one time step (RFC 4226 dynamic truncation).
    public static func code(secret: [UInt8], step: Int64, digits: Int = digits) -> String {
        code(keyed: HMAC<Insecure.SHA1>(key: SymmetricKey(data: secret)), step: step, digits: digits)
    }

    /// The code for one step from an HMAC already keyed with the secret (copied, not consumed):
    /// keying is half the cost of a code, and a sign-in computes up to 21 of them.
    static func code(keyed: HMAC<Insecure.SHA1>, step: Int64, digits: Int = digits) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        var hmac = keyed
        hmac.update(data: withUnsafeBytes(of: &counter) { Array($0) })
        let mac = Array(hmac.finalize())
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The step whose code matches, searching the current step ± `adjacentIntervals`, nearest
    /// first; nil when none matches. Every candidate is compared in constant time.
    public static func matchingStep(code: String, secret: [UInt8], at date: Date, adjacentIntervals: Int) -> Int64? {
        let current = step(at: date)
        var found: Int64?
        var offsets = [0]
        for distance in stride(from: 1, through: max(0, adjacentIntervals), by: 1) {
            offsets += [-distance, distance]
        }
        let keyed = HMAC<Insecure.SHA1>(key: SymmetricKey(data: secret))
        for offset in offsets {
            let candidate = current + Int64(offset)
            if ConstantTime.equal(Self.code(keyed: keyed, step: candidate), code), found == nil {
                found = candidate
            }
        }
        return found
    }
}

/// RFC 4648 base32 (A–Z, 2–7), upper case, no padding on output.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes, ignoring case, spaces and padding; nil for any other character. On the UTF-8
    /// bytes: by `Character` it cost each TOTP check ~28,000 instructions.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 where byte != UInt8(ascii: "=") && byte != UInt8(ascii: " ") {
            guard let value = digit(byte) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return output
    }

    /// The value of a base32 digit, in either case.
    private static func digit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "2")...UInt8(ascii: "7"): UInt32(byte - UInt8(ascii: "2")) + 26
        default: nil
        }
    }
}

extension Emulator {
    /// The current TOTP code of an enrollment (the emulator holds the secret), for tests that
    /// imported users or lost the secret.
    public func currentTotpCode(_ scope: Scope, localId: String, enrollmentId: String?) async throws -> JSONValue {
        let now = clock.now()
        let user = try await store.read { tx in try await tx.user(scope, localId: localId) }
        guard let user else { throw AuthError.userNotFound }
        guard
            let enrollment = user.enrollments.first(where: {
                $0.totpSecret != nil && (enrollmentId == nil || $0.mfaEnrollmentId == enrollmentId)
            }), let secret = enrollment.totpSecret.flatMap(Base32.decode)
        else { throw AuthError.mfaEnrollmentNotFound }
        let step = Totp.step(at: now)
        return .object([
            "mfaEnrollmentId": .string(enrollment.mfaEnrollmentId),
            "code": .string(Totp.code(secret: secret, step: step)),
            "validForSeconds": .number(Double(Totp.period - (now.epochSeconds % Totp.period))),
        ])
    }
}
