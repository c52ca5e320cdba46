import Foundation

extension ProviderUserInfo {
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["providerId": .string(providerId)]
        object["rawId"] = rawId.map(JSONValue.string)
        object["federatedId"] = federatedId.map(JSONValue.string)
        object["email"] = email.map(JSONValue.string)
        object["displayName"] = displayName.map(JSONValue.string)
        object["photoUrl"] = photoUrl.map(JSONValue.string)
        object["phoneNumber"] = phoneNumber.map(JSONValue.string)
        object["screenName"] = screenName.map(JSONValue.string)
        return .object(object)
    }
}

extension MfaEnrollment {
    /// The enrollment as lookups show it (never the TOTP secret).
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["mfaEnrollmentId": .string(mfaEnrollmentId)]
        object["displayName"] = displayName.map(JSONValue.string)
        object["enrolledAt"] = enrolledAt.map(JSONValue.string)
        object["phoneInfo"] = phoneInfo.map(JSONValue.string)
        object["unobfuscatedPhoneInfo"] = unobfuscatedPhoneInfo.map(JSONValue.string)
        object["totpInfo"] = totpInfo
        return .object(object)
    }
}

extension UserRecord {
    /// The user as `accounts:lookup` / `batchGet` show it: the stored form with the password hash
    /// redacted, salt and TOTP secrets left out, `emailVerified` always present.
    public var wireValue: JSONValue {
        guard case .object(var object) = storedValue else { return storedValue }
        object["emailVerified"] = .bool(emailVerified ?? false)
        object["passwordHash"] = passwordHash.map { _ in .string(PasswordHasher.redacted) }
        object["salt"] = nil
        object["mfaInfo"] = mfaInfo.map { .array($0.map(\.jsonValue)) }
        if passkeyInfo?.isEmpty ?? false { object["passkeyInfo"] = nil }
        return .object(object)
    }

    /// The user for export: everything, including the hash, salt and TOTP secrets.
    public var exportValue: JSONValue { storedValue }

    /// The record as stored and exported: exactly its synthesized `Codable` form (the keys and
    /// values `JSONEncoder` writes, which `JSONDecoder` reads back), built field by field:
    /// `JSONEncoder` took a tenth of a sign-up. A test checks it against `JSONEncoder` with every
    /// field set, so a new field cannot be forgotten here.
    public var storedValue: JSONValue {
        var object: [String: JSONValue] = ["localId": .string(localId)]
        object["email"] = email.map(JSONValue.string)
        object["emailVerified"] = emailVerified.map(JSONValue.bool)
        object["displayName"] = displayName.map(JSONValue.string)
        object["photoUrl"] = photoUrl.map(JSONValue.string)
        object["phoneNumber"] = phoneNumber.map(JSONValue.string)
        object["passwordHash"] = passwordHash.map(JSONValue.string)
        object["salt"] = salt.map(JSONValue.string)
        object["passwordUpdatedAt"] = passwordUpdatedAt.map(JSONValue.number)
        object["providerUserInfo"] = providerUserInfo.map { .array($0.map(\.jsonValue)) }
        object["mfaInfo"] = mfaInfo.map { .array($0.map(\.storedValue)) }
        object["customAttributes"] = customAttributes.map(JSONValue.string)
        object["disabled"] = disabled.map(JSONValue.bool)
        object["createdAt"] = createdAt.map(JSONValue.string)
        object["lastLoginAt"] = lastLoginAt.map(JSONValue.string)
        object["lastRefreshAt"] = lastRefreshAt.map(JSONValue.string)
        object["validSince"] = validSince.map(JSONValue.string)
        object["tenantId"] = tenantId.map(JSONValue.string)
        object["customAuth"] = customAuth.map(JSONValue.bool)
        object["initialEmail"] = initialEmail.map(JSONValue.string)
        object["emailLinkSignin"] = emailLinkSignin.map(JSONValue.bool)
        object["passkeyInfo"] = passkeyInfo.map { .array($0.map(\.jsonValue)) }
        return .object(object)
    }
}

extension MfaEnrollment {
    /// The enrollment as stored: the wire form plus the TOTP secret and last used step.
    var storedValue: JSONValue {
        guard case .object(var object) = jsonValue else { return jsonValue }
        object["totpSecret"] = totpSecret.map(JSONValue.string)
        object["totpLastUsedStep"] = totpLastUsedStep.map { .number(Double($0)) }
        return .object(object)
    }
}
