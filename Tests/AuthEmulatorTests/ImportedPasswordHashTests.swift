import AuthEmulator
import Foundation
import Testing

/// Production's password hashes of imported users, against published vectors (RFC 1321, FIPS
/// 180, RFC 2202/4231, RFC 6070, RFC 7914, openwall's bcrypt tests) and the example of
/// github.com/firebase/scrypt.
@Suite("imported password hashes")
struct ImportedPasswordHashTests {
    static func hex(_ text: String) -> Data {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes)
    }

    static func options(_ algorithm: String, key: String? = nil, rounds: Int? = nil) -> ImportedPasswordHash {
        ImportedPasswordHash(algorithm: algorithm, signerKey: key.map { Data($0.utf8) }, rounds: rounds)
    }

    @Test(
        "HMACs: HMAC(key, password + salt)",
        arguments: [
            ("HMAC_MD5", "750c783e6ab0b503eaa86e310a5db738"),
            ("HMAC_SHA1", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
            ("HMAC_SHA256", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            (
                "HMAC_SHA512",
                "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
            ),
        ])
    func hmacs(algorithm: String, expected: String) {
        // RFC 2104/2202/4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        let hash = Self.options(algorithm, key: "Jefe")
        let salt = Data("for nothing?".utf8)
        #expect(hash.verify("what do ya want ", hash: Self.hex(expected), salt: salt))
        #expect(!hash.verify("what do ya want", hash: Self.hex(expected), salt: salt))
        var saltFirst = hash
        saltFirst.passwordHashOrder = "SALT_AND_PASSWORD"
        #expect(saltFirst.verify("for nothing?", hash: Self.hex(expected), salt: Data("what do ya want ".utf8)))
    }

    @Test(
        "digests: H(salt + password), rounds times; raw or as hex text",
        arguments: [
            ("MD5", 0, "900150983cd24fb0d6963f7d28e17f72"),
            ("SHA1", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
            ("SHA256", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("SHA256", 2, "4f8b42c22dd3729b519ba6f68d2da7cc5b2d606d05daed5ad5128cc03e6c6358"),
            (
                "SHA512", 1,
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
            ),
        ])
    func digests(algorithm: String, rounds: Int, expected: String) {
        let hash = Self.options(algorithm, rounds: rounds)
        #expect(hash.verify("bc", hash: Self.hex(expected), salt: Data("a".utf8)))
        #expect(hash.verify("bc", hash: Data(expected.utf8), salt: Data("a".utf8)))
        #expect(!hash.verify("bd", hash: Self.hex(expected), salt: Data("a".utf8)))
        var passwordFirst = hash
        passwordFirst.passwordHashOrder = "PASSWORD_AND_SALT"
        #expect(passwordFirst.verify("a", hash: Self.hex(expected), salt: Data("bc".utf8)))
    }

    @Test("PBKDF_SHA1 and PBKDF2_SHA256 (RFC 6070 and its SHA-256 counterpart), output as long as the hash")
    func pbkdf2() {
        let salt = Data("salt".utf8)
        let sha1 = Self.options("PBKDF_SHA1", rounds: 2)
        #expect(sha1.verify("password", hash: Self.hex("ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"), salt: salt))
        let sha256 = Self.options("PBKDF2_SHA256", rounds: 2)
        let expected = Self.hex("ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43")
        #expect(sha256.verify("password", hash: expected, salt: salt))
        #expect(!sha256.verify("passwort", hash: expected, salt: salt))
    }

    @Test("STANDARD_SCRYPT: RFC 7914's vector (N 1024, r 8, p 16, 64 bytes)")
    func standardScrypt() {
        let hash = ImportedPasswordHash(
            algorithm: "STANDARD_SCRYPT", cpuMemCost: 1024, parallelization: 16, blockSize: 8, dkLen: 64)
        let expected = Self.hex(
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
        #expect(hash.verify("password", hash: expected, salt: Data("NaCl".utf8)))
        #expect(!hash.verify("Password", hash: expected, salt: Data("NaCl".utf8)))
    }

    @Test("SCRYPT: Firebase's modified scrypt, the example of github.com/firebase/scrypt")
    func firebaseScrypt() {
        let hash = ImportedPasswordHash(
            algorithm: "SCRYPT",
            signerKey: Data(
                base64Encoded:
                    "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
            saltSeparator: Data(base64Encoded: "Bw=="), rounds: 8, memoryCost: 14)
        let expected = Data(
            base64Encoded: "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")!
        let salt = Data(base64Encoded: "42xEC+ixf3L2lw==")!
        #expect(hash.verify("user1password", hash: expected, salt: salt))
        #expect(!hash.verify("user2password", hash: expected, salt: salt))
    }

    @Test("BCRYPT: openwall's test vector, the hash string carrying its salt")
    func bcrypt() {
        let hash = Self.options("BCRYPT")
        let stored = Data("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8)
        #expect(hash.verify("U*U", hash: stored, salt: Data()))
        #expect(!hash.verify("U*V", hash: stored, salt: Data()))
        #expect(!hash.verify("U*U", hash: Data("not-a-bcrypt-hash".utf8), salt: Data()))
    }

    @Test(
        "options outside production's bounds and ours are refused, naming the option",
        arguments: [
            (
                ImportedPasswordHash(algorithm: "SCRYPT", signerKey: Data([1]), rounds: 9, memoryCost: 14),
                "INVALID_HASH_ROUNDS"
            ),
            (
                ImportedPasswordHash(algorithm: "SCRYPT", signerKey: Data([1]), rounds: 8, memoryCost: 15),
                "INVALID_HASH_MEMORY_COST"
            ),
            (ImportedPasswordHash(algorithm: "SCRYPT", rounds: 8, memoryCost: 14), "INVALID_HASH_KEY"),
            (ImportedPasswordHash(algorithm: "HMAC_SHA256"), "INVALID_HASH_KEY"),
            (ImportedPasswordHash(algorithm: "SHA256", rounds: 8193), "INVALID_HASH_ROUNDS"),
            (ImportedPasswordHash(algorithm: "PBKDF2_SHA256", rounds: 120_001), "INVALID_HASH_ROUNDS"),
            (ImportedPasswordHash(algorithm: "PBKDF_SHA1", rounds: 10, dkLen: 65), "INVALID_HASH_DERIVED_KEY_LENGTH"),
            (
                ImportedPasswordHash(
                    algorithm: "STANDARD_SCRYPT", cpuMemCost: 1 << 20, parallelization: 1, blockSize: 8),
                "INVALID_HASH_MEMORY_COST"
            ),
            (
                ImportedPasswordHash(algorithm: "STANDARD_SCRYPT", cpuMemCost: 1000, parallelization: 1, blockSize: 8),
                "INVALID_HASH_MEMORY_COST"
            ),
            (
                ImportedPasswordHash(
                    algorithm: "STANDARD_SCRYPT", cpuMemCost: 1 << 17, parallelization: 2, blockSize: 8),
                "INVALID_HASH_MEMORY_COST"
            ),
        ])
    func bounds(options: ImportedPasswordHash, code: String) {
        #expect(throws: AuthError.self) { try options.checkBounds() }
        #expect((try? options.checkBounds()) == nil)
        do { try options.checkBounds() } catch { #expect(error.code == code) }
        // Never computed either, whatever is stored.
        #expect(!options.verify("secret", hash: Data(repeating: 1, count: 32), salt: Data()))
    }

    @Test("bcrypt costs 4 to 12 are checked; above, the hash is refused at import and never computed")
    func bcryptCosts() {
        let hash = Self.options("BCRYPT")
        let cost13 = Data("$2a$13$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8)
        let cost31 = Data("$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8)
        for stored in [cost13, cost31] {
            do {
                try hash.checkBounds(hash: stored)
                Issue.record("a cost above 12 passed")
            } catch { #expect(error.code == "INVALID_PASSWORD_HASH") }
            #expect(!hash.verify("U*U", hash: stored, salt: Data()))
        }
        #expect(
            (try? hash.checkBounds(hash: Data("$2y$12$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8)))
                != nil)
        let pbkdf2 = Self.options("PBKDF2_SHA256", rounds: 10)
        #expect((try? pbkdf2.checkBounds(hash: Data(count: 65))) == nil)
        #expect((try? pbkdf2.checkBounds(hash: Data(count: 64))) != nil)
    }

    @Test(
        "an upload outside the bounds: the request's options answer 400, a user's own options and hash a per-user error"
    )
    func uploads() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let path = "projects/example/accounts:batchCreate"
            let rounds = try await client.v1(
                path,
                [
                    "hashAlgorithm": "SCRYPT", "signerKey": "AQ==", "rounds": 9, "memoryCost": 14,
                    "users": [["localId": "a", "passwordHash": "AQ=="]],
                ],
                admin: true)
            #expect(rounds.status == 400 && rounds.errorMessage == "INVALID_HASH_ROUNDS : must be from 1 to 8.")
            let perUser = try await client.v1(
                path,
                [
                    "hashAlgorithm": "BCRYPT",
                    "users": [
                        [
                            "localId": "slow", "email": "slow@example.com",
                            "passwordHash": .string(
                                Data("$2a$16$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8)
                                    .base64EncodedString()),
                        ],
                        [
                            "localId": "own", "email": "own@example.com", "passwordHash": "AQ==",
                            "emulatorPasswordHash": [
                                "algorithm": "SCRYPT", "signerKey": "AQ==", "rounds": 100, "memoryCost": 14,
                            ],
                        ],
                        [
                            "localId": "fine", "email": "fine@example.com",
                            "passwordHash": .string(
                                Data("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8)
                                    .base64EncodedString()),
                        ],
                    ],
                ],
                admin: true)
            #expect(perUser.status == 200)
            #expect(
                perUser["error"] == [
                    [
                        "index": 0,
                        "message": "INVALID_PASSWORD_HASH : a bcrypt hash ($2a$, $2b$ or $2y$) of cost 4 to 12.",
                    ],
                    ["index": 1, "message": "INVALID_HASH_ROUNDS : must be from 1 to 8."],
                ])
            let fine = try await client.v1(
                "accounts:signInWithPassword", ["email": "fine@example.com", "password": "U*U"])
            #expect(fine.status == 200)
        }
    }

    @Test("a record stored outside the bounds (before them, or from a file) is refused at sign-in without computing")
    func storedOutsideBounds() async throws {
        let harness = try Harness()
        var user = UserRecord(localId: "old")
        user.email = "old@example.com"
        user.passwordHash = Data("$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW".utf8)
            .base64EncodedString()
        user.importedPasswordHash = ImportedPasswordHash(algorithm: "BCRYPT")
        let stored = user
        try await harness.store.write { tx in try await tx.save(Scope(projectId: "example"), stored) }
        try await harness.run { client in
            let reply = try await client.v1(
                "accounts:signInWithPassword", ["email": "old@example.com", "password": "U*U"])
            #expect(reply.status == 400 && reply.errorMessage == "INVALID_PASSWORD")
        }
    }
}
