import Crypto
import Foundation

/// Salted SHA-256 password hashing. An emulator needs no slow KDF (test suites sign in thousands
/// of times), but passwords are never kept or shown in clear.
public enum PasswordHasher {
    /// What lookups show instead of the hash, as production does (base64 of "REDACTED").
    public static let redacted = "UkVEQUNURUQ="

    public static func hash(_ password: String, random: any RandomSource) -> (hash: String, salt: String) {
        let salt = Data(random.bytes(16))
        return (digest(password, salt: salt), salt.base64EncodedString())
    }

    public static func verify(_ password: String, hash: String?, salt: String?) -> Bool {
        guard let hash, let salt, let saltData = Data(base64Encoded: salt) else { return false }
        let expected = Array(digest(password, salt: saltData).utf8)
        let actual = Array(hash.utf8)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func digest(_ password: String, salt: Data) -> String {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Data(password.utf8))
        return Data(hasher.finalize()).base64EncodedString()
    }

    /// Checks a password against a user's hash: the emulator's own, or an imported one with the
    /// options it was uploaded with.
    public static func verify(_ password: String, of user: UserRecord) -> Bool {
        guard let imported = user.importedPasswordHash else {
            return verify(password, hash: user.passwordHash, salt: user.salt)
        }
        guard let hash = user.passwordHash.flatMap(Base64.decodeAny) else { return false }
        return imported.verify(password, hash: hash, salt: user.salt.flatMap(Base64.decodeAny) ?? Data())
    }

    /// The plaintext inside a firebase-tools fake hash (`fakeHash:salt=…:password=…`), if it is one.
    public static func plaintextOfFakeHash(_ hash: String) -> String? {
        guard hash.hasPrefix("fakeHash:salt="), let range = hash.range(of: ":password=") else { return nil }
        return String(hash[range.upperBound...])
    }
}

/// Input rules shared by the account flows (lax where firebase-tools is lax).
public enum Validation {
    /// An absolute URI with a scheme and a host (firebase-tools' `parseAbsoluteUri`).
    public static func isAbsoluteURI(_ string: String) -> Bool {
        guard let url = URL(string: string), url.scheme != nil else { return false }
        return !(url.host ?? "").isEmpty
    }

    /// One `@` between two non-empty parts, and no control character (C0, DEL, C1) or line
    /// separator anywhere: production answers `INVALID_EMAIL` for `"a\nforged line@x.com"`, and
    /// such an address would forge lines in a text log.
    public static func isEmail(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !hasControlCharacter(value)
    }

    /// Whether `value` holds a C0 or C1 control character, DEL, or U+2028/U+2029.
    public static func hasControlCharacter(_ value: String) -> Bool {
        value.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029
        }
    }

    /// E.164: a `+` and 7 to 15 digits.
    public static func isPhoneNumber(_ value: String) -> Bool {
        let bytes = value.utf8
        guard bytes.first == UInt8(ascii: "+") else { return false }
        let digits = bytes.dropFirst()
        return (7...15).contains(digits.count) && digits.allSatisfy { (0x30...0x39).contains($0) }
    }

    public static let minimumPasswordLength = 6
}

extension UserRecord {
    /// Sets a new password (salted hash), makes sure the `password` provider is linked, and ends
    /// any password lockout (production: "restore it by resetting your password").
    mutating func setPassword(_ password: String, random: any RandomSource, nowMillis: String) {
        forgetPasswordFailures()
        let hashed = PasswordHasher.hash(password, random: random)
        passwordHash = hashed.hash
        salt = hashed.salt
        importedPasswordHash = nil
        passwordUpdatedAt = Double(nowMillis)
        if let email {
            upsertProvider(ProviderUserInfo(providerId: "password", rawId: email, federatedId: email, email: email))
        }
    }
}
