import Foundation

extension ProviderUserInfo {
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["providerId": .string(providerId)]
        object.setIfPresent("rawId", rawId.map(JSONValue.string))
        object.setIfPresent("federatedId", federatedId.map(JSONValue.string))
        object.setIfPresent("email", email.map(JSONValue.string))
        object.setIfPresent("displayName", displayName.map(JSONValue.string))
        object.setIfPresent("photoUrl", photoUrl.map(JSONValue.string))
        object.setIfPresent("phoneNumber", phoneNumber.map(JSONValue.string))
        object.setIfPresent("screenName", screenName.map(JSONValue.string))
        return .object(object)
    }
}

extension MfaEnrollment {
    /// The enrollment as lookups show it (never the TOTP secret).
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["mfaEnrollmentId": .string(mfaEnrollmentId)]
        object.setIfPresent("displayName", displayName.map(JSONValue.string))
        object.setIfPresent("enrolledAt", enrolledAt.map(JSONValue.string))
        object.setIfPresent("phoneInfo", phoneInfo.map(JSONValue.string))
        object.setIfPresent("unobfuscatedPhoneInfo", unobfuscatedPhoneInfo.map(JSONValue.string))
        object.setIfPresent("totpInfo", totpInfo)
        return .object(object)
    }
}

extension UserRecord {
    /// The user as `accounts:lookup` shows it: the stored form with the password hash
    /// redacted, salt and TOTP secrets left out, `emailVerified` always present.
    public var wireValue: JSONValue { wireValue(forDownload: false) }

    /// As `wireValue`, or for `batchGet` (admin only; production's downloadAccount, what
    /// `firebase emulators:export` reads): the password hash and salt as stored, and each TOTP
    /// factor's secret as `emulatorTotpSecret` (firebase-tools' name), so `batchCreate` takes
    /// the records back and their passwords and authenticator apps keep working.
    public func wireValue(forDownload: Bool) -> JSONValue {
        guard case .object(var object) = storedValue else { return storedValue }
        object["emailVerified"] = .bool(emailVerified ?? false)
        // How an imported hash was made: only downloads carry it (as `emulatorPasswordHash`, which
        // `batchCreate` takes back).
        let importedHash = object.removeValue(forKey: "importedPasswordHash")
        if forDownload {
            object["emulatorPasswordHash"] = importedHash
        } else {
            object["passwordHash"] = passwordHash.map { _ in .string(PasswordHasher.redacted) }
            object["salt"] = nil
        }
        object["mfaInfo"] = mfaInfo.map { factors in
            .array(
                factors.map { factor in
                    guard forDownload, let secret = factor.totpSecret, case .object(var value) = factor.jsonValue else {
                        return factor.jsonValue
                    }
                    value["emulatorTotpSecret"] = .string(secret)
                    return .object(value)
                })
        }
        if passkeyInfo?.isEmpty ?? false { object["passkeyInfo"] = nil }
        return .object(object)
    }

    /// The user for export: everything, including the hash, salt and TOTP secrets.
    public var exportValue: JSONValue { storedValue }

    /// The record as stored and exported: exactly its synthesized `Codable` form (the keys and
    /// values `JSONEncoder` writes, which `JSONDecoder` reads back), built field by field:
    /// `JSONEncoder` took a tenth of a sign-up. A test checks it against `JSONEncoder` with every
    /// field set, so a new field cannot be forgotten here.
    public var storedValue: JSONValue { .object(Dictionary(uniqueKeysWithValues: storedMembers)) }

    /// `storedValue`'s text, as `serialized()` writes it, written straight from the sorted members
    /// (a dictionary built and then sorted cost each save of a user ~10,000 instructions).
    public var storedData: Data {
        var object = SortedJSONObject(capacity: 1024)
        for (key, value) in storedMembers { object.member(key, value) }
        return object.data()
    }

    /// The stored form's members, absent optionals left out, in sorted key order.
    private var storedMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(24)
        members.appendIfPresent("createdAt", createdAt.map(JSONValue.string))
        members.appendIfPresent("customAttributes", customAttributes.map(JSONValue.string))
        members.appendIfPresent("customAuth", customAuth.map(JSONValue.bool))
        members.appendIfPresent("disabled", disabled.map(JSONValue.bool))
        members.appendIfPresent("displayName", displayName.map(JSONValue.string))
        members.appendIfPresent("email", email.map(JSONValue.string))
        members.appendIfPresent("emailLinkSignin", emailLinkSignin.map(JSONValue.bool))
        members.appendIfPresent("emailVerified", emailVerified.map(JSONValue.bool))
        members.appendIfPresent("importedPasswordHash", importedPasswordHash.map(\.storedValue))
        members.appendIfPresent("initialEmail", initialEmail.map(JSONValue.string))
        members.appendIfPresent("lastLoginAt", lastLoginAt.map(JSONValue.string))
        members.appendIfPresent("lastRefreshAt", lastRefreshAt.map(JSONValue.string))
        members.append(("localId", .string(localId)))
        members.appendIfPresent("mfaInfo", mfaInfo.map { .array($0.map(\.storedValue)) })
        members.appendIfPresent("passkeyInfo", passkeyInfo.map { .array($0.map(\.jsonValue)) })
        members.appendIfPresent("passwordHash", passwordHash.map(JSONValue.string))
        members.appendIfPresent("passwordUpdatedAt", passwordUpdatedAt.map(JSONValue.number))
        members.appendIfPresent("phoneNumber", phoneNumber.map(JSONValue.string))
        members.appendIfPresent("photoUrl", photoUrl.map(JSONValue.string))
        members.appendIfPresent("providerUserInfo", providerUserInfo.map { .array($0.map(\.jsonValue)) })
        members.appendIfPresent("salt", salt.map(JSONValue.string))
        members.appendIfPresent("screenName", screenName.map(JSONValue.string))
        members.appendIfPresent("tenantId", tenantId.map(JSONValue.string))
        members.appendIfPresent("validSince", validSince.map(JSONValue.string))
        return members
    }
}

extension [(String, JSONValue)] {
    /// Appends `key: value` when there is a value.
    fileprivate mutating func appendIfPresent(_ key: String, _ value: JSONValue?) {
        if let value { append((key, value)) }
    }
}

extension ImportedPasswordHash {
    /// As `JSONEncoder` writes it (bytes as standard base64).
    var storedValue: JSONValue {
        var object: [String: JSONValue] = ["algorithm": .string(algorithm)]
        object.setIfPresent("signerKey", signerKey.map { .string($0.base64EncodedString()) })
        object.setIfPresent("saltSeparator", saltSeparator.map { .string($0.base64EncodedString()) })
        for (key, value) in [
            ("rounds", rounds), ("memoryCost", memoryCost), ("cpuMemCost", cpuMemCost),
            ("parallelization", parallelization), ("blockSize", blockSize), ("dkLen", dkLen),
        ] {
            object.setIfPresent(key, value.map { .number(Double($0)) })
        }
        object.setIfPresent("passwordHashOrder", passwordHashOrder.map(JSONValue.string))
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
