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
        public var providerUserInfo: [ProviderUserInfo]?
        public var mfaInfo: [MfaEnrollment]?
        public var tenantId: String?
        public var customAuth: Bool?
        public var emailLinkSignin: Bool?
        public var initialEmail: String?
        public var passkeyInfo: [PasskeyInfo]?
    }
    public var users: [ImportedUser]?
    public var allowOverwrite: Bool?
    public var sanityCheck: Bool?
    public var hashAlgorithm: String?

    public init(users: [ImportedUser], allowOverwrite: Bool) {
        self.users = users
        self.allowOverwrite = allowOverwrite
    }
}

extension Emulator {
    /// Imports users; per-user failures come back as `error: [{index, message}]` with HTTP 200.
    public func batchCreate(_ request: BatchCreateRequest, caller: Caller) async throws -> JSONValue {
        guard let users = request.users, !users.isEmpty else { throw AuthError("MISSING_USER_ACCOUNT") }
        let scope = caller.scope
        let random = self.random
        let errors: [JSONValue] = try await store.write { tx in
            _ = try self.settings(tx, scope)
            var errors: [JSONValue] = []
            for (index, input) in users.enumerated() {
                do {
                    let user = try Emulator.importedRecord(input, scope: scope, random: random)
                    if try tx.user(scope, localId: user.localId) != nil, request.allowOverwrite != true {
                        throw AuthError("DUPLICATE_LOCAL_ID", user.localId)
                    }
                    if request.sanityCheck == true, let email = user.email,
                        try tx.users(scope, email: email).contains(where: { $0.localId != user.localId })
                    {
                        throw AuthError("DUPLICATE_EMAIL", email)
                    }
                    try tx.save(scope, user)
                } catch let error as AuthError {
                    errors.append(.object(["index": .number(Double(index)), "message": .string(error.message)]))
                }
            }
            return errors
        }
        var response: [String: JSONValue] = ["kind": "identitytoolkit#UploadAccountResponse"]
        if !errors.isEmpty { response["error"] = .array(errors) }
        return .object(response)
    }

    static func importedRecord(_ input: BatchCreateRequest.ImportedUser, scope: Scope, random: any RandomSource)
        throws -> UserRecord
    {
        guard let localId = input.localId, !localId.isEmpty else { throw AuthError.missingLocalId }
        var user = UserRecord(localId: localId)
        if let email = input.email {
            guard Validation.isEmail(email) else { throw AuthError("INVALID_EMAIL", email) }
            user.email = email.lowercased()
        }
        user.emailVerified = input.emailVerified
        user.displayName = input.displayName
        user.photoUrl = input.photoUrl
        if let phone = input.phoneNumber {
            guard Validation.isPhoneNumber(phone) else { throw AuthError.invalidPhoneNumber }
            user.phoneNumber = phone
        }
        user.disabled = input.disabled
        if let claims = input.customAttributes { user.customAttributes = try CustomClaims.validate(claims) }
        user.createdAt = input.createdAt
        user.lastLoginAt = input.lastLoginAt
        user.lastRefreshAt = input.lastRefreshAt
        user.validSince = input.validSince
        user.passwordUpdatedAt = input.passwordUpdatedAt
        user.customAuth = input.customAuth
        user.emailLinkSignin = input.emailLinkSignin
        user.initialEmail = input.initialEmail
        user.passkeyInfo = input.passkeyInfo
        user.tenantId = scope.tenantId
        let plaintext = input.rawPassword ?? input.passwordHash.flatMap(PasswordHasher.plaintextOfFakeHash)
        if let plaintext {
            let hashed = PasswordHasher.hash(plaintext, random: random)
            user.passwordHash = hashed.hash
            user.salt = hashed.salt
        } else if let hash = input.passwordHash {
            // A hash from elsewhere (production, our own export): kept verbatim.
            user.passwordHash = hash
            user.salt = input.salt
        }
        var providers = input.providerUserInfo ?? []
        if user.hasPassword, let email = user.email, !providers.contains(where: { $0.providerId == "password" }) {
            providers.append(ProviderUserInfo(providerId: "password", rawId: email, federatedId: email, email: email))
        }
        if let phone = user.phoneNumber, !providers.contains(where: { $0.providerId == "phone" }) {
            providers.append(ProviderUserInfo(providerId: "phone", rawId: phone, phoneNumber: phone))
        }
        user.providerUserInfo = providers.isEmpty ? nil : providers
        if let factors = input.mfaInfo, !factors.isEmpty {
            guard user.email != nil else {
                throw AuthError("INVALID_ARGUMENT", "Second factor account requires email to be presented.")
            }
            guard user.emailVerified == true else {
                throw AuthError("INVALID_ARGUMENT", "Second factor account requires email to be verified.")
            }
            user.mfaInfo = factors.map { factor in
                var factor = factor
                if factor.mfaEnrollmentId.isEmpty { factor.mfaEnrollmentId = random.alphanumeric(28) }
                if factor.unobfuscatedPhoneInfo == nil { factor.unobfuscatedPhoneInfo = factor.phoneInfo }
                if factor.totpInfo != nil, factor.totpSecret == nil {
                    factor.totpSecret = Base32.encode(random.bytes(20))
                }
                return factor
            }
        }
        return user
    }

    /// `accounts:batchGet`: pages in localId order; `maxResults` -1 means all (export).
    public func batchGet(maxResults: Int?, nextPageToken: String?, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        var limit = maxResults ?? 20
        if limit == 0 { limit = 20 }
        if limit > 1000 { limit = 1000 }
        let pageLimit = limit < 0 ? nil : limit
        let users = try await store.read { tx in
            try tx.listUsers(
                scope, after: nextPageToken.flatMap { $0.isEmpty ? nil : $0 }, limit: pageLimit, descending: false)
        }
        var response: [String: JSONValue] = ["kind": "identitytoolkit#DownloadAccountResponse"]
        if !users.isEmpty { response["users"] = .array(users.map(\.wireValue)) }
        if let pageLimit, users.count == pageLimit, let last = users.last {
            response["nextPageToken"] = .string(last.localId)
        }
        return .object(response)
    }

    /// `accounts:batchDelete`.
    public func batchDelete(localIds: [String]?, force: Bool, caller: Caller) async throws -> JSONValue {
        let ids = localIds ?? []
        if ids.isEmpty { throw AuthError("MISSING_LOCAL_ID") }
        if ids.count > 1000 { throw AuthError("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        let scope = caller.scope
        let errors: [JSONValue] = try await store.write { tx in
            var errors: [JSONValue] = []
            for (index, id) in ids.enumerated() {
                guard let user = try tx.user(scope, localId: id) else { continue }
                if !force, !user.isDisabled {
                    errors.append(
                        .object([
                            "index": .number(Double(index)), "localId": .string(id),
                            "message": "NOT_DISABLED : Disable the account before batch deletion.",
                        ]))
                    continue
                }
                _ = try tx.deleteUser(scope, localId: id)
            }
            return errors
        }
        return errors.isEmpty ? .object([:]) : .object(["errors": .array(errors)])
    }

    /// `accounts:query`: all users sorted by localId, or just the count.
    public func queryAccounts(_ body: JSONValue, caller: Caller) async throws -> JSONValue {
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
            let all = try tx.listUsers(scope, after: nil, limit: nil, descending: descending)
            let page = Array(all.dropFirst(offset).prefix(limit ?? Int.max))
            return (all.count, page)
        }
        if body["returnUserInfo"]?.boolValue == false { return .object(["recordsCount": .string(String(count))]) }
        return .object(["recordsCount": .string(String(users.count)), "userInfo": .array(users.map(\.wireValue))])
    }
}
