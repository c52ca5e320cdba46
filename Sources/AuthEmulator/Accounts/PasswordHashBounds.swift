import Foundation

/// What an imported hash may cost to check: production's and the Admin SDKs' bounds where they are
/// documented, ours where not. Checked at import (an upload outside them is refused) and again
/// before every check (a record stored before the bounds, or loaded from a file, is never computed
/// outside them: its password simply does not match), so no sign-in costs more than about a
/// quarter second of one core and 128 MiB.
extension ImportedPasswordHash {
    /// bcrypt's cost (2^cost rounds): production documents none; 12 takes ~0.25 s here, 16 took 4 s
    /// and 31 would never end. Real exports use 10–12.
    public static let bcryptCosts = 4...12
    /// The longest PBKDF2 key (and so hash) checked: its cost grows with each 20 or 32 bytes.
    public static let pbkdf2MaxKeyBytes = 64
    /// STANDARD_SCRYPT's work (N · r · p) and memory (128 · r · N): N 2^17, r 8, p 1 at most, a
    /// common interactive setting; Firebase SCRYPT is bounded by its own documented ranges.
    public static let scryptMaxWork = 1 << 20
    public static let scryptMaxMemory = 128 << 20

    /// Refuses options outside the bounds, naming the option.
    public func checkBounds() throws(AuthError) {
        func within(_ code: String, _ value: Int?, _ range: ClosedRange<Int>) throws(AuthError) {
            if let value, !range.contains(value) {
                throw AuthError("INVALID_\(code)", "must be from \(range.lowerBound) to \(range.upperBound).")
            }
        }
        switch algorithm {
        case "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5":
            guard signerKey?.isEmpty == false else { throw AuthError("INVALID_HASH_KEY", "HMAC needs a signer key.") }
        case "MD5", "SHA1", "SHA256", "SHA512": try within("HASH_ROUNDS", rounds, 0...8192)
        case "PBKDF_SHA1", "PBKDF2_SHA256":
            try within("HASH_ROUNDS", rounds, 0...120_000)
            try within("HASH_DERIVED_KEY_LENGTH", dkLen, 1...Self.pbkdf2MaxKeyBytes)
        case "SCRYPT":
            guard signerKey?.isEmpty == false else { throw AuthError("INVALID_HASH_KEY", "SCRYPT needs a signer key.") }
            try within("HASH_ROUNDS", rounds, 1...8)
            try within("HASH_MEMORY_COST", memoryCost, 1...14)
        case "STANDARD_SCRYPT":
            let (n, r, p) = (cpuMemCost ?? 16_384, blockSize ?? 8, parallelization ?? 1)
            try within("HASH_MEMORY_COST", n, 2...(1 << 20))
            guard n & (n - 1) == 0 else { throw AuthError("INVALID_HASH_MEMORY_COST", "must be a power of two.") }
            try within("HASH_BLOCK_SIZE", r, 1...64)
            try within("HASH_PARALLELIZATION", p, 1...16)
            try within("HASH_DERIVED_KEY_LENGTH", dkLen, 1...1024)
            guard n * r * p <= Self.scryptMaxWork, 128 * r * n <= Self.scryptMaxMemory else {
                throw AuthError(
                    "INVALID_HASH_MEMORY_COST",
                    "scrypt's work (memoryCost × blockSize × parallelization) must be at most 2^20, "
                        + "its memory (128 × blockSize × memoryCost) at most 128 MiB.")
            }
        default: return
        }
    }

    /// Refuses one user's hash that these options could not check within the bounds.
    public func checkBounds(hash: Data) throws(AuthError) {
        switch algorithm {
        case "BCRYPT":
            guard let cost = Self.bcryptCost(hash), Self.bcryptCosts.contains(cost) else {
                throw AuthError(
                    "INVALID_PASSWORD_HASH",
                    "a bcrypt hash ($2a$, $2b$ or $2y$) of cost \(Self.bcryptCosts.lowerBound) to "
                        + "\(Self.bcryptCosts.upperBound).")
            }
        case "PBKDF_SHA1", "PBKDF2_SHA256":
            guard dkLen != nil || hash.count <= Self.pbkdf2MaxKeyBytes else {
                throw AuthError("INVALID_PASSWORD_HASH", "a PBKDF2 hash of at most \(Self.pbkdf2MaxKeyBytes) bytes.")
            }
        default: return
        }
    }

    /// The cost of a `$2a$NN$…` / `$2b$` / `$2y$` hash; nil for anything else.
    static func bcryptCost(_ hash: Data) -> Int? {
        let bytes = Array(hash)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]), bytes[3] == UInt8(ascii: "$"),
            bytes[6] == UInt8(ascii: "$"), let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self))
        else { return nil }
        return cost
    }
}
