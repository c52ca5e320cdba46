import Foundation

/// `accounts:batchCreate` (import) body.
public struct BatchCreateRequest: Decodable, Sendable {
    public struct ImportedUser: Decodable, Sendable {
        public var localId: String?
        public var email: String?
        public var emailVerified: Bool?
        public var displayName: String?
        public var photoUrl: String?
        public var phoneNumber: String?
        public var passwordHash: String?
        public var salt: String?
        public var rawPassword: String?
        public var disabled: Bool?
        public var customAttributes: String?
        public var createdAt: String?
        public var lastLoginAt: String?
        public var lastRefreshAt: String?
        public var validSince: String?
        public var passwordUpdatedAt: Double?
        public var providerUserInfo: [ImportedProvider]?
        public var mfaInfo: [ImportedFactor]?
        public var tenantId: String?
        public var customAuth: Bool?
        public var emailLinkSignin: Bool?
        public var initialEmail: String?
        public var passkeyInfo: [PasskeyInfo]?
        /// How `passwordHash` was made, from an authemu download (the upload's options otherwise).
        public var emulatorPasswordHash: ImportedPasswordHash?
    }
    /// A provider entry as imported: ids may be missing (a per-user error, not a bad request).
    public struct ImportedProvider: Decodable, Sendable {
        public var providerId: String?
        public var rawId: String?
        public var federatedId: String?
        public var email: String?
        public var displayName: String?
        public var photoUrl: String?
        public var phoneNumber: String?
        public var screenName: String?
    }
    /// A second factor as imported: a missing enrollment id is drawn.
    public struct ImportedFactor: Decodable, Sendable {
        public var mfaEnrollmentId: String?
        public var displayName: String?
        public var enrolledAt: String?
        public var phoneInfo: String?
        public var unobfuscatedPhoneInfo: String?
        public var totpInfo: JSONValue?
        public var totpSecret: String?
        /// firebase-tools' name for the secret in its `batchGet` export.
        public var emulatorTotpSecret: String?
        public var totpLastUsedStep: Int64?
    }
    public var users: [ImportedUser]?
    public var allowOverwrite: Bool?
    public var sanityCheck: Bool?
    /// Production's password hash options (the Admin SDKs' `importUsers(users, {hash})`).
    public var hashAlgorithm: String?
    public var signerKey: String?
    public var saltSeparator: String?
    public var rounds: Int?
    public var memoryCost: Int?
    public var cpuMemCost: Int?
    public var parallelization: Int?
    public var blockSize: Int?
    public var dkLen: Int?
    public var passwordHashOrder: String?

    /// The options the users' hashes are checked with; nil without `hashAlgorithm`.
    func passwordHashOptions() throws(AuthError) -> ImportedPasswordHash? {
        guard let name = hashAlgorithm?.uppercased(), !name.isEmpty else { return nil }
        guard ImportedPasswordHash.algorithms.contains(name) else {
            throw AuthError("INVALID_HASH_ALGORITHM", "Unsupported hash algorithm \(name).")
        }
        if let order = passwordHashOrder,
            !["SALT_AND_PASSWORD", "PASSWORD_AND_SALT", "UNSPECIFIED_ORDER"].contains(order)
        {
            throw AuthError(
                "INVALID_PASSWORD_HASH_ORDER", "passwordHashOrder must be SALT_AND_PASSWORD or PASSWORD_AND_SALT.")
        }
        func bytes(_ field: String?, _ name: String) throws(AuthError) -> Data? {
            guard let field else { return nil }
            guard let data = Base64.decodeAny(field) else {
                throw AuthError("INVALID_\(name)", "\(name.lowercased()) is not base64.")
            }
            return data
        }
        let options = ImportedPasswordHash(
            algorithm: name, signerKey: try bytes(signerKey, "SIGNER_KEY"),
            saltSeparator: try bytes(saltSeparator, "SALT_SEPARATOR"), rounds: rounds, memoryCost: memoryCost,
            cpuMemCost: cpuMemCost, parallelization: parallelization, blockSize: blockSize, dkLen: dkLen,
            passwordHashOrder: passwordHashOrder == "UNSPECIFIED_ORDER" ? nil : passwordHashOrder)
        try options.checkBounds()
        return options
    }

    public init(users: [ImportedUser], allowOverwrite: Bool) {
        self.users = users
        self.allowOverwrite = allowOverwrite
    }
}

extension Emulator {
    /// Imports users as firebase-tools does: duplicates within the request are a 400 (emails and
    /// provider ids with `sanityCheck`, local ids unless `allowOverwrite`); per-user failures come
    /// back as `error: [{index, message}]` with HTTP 200, in production's words.
    public func batchCreate(_ request: BatchCreateRequest, caller: Caller) async throws -> JSONValue {
        try caller.requireAdmin()
        let scope = caller.scope
        let random = self.random
        let errors: [JSONValue] = try await store.write { tx in
            let settings = try await self.enabledSettings(tx, scope)
            guard let users = request.users, !users.isEmpty else { throw AuthError("MISSING_USER_ACCOUNT") }
            let hashOptions = try request.passwordHashOptions()
            try Emulator.checkImportDuplicates(request, users, oneAccountPerEmail: !settings.allowDuplicateEmails)
            var errors: [JSONValue] = []
            for (index, input) in users.enumerated() {
                do {
                    let user = try await Emulator.importedRecord(
                        input, scope: scope, random: random, uploadMillis: self.nowMillisString,
                        hashOptions: hashOptions)
                    try settings.emulator.admitFactors(user)
                    try await Emulator.checkImportConflicts(
                        tx, user, scope: scope, request: request, oneAccountPerEmail: !settings.allowDuplicateEmails)
                    try await tx.save(scope, user)
                } catch let error as AuthError {
                    errors.append(
                        .object(["index": .number(Double(index)), "message": .string(Self.importMessage(error))]))
                }
            }
            return errors
        }
        var response: [String: JSONValue] = ["kind": "identitytoolkit#UploadAccountResponse"]
        if !errors.isEmpty { response["error"] = .array(errors) }
        return .object(response)
    }

    /// Duplicates within one request refuse the whole request.
    static func checkImportDuplicates(
        _ request: BatchCreateRequest, _ users: [BatchCreateRequest.ImportedUser], oneAccountPerEmail: Bool
    ) throws(AuthError) {
        if request.sanityCheck == true {
            if oneAccountPerEmail {
                var emails = Set<String>()
                for email in users.compactMap(\.email) where !email.isEmpty {
                    guard emails.insert(email).inserted else { throw AuthError("DUPLICATE_EMAIL", email) }
                }
            }
            var providerIds = Set<String>()
            for provider in users.flatMap({ $0.providerUserInfo ?? [] }) {
                let (id, raw) = (provider.providerId ?? "undefined", provider.rawId ?? "undefined")
                guard providerIds.insert("\(id):\(raw)").inserted else {
                    throw AuthError("DUPLICATE_RAW_ID", "Provider id(\(id)), Raw id(\(raw))")
                }
            }
        }
        if request.allowOverwrite != true {
            var localIds = Set<String>()
            for localId in users.map({ $0.localId ?? "" }) {
                guard localIds.insert(localId).inserted else { throw AuthError("DUPLICATE_LOCAL_ID", localId) }
            }
        }
    }

    /// What an imported user may not collide with in the store.
    static func checkImportConflicts(
        _ tx: any StoreTransaction, _ user: UserRecord, scope: Scope, request: BatchCreateRequest,
        oneAccountPerEmail: Bool
    ) async throws {
        for provider in user.providers where provider.providerId != "password" && provider.providerId != "phone" {
            guard let rawId = provider.rawId,
                let owner = try await tx.user(scope, providerId: provider.providerId, rawId: rawId)
            else { continue }
            if owner.localId != user.localId { throw AuthError("raw id exists in other account in database") }
        }
        if oneAccountPerEmail, let email = user.email,
            try await tx.users(scope, email: email).contains(where: { $0.localId != user.localId })
        {
            throw AuthError(
                request.sanityCheck == true
                    ? "email exists in other account in database"
                    : "((Auth Emulator does not support importing duplicate email: \(email)))")
        }
        if request.allowOverwrite != true, try await tx.user(scope, localId: user.localId) != nil {
            throw AuthError("localId belongs to an existing account - can not overwrite.")
        }
    }

    /// Production's wording for the claim errors in an import's per-user list.
    static func importMessage(_ error: AuthError) -> String {
        switch error.code {
        case "INVALID_CLAIMS": return "Invalid custom claims provided."
        case "CLAIMS_TOO_LARGE": return "Custom claims provided are too large."
        case "FORBIDDEN_CLAIM": return "Custom claims provided include a reserved claim."
        default: return error.message
        }
    }

    /// One `batchCreate` user as a record: its profile, password, providers and factors.
    static func importedRecord(
        _ input: BatchCreateRequest.ImportedUser, scope: Scope, random: any RandomSource, uploadMillis: String,
        hashOptions: ImportedPasswordHash? = nil
    )
        throws -> UserRecord
    {
        var user = try importedProfile(input, scope: scope, uploadMillis: uploadMillis)
        try setImportedPassword(&user, input, random: random, hashOptions: hashOptions)
        let providers = try importedProviders(input, of: user)
        user.providerUserInfo = providers.isEmpty ? nil : providers
        if let factors = input.mfaInfo, !factors.isEmpty {
            user.mfaInfo = try importedFactors(factors, of: user, random: random)
        }
        return user
    }

    /// The uid, contact and profile fields, times and flags, checked.
    static func importedProfile(_ input: BatchCreateRequest.ImportedUser, scope: Scope, uploadMillis: String) throws
        -> UserRecord
    {
        guard let localId = input.localId, !localId.isEmpty else { throw AuthError("localId is missing") }
        if let tenant = input.tenantId, !tenant.isEmpty, tenant != scope.tenantId {
            throw AuthError("Tenant id in userInfo does not match the tenant id in request.")
        }
        var user = UserRecord(localId: localId)
        if let email = input.email, !email.isEmpty {
            guard Validation.isEmail(email) else { throw AuthError("email is invalid") }
            user.email = email.lowercased()
        }
        user.emailVerified = input.emailVerified
        user.displayName = input.displayName
        user.photoUrl = input.photoUrl
        if let phone = input.phoneNumber, !phone.isEmpty {
            guard Validation.isPhoneNumber(phone) else { throw AuthError("phone number format is invalid") }
            user.phoneNumber = phone
        }
        user.disabled = input.disabled
        if let claims = input.customAttributes { user.customAttributes = try CustomClaims.validate(claims) }
        // As production and firebase-tools: a user imported without a creation time was created now.
        user.createdAt = input.createdAt.flatMap { Double($0) != nil ? $0 : nil } ?? uploadMillis
        user.lastLoginAt = input.lastLoginAt
        user.lastRefreshAt = input.lastRefreshAt
        user.validSince = input.validSince
        user.passwordUpdatedAt = input.passwordUpdatedAt
        user.customAuth = input.customAuth
        user.emailLinkSignin = input.emailLinkSignin
        user.initialEmail = input.initialEmail
        user.passkeyInfo = input.passkeyInfo
        user.tenantId = scope.tenantId
        return user
    }

    /// A plaintext (or firebase-tools fake hash) is hashed here; a hash from elsewhere (production,
    /// our own export) is kept verbatim, with how it was made when the upload says so, so the real
    /// password signs in.
    static func setImportedPassword(
        _ user: inout UserRecord, _ input: BatchCreateRequest.ImportedUser, random: any RandomSource,
        hashOptions: ImportedPasswordHash?
    ) throws(AuthError) {
        if let plaintext = input.rawPassword ?? input.passwordHash.flatMap(PasswordHasher.plaintextOfFakeHash) {
            let hashed = PasswordHasher.hash(plaintext, random: random)
            user.passwordHash = hashed.hash
            user.salt = hashed.salt
        } else if let hash = input.passwordHash {
            user.passwordHash = hash
            user.salt = input.salt
            user.importedPasswordHash = input.emulatorPasswordHash ?? hashOptions
            // The request's options were checked once; a user's own (an authemu download's) and
            // each hash are checked here, so no stored hash costs more than the bounds.
            if let options = user.importedPasswordHash {
                if input.emulatorPasswordHash != nil { try options.checkBounds() }
                try options.checkBounds(hash: Base64.decodeAny(hash) ?? Data())
            }
        }
    }

    /// The linked providers as sent, plus the password and phone entries the user's own fields imply.
    static func importedProviders(_ input: BatchCreateRequest.ImportedUser, of user: UserRecord) throws
        -> [ProviderUserInfo]
    {
        var providers: [ProviderUserInfo] = []
        for provider in input.providerUserInfo ?? [] {
            let providerId = provider.providerId ?? ""
            // Password and phone entries are derived from the user's own fields; others need both ids.
            guard
                providerId == "password" || providerId == "phone"
                    || (!providerId.isEmpty && provider.rawId?.isEmpty == false)
            else {
                throw AuthError(
                    provider.federatedId?.isEmpty == false
                        ? "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))"
                        : "federatedId or (providerId & rawId) is required")
            }
            providers.append(
                ProviderUserInfo(
                    providerId: providerId, rawId: provider.rawId, federatedId: provider.federatedId,
                    email: provider.email, displayName: provider.displayName, photoUrl: provider.photoUrl,
                    phoneNumber: provider.phoneNumber, screenName: provider.screenName))
        }
        if user.hasPassword, let email = user.email, !providers.contains(where: { $0.providerId == "password" }) {
            providers.append(ProviderUserInfo(providerId: "password", rawId: email, federatedId: email, email: email))
        }
        if let phone = user.phoneNumber, !providers.contains(where: { $0.providerId == "phone" }) {
            providers.append(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
        }
        return providers
    }

    /// Second factors need a verified email; ids are unique (drawn when absent); SMS factors need a
    /// valid number and TOTP factors the secret their authenticator app holds.
    static func importedFactors(
        _ factors: [BatchCreateRequest.ImportedFactor], of user: UserRecord, random: any RandomSource
    ) throws -> [MfaEnrollment] {
        guard user.email != nil else { throw AuthError("Second factor account requires email to be presented.") }
        guard user.emailVerified == true else {
            throw AuthError("Second factor account requires email to be verified.")
        }
        var ids = Set<String>()
        for id in factors.compactMap(\.mfaEnrollmentId) where !id.isEmpty {
            guard ids.insert(id).inserted else { throw AuthError("Enrollment id already exists.") }
        }
        return try factors.map { input throws(AuthError) in
            let id = input.mfaEnrollmentId.flatMap { $0.isEmpty ? nil : $0 } ?? random.alphanumeric(28)
            var factor = MfaEnrollment(
                mfaEnrollmentId: id, displayName: input.displayName, enrolledAt: input.enrolledAt,
                phoneInfo: input.phoneInfo, totpInfo: input.totpInfo,
                totpSecret: input.totpSecret ?? input.emulatorTotpSecret)
            factor.totpLastUsedStep = input.totpLastUsedStep
            if let phone = input.phoneInfo {
                guard Validation.isPhoneNumber(phone) else { throw AuthError("Phone number format is invalid") }
                factor.unobfuscatedPhoneInfo = input.unobfuscatedPhoneInfo ?? phone
            } else if input.totpInfo != nil, let secret = factor.totpSecret, Base32.decode(secret) != nil {
                // A TOTP factor is only importable with the secret its authenticator app holds.
            } else {
                throw AuthError("Second factor not supported.")
            }
            return factor
        }
    }

    /// v3 `downloadAccount` and `uploadAccount` serve only requests that name their project in
    /// the body (`targetProjectId`), as an authenticated Admin SDK does.
    public static func requireTargetProject(_ named: Bool) throws {
        guard named else {
            throw AuthError.adminCredentialRequired
        }
    }

    /// `accounts:batchGet`: pages in localId order; `maxResults` -1 means all (export).
    public func batchGet(maxResults: Int?, nextPageToken: String?, caller: Caller) async throws -> JSONValue {
        try caller.requireAdmin()
        let scope = caller.scope
        var limit = maxResults ?? 20
        if limit == 0 { limit = 20 }
        if limit > 1000 { limit = 1000 }
        let pageLimit = limit < 0 ? nil : limit
        let users = try await store.read { tx in
            try await Emulator.readSettings(tx, scope).requireAuthEnabled()
            return try await tx.listUsers(
                scope, after: nextPageToken.flatMap { $0.isEmpty ? nil : $0 }, limit: pageLimit, descending: false)
        }
        var response: [String: JSONValue] = ["kind": "identitytoolkit#DownloadAccountResponse"]
        if !users.isEmpty { response["users"] = .array(users.map { $0.wireValue(forDownload: true) }) }
        if let pageLimit, users.count == pageLimit, let last = users.last {
            response["nextPageToken"] = .string(last.localId)
        }
        return .object(response)
    }

    /// `accounts:batchDelete`.
    public func batchDelete(localIds: [String]?, force: Bool, caller: Caller) async throws -> JSONValue {
        try caller.requireAdmin()
        let ids = localIds ?? []
        // As firebase-tools: an empty list is out of the 1-1000 range like a long one.
        if ids.isEmpty || ids.count > 1000 { throw AuthError("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        let scope = caller.scope
        let errors: [JSONValue] = try await store.write { tx in
            var errors: [JSONValue] = []
            for (index, id) in ids.enumerated() {
                guard let user = try await tx.user(scope, localId: id) else { continue }
                if !force, !user.isDisabled {
                    errors.append(
                        .object([
                            "index": .number(Double(index)), "localId": .string(id),
                            "message": "NOT_DISABLED : Disable the account before batch deletion.",
                        ]))
                    continue
                }
                if try await tx.deleteUser(scope, localId: id) { self.recordDeleted(tx, user, scope: scope) }
            }
            return errors
        }
        return errors.isEmpty ? .object([:]) : .object(["errors": .array(errors)])
    }

    /// `accounts:query`: all users sorted by localId, or just the count.
    public func queryAccounts(_ body: JSONValue, caller: Caller) async throws -> JSONValue {
        try caller.requireAdmin()
        try await requireAuthEnabled(caller.scope)
        if body["expression"].map({ $0 != .null && $0 != .array([]) }) == true {
            throw AuthError.notImplemented("accounts:query with expression")
        }
        if let sortBy = body["sortBy"]?.stringValue, sortBy != "USER_ID", sortBy != "SORT_BY_FIELD_UNSPECIFIED" {
            throw AuthError.notImplemented("accounts:query sortBy \(sortBy)")
        }
        let descending = body["order"]?.stringValue == "DESC"
        let limit = body["limit"].flatMap { $0.doubleValue ?? $0.stringValue.flatMap(Double.init) }.flatMap(
            \.truncatedInt)
        let offset =
            body["offset"].flatMap { $0.doubleValue ?? $0.stringValue.flatMap(Double.init) }.flatMap(\.truncatedInt)
            ?? 0
        if offset < 0 || (limit ?? 0) < 0 {
            throw AuthError("INVALID_ARGUMENT", "limit and offset must not be negative")
        }
        let scope = caller.scope
        let (count, users): (Int, [UserRecord]) = try await store.read { tx in
            let all = try await tx.listUsers(scope, after: nil, limit: nil, descending: descending)
            let page = Array(all.dropFirst(offset).prefix(limit ?? Int.max))
            return (all.count, page)
        }
        if body["returnUserInfo"]?.boolValue == false { return .object(["recordsCount": .string(String(count))]) }
        return .object(["recordsCount": .string(String(users.count)), "userInfo": .array(users.map(\.wireValue))])
    }
}
