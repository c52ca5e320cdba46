import Foundation

extension UserRecord {
    /// The user as `accounts:lookup` / `batchGet` show it: password hash redacted, salt and TOTP
    /// secrets left out, `emailVerified` always present.
    public var wireValue: JSONValue {
        guard case .object(var object) = (try? JSONValue.from(self)) ?? .object([:]) else { return .object([:]) }
        object["salt"] = nil
        if object["passwordHash"] != nil { object["passwordHash"] = .string(PasswordHasher.redacted) }
        object["emailVerified"] = .bool(emailVerified ?? false)
        if let enrollments = object["mfaInfo"]?.arrayValue {
            object["mfaInfo"] = .array(
                enrollments.map { entry in
                    guard case .object(var fields) = entry else { return entry }
                    fields["totpSecret"] = nil
                    fields["totpLastUsedStep"] = nil
                    return .object(fields)
                })
        }
        return .object(object)
    }

    /// The user for export: everything, including the hash, salt and TOTP secrets.
    public var exportValue: JSONValue { (try? JSONValue.from(self)) ?? .object([:]) }
}
