import Foundation

extension ProviderUserInfo {
    var jsonValue: JSONValue {
        var object = [String: JSONValue](minimumCapacity: 8)  // one table, not four grown ones
        object["providerId"] = .string(providerId)
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
        var object = [String: JSONValue](minimumCapacity: 8)
        object["mfaEnrollmentId"] = .string(mfaEnrollmentId)
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
        .object(Dictionary(uniqueKeysWithValues: members(forDownload ? .download : .lookup)))
    }

    /// `wireValue`'s text, as `serialized()` writes it, written straight from the sorted members:
    /// a lookup's user built as a dictionary, then sorted to be written, cost ~20,000 instructions.
    public func wireData(forDownload: Bool) -> Data { text(forDownload ? .download : .lookup) }

    /// The user for export: everything, including the hash, salt and TOTP secrets, but not the
    /// lockout counters (a passing state, and not firebase-tools' format).
    public var exportValue: JSONValue {
        var user = self
        user.signInAttempts = nil
        return user.storedValue
    }

    /// The record as stored and exported: exactly its synthesized `Codable` form (the keys and
    /// values `JSONEncoder` writes, which `JSONDecoder` reads back), built field by field:
    /// `JSONEncoder` took a tenth of a sign-up. A test checks it against `JSONEncoder` with every
    /// field set, so a new field cannot be forgotten here.
    public var storedValue: JSONValue { .object(Dictionary(uniqueKeysWithValues: members(.stored))) }

    /// `storedValue`'s text, as `serialized()` writes it, written straight from the sorted members
    /// (a dictionary built and then sorted cost each save of a user ~10,000 instructions).
    public var storedData: Data { text(.stored) }

    /// The three forms of a user.
    fileprivate enum Form {
        /// As stored and exported: every field set, as `JSONEncoder` writes it.
        case stored
        /// As `accounts:lookup` shows it: `emailVerified` always, the password hash redacted, no
        /// salt, no TOTP secrets, no empty passkey list.
        case lookup
        /// As `batchGet` gives it: the lookup form with the hash and salt as stored, how an imported
        /// hash was made as `emulatorPasswordHash`, TOTP secrets as `emulatorTotpSecret`.
        case download
    }

    /// A form's text, written member by member in sorted order.
    private func text(_ form: Form) -> Data {
        var object = SortedJSONObject(capacity: 1024)
        for (key, value) in members(form) { object.member(key, value) }
        return object.data()
    }

    /// A form's members, absent optionals left out, in sorted key order.
    private func members(_ form: Form) -> [(String, JSONValue)] {
        let wire = form != .stored
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(24)
        members.appendIfPresent("createdAt", createdAt.map(JSONValue.string))
        members.appendIfPresent("customAttributes", customAttributes.map(JSONValue.string))
        members.appendIfPresent("customAuth", customAuth.map(JSONValue.bool))
        members.appendIfPresent("disabled", disabled.map(JSONValue.bool))
        members.appendIfPresent("displayName", displayName.map(JSONValue.string))
        members.appendIfPresent("email", email.map(JSONValue.string))
        members.appendIfPresent("emailLinkSignin", emailLinkSignin.map(JSONValue.bool))
        members.appendIfPresent(
            "emailVerified", wire ? .bool(emailVerified ?? false) : emailVerified.map(JSONValue.bool))
        if form == .download {
            members.appendIfPresent("emulatorPasswordHash", importedPasswordHash.map(\.storedValue))
        }
        if !wire { members.appendIfPresent("importedPasswordHash", importedPasswordHash.map(\.storedValue)) }
        members.appendIfPresent("initialEmail", initialEmail.map(JSONValue.string))
        members.appendIfPresent("lastLoginAt", lastLoginAt.map(JSONValue.string))
        members.appendIfPresent("lastRefreshAt", lastRefreshAt.map(JSONValue.string))
        members.append(("localId", .string(localId)))
        members.appendIfPresent("mfaInfo", mfaInfo.map { factors in .array(factors.map { $0.value(form) }) })
        if !(wire && passkeyInfo?.isEmpty ?? false) {
            members.appendIfPresent("passkeyInfo", passkeyInfo.map { .array($0.map(\.jsonValue)) })
        }
        let redacted = form == .lookup ? PasswordHasher.redacted : nil
        members.appendIfPresent("passwordHash", passwordHash.map { .string(redacted ?? $0) })
        members.appendIfPresent("passwordUpdatedAt", passwordUpdatedAt.map(JSONValue.number))
        members.appendIfPresent("phoneNumber", phoneNumber.map(JSONValue.string))
        members.appendIfPresent("photoUrl", photoUrl.map(JSONValue.string))
        members.appendIfPresent("providerUserInfo", providerUserInfo.map { .array($0.map(\.jsonValue)) })
        if form != .lookup { members.appendIfPresent("salt", salt.map(JSONValue.string)) }
        members.appendIfPresent("screenName", screenName.map(JSONValue.string))
        if !wire { members.appendIfPresent("signInAttempts", signInAttempts.map(\.storedValue)) }
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

extension SignInAttempts {
    /// As `JSONEncoder` writes it.
    var storedValue: JSONValue {
        var object: [String: JSONValue] = [:]
        object.setIfPresent("passwordFailures", passwordFailures.map { .number(Double($0)) })
        object.setIfPresent("passwordLastFailureAt", passwordLastFailureAt.map(JSONValue.number))
        object.setIfPresent("passwordLockedUntil", passwordLockedUntil.map(JSONValue.number))
        object.setIfPresent("factors", factors.map { .object($0.mapValues(\.storedValue)) })
        object.setIfPresent("pendingCredentials", pendingCredentials.map { .object($0.mapValues(\.storedValue)) })
        return .object(object)
    }
}

extension CodeFailures {
    var storedValue: JSONValue {
        var object: [String: JSONValue] = ["count": .number(Double(count))]
        object.setIfPresent("until", until.map(JSONValue.number))
        return .object(object)
    }
}

extension MfaEnrollment {
    /// The enrollment in a user's form: as stored, as a lookup shows it, or as a download gives
    /// it (with its TOTP secret as `emulatorTotpSecret`).
    fileprivate func value(_ form: UserRecord.Form) -> JSONValue {
        switch form {
        case .stored: return storedValue
        case .lookup: return jsonValue
        case .download:
            guard let totpSecret, case .object(var value) = jsonValue else { return jsonValue }
            value["emulatorTotpSecret"] = .string(totpSecret)
            return .object(value)
        }
    }

    /// The enrollment as stored: the wire form plus the TOTP secret and last used step.
    var storedValue: JSONValue {
        guard case .object(var object) = jsonValue else { return jsonValue }
        object["totpSecret"] = totpSecret.map(JSONValue.string)
        object["totpLastUsedStep"] = totpLastUsedStep.map { .number(Double($0)) }
        return .object(object)
    }
}
