import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the emulator gets randomness: identifiers, codes, salts. Injected so tests can be
/// deterministic; the default draws from the system CSPRNG.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}

/// The operating system's cryptographically secure generator (`getrandom` on Linux).
public struct SystemRandomSource: RandomSource {
    public init() {}
    /// One call per draw on Linux: glibc's `arc4random_buf` (`getrandom`, never fails; a byte per
    /// call had made a sign-up take ~45 system calls, eight bytes per call 7); elsewhere the
    /// standard library's generator.
    public func bytes(_ count: Int) -> [UInt8] {
        #if canImport(Glibc)
            var result = [UInt8](repeating: 0, count: count)
            result.withUnsafeMutableBytes { if let start = $0.baseAddress { arc4random_buf(start, count) } }
            return result
        #else
            return generated(count)
        #endif
    }

    private func generated(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var result: [UInt8] = []
        result.reserveCapacity(count + 7)
        while result.count < count {
            withUnsafeBytes(of: generator.next()) { result.append(contentsOf: $0) }
        }
        return Array(result.prefix(count))
    }
}

/// A repeatable generator for tests (SplitMix64).
public final class SeededRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public func bytes(_ count: Int) -> [UInt8] {
        lock.withLock {
            (0..<count).map { _ in
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return UInt8(truncatingIfNeeded: z ^ (z >> 31))
            }
        }
    }
}

extension RandomSource {
    /// A uniformly drawn index below `bound` (rejection sampling: no modulo bias).
    func index(below bound: Int) -> Int {
        let limit = 256 - (256 % bound)
        while true {
            let byte = Int(bytes(1)[0])
            if byte < limit { return byte % bound }
        }
    }

    /// Uniform characters from an ASCII `alphabet` (rejection sampling over bytes drawn in bulk).
    /// Built as bytes: a `[Character]` cost 15,000 instructions per 28-character id.
    func string(length: Int, alphabet: StaticString) -> String {
        let symbols = UnsafeBufferPointer(start: alphabet.utf8Start, count: alphabet.utf8CodeUnitCount)
        let limit = 256 - (256 % symbols.count)
        var output: [UInt8] = []
        output.reserveCapacity(length)
        while output.count < length {
            for byte in bytes(length - output.count + 8) where Int(byte) < limit && output.count < length {
                output.append(symbols[Int(byte) % symbols.count])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `[A-Za-z0-9]{length}`: the shape of firebase-tools' localId, tenantId and enrollment ids.
    public func alphanumeric(_ length: Int) -> String {
        string(length: length, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// base64url characters, for opaque codes (oobCode, sessionInfo, temporaryProof).
    public func base64URL(_ length: Int) -> String {
        string(length: length, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    }

    /// Decimal digits, leading zeros allowed (SMS codes).
    public func digits(_ length: Int) -> String {
        string(length: length, alphabet: "0123456789")
    }
}
