import CCrypt
import Crypto
import CryptoExtras
import Foundation

/// How an imported user's password hash was made, as the upload (`accounts:batchCreate`,
/// `uploadAccount`) said: production's algorithms and options, kept with the user so the real
/// password signs in. A successful sign-in re-hashes the password the emulator's way, as
/// production does.
public struct ImportedPasswordHash: Codable, Sendable, Equatable {
    public var algorithm: String
    /// Bytes of the options, from base64 (standard or web-safe).
    public var signerKey: Data?
    public var saltSeparator: Data?
    public var rounds: Int?
    public var memoryCost: Int?
    public var cpuMemCost: Int?
    public var parallelization: Int?
    public var blockSize: Int?
    public var dkLen: Int?
    /// `SALT_AND_PASSWORD` or `PASSWORD_AND_SALT` for the digest and HMAC algorithms.
    public var passwordHashOrder: String?

    public init(
        algorithm: String, signerKey: Data? = nil, saltSeparator: Data? = nil, rounds: Int? = nil,
        memoryCost: Int? = nil, cpuMemCost: Int? = nil, parallelization: Int? = nil, blockSize: Int? = nil,
        dkLen: Int? = nil, passwordHashOrder: String? = nil
    ) {
        self.algorithm = algorithm
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
        self.cpuMemCost = cpuMemCost
        self.parallelization = parallelization
        self.blockSize = blockSize
        self.dkLen = dkLen
        self.passwordHashOrder = passwordHashOrder
    }

    public static let algorithms: Set<String> = [
        "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5", "MD5", "SHA1", "SHA256", "SHA512", "PBKDF_SHA1",
        "PBKDF2_SHA256", "SCRYPT", "STANDARD_SCRYPT", "BCRYPT",
    ]

    /// Whether `password` gives `hash` (with `salt`, both as uploaded) under these options.
    public func verify(_ password: String, hash: Data, salt: Data) -> Bool {
        // Never computed outside the bounds, whatever is stored (`PasswordHashBounds.swift`).
        guard (try? checkBounds()) != nil, (try? checkBounds(hash: hash)) != nil else { return false }
        if algorithm == "BCRYPT" { return Self.bcryptMatches(password, hash) }
        guard let computed = try? derive(password, salt: salt, length: hash.count) else { return false }
        if !hash.isEmpty, ConstantTime.equal(computed, hash) { return true }
        // A digest uploaded as its hex text (firebase-admin's own MD5 import test does so).
        let hex = Data(computed.map { String(format: "%02x", $0) }.joined().utf8)
        return !hash.isEmpty && ConstantTime.equal(hex, hash)
    }

    func derive(_ password: String, salt: Data, length: Int) throws -> Data {
        let secret = Data(password.utf8)
        switch algorithm {
        case "HMAC_SHA512": return hmac(SHA512.self, secret, salt)
        case "HMAC_SHA256": return hmac(SHA256.self, secret, salt)
        case "HMAC_SHA1": return hmac(Insecure.SHA1.self, secret, salt)
        case "HMAC_MD5": return hmac(Insecure.MD5.self, secret, salt)
        case "MD5": return digest(Insecure.MD5.self, secret, salt)
        case "SHA1": return digest(Insecure.SHA1.self, secret, salt)
        case "SHA256": return digest(SHA256.self, secret, salt)
        case "SHA512": return digest(SHA512.self, secret, salt)
        case "PBKDF_SHA1": return try pbkdf2(.insecureSHA1, secret, salt, length)
        case "PBKDF2_SHA256": return try pbkdf2(.sha256, secret, salt, length)
        case "STANDARD_SCRYPT":
            let key = try KDF.Scrypt.deriveKey(
                from: secret, salt: salt, outputByteCount: dkLen ?? length, rounds: cpuMemCost ?? 16_384,
                blockSize: blockSize ?? 8, parallelism: parallelization ?? 1)
            return key.withUnsafeBytes { Data($0) }
        case "SCRYPT": return try firebaseScrypt(secret, salt)
        default: throw AuthError("INVALID_HASH_ALGORITHM")
        }
    }

    /// Production's order for HMACs is password then salt; for plain digests salt then password.
    private func message(_ secret: Data, _ salt: Data, saltFirstByDefault: Bool) -> Data {
        let saltFirst = passwordHashOrder.map { $0 == "SALT_AND_PASSWORD" } ?? saltFirstByDefault
        return saltFirst ? salt + secret : secret + salt
    }

    private func hmac<H: HashFunction>(_: H.Type, _ secret: Data, _ salt: Data) -> Data {
        let code = HMAC<H>.authenticationCode(
            for: message(secret, salt, saltFirstByDefault: false), using: SymmetricKey(data: signerKey ?? Data()))
        return Data(code)
    }

    /// `rounds` hashings in all (0 and 1 both mean one): H(salt + password), then H of that.
    private func digest<H: HashFunction>(_: H.Type, _ secret: Data, _ salt: Data) -> Data {
        var value = Data(H.hash(data: message(secret, salt, saltFirstByDefault: true)))
        for _ in 1..<max(rounds ?? 1, 1) { value = Data(H.hash(data: value)) }
        return value
    }

    private func pbkdf2(_ function: KDF.Insecure.PBKDF2.HashFunction, _ secret: Data, _ salt: Data, _ length: Int)
        throws -> Data
    {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: secret, salt: salt, using: function, outputByteCount: dkLen ?? length,
            unsafeUncheckedRounds: max(rounds ?? 1, 1))
        return key.withUnsafeBytes { Data($0) }
    }

    /// Firebase's modified scrypt (github.com/firebase/scrypt): scrypt(password, salt + separator,
    /// N = 2^memoryCost, r = rounds, p = 1) keys AES-256-CTR (zero IV), which encrypts the signer key.
    private func firebaseScrypt(_ secret: Data, _ salt: Data) throws -> Data {
        let derived = try KDF.Scrypt.deriveKey(
            from: secret, salt: salt + (saltSeparator ?? Data()), outputByteCount: 64,
            rounds: 1 << (memoryCost ?? 14), blockSize: rounds ?? 8, parallelism: 1)
        let aesKey = derived.withUnsafeBytes { SymmetricKey(data: Data($0.prefix(32))) }
        return try AES._CTR.encrypt(
            signerKey ?? Data(), using: aesKey, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)))
    }

    /// libxcrypt's `crypt_r` with the stored hash as its setting gives the same string back for
    /// the right password. The upload carries the `$2a$…` string as the hash (its salt inside).
    static func bcryptMatches(_ password: String, _ hash: Data) -> Bool {
        guard let setting = String(data: hash, encoding: .utf8), setting.hasPrefix("$2") else { return false }
        let state = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { state.deallocate() }
        UnsafeMutableRawPointer(state).initializeMemory(
            as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        guard let result = crypt_r(password, setting, state) else { return false }
        return !hash.isEmpty && ConstantTime.equal(Data(String(cString: result).utf8), hash)
    }
}
