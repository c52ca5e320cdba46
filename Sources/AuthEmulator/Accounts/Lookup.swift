import Foundation

/// `accounts:lookup` (v3 `getAccountInfo`): the caller's own account by `idToken`, or, for
/// admins, any accounts by id, email, phone or federated id.
public struct LookupRequest: CommonShapeDecodable, Sendable {
    public struct FederatedUserId: Decodable, Sendable {
        public var providerId: String?
        public var rawId: String?
    }
    public var idToken: String?
    public var localId: [String]?
    public var email: [String]?
    public var phoneNumber: [String]?
    public var federatedUserId: [FederatedUserId]?
    public var initialEmail: [String]?

    enum CodingKeys: String, CodingKey { case idToken, localId, email, phoneNumber, federatedUserId, initialEmail }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
        localId = try Self.list(container, .localId)
        email = try Self.list(container, .email)
        phoneNumber = try Self.list(container, .phoneNumber)
        federatedUserId = try container.decodeIfPresent([FederatedUserId].self, forKey: .federatedUserId)
        initialEmail = try Self.list(container, .initialEmail)
    }

    /// A body of strings and lists of strings (what SDKs send); federated ids, numbers and nulls go
    /// through `init(from:)`.
    public init?(commonShape body: JSONValue) {
        guard case .object(let members) = body, members["federatedUserId"] == nil else { return nil }
        for (key, value) in members {
            switch (key, value) {
            case ("idToken", .string(let token)): idToken = token
            case ("idToken", _): return nil
            case ("localId", _), ("email", _), ("phoneNumber", _), ("initialEmail", _):
                guard let list = Self.strings(value) else { return nil }
                switch key {
                case "localId": localId = list
                case "email": email = list
                case "phoneNumber": phoneNumber = list
                default: initialEmail = list
                }
            default: continue
            }
        }
    }

    /// A string as a list of one, or a list of strings; nil for anything else.
    static func strings(_ value: JSONValue) -> [String]? {
        switch value {
        case .string(let single): return [single]
        case .array(let values):
            var list: [String] = []
            for case .string(let string) in values { list.append(string) }
            return list.count == values.count ? list : nil
        default: return nil
        }
    }

    /// The REST API takes repeated fields; a single string is accepted too.
    static func list(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [String]? {
        if let single = try? container.decodeIfPresent(String.self, forKey: key) { return [single] }
        return try container.decodeIfPresent([String].self, forKey: key)
    }
}

extension Emulator {
    public func lookup(_ request: LookupRequest, caller: Caller) async throws -> JSONText {
        let scope = caller.scope
        if request.initialEmail != nil { throw AuthError.notImplemented("lookup by initialEmail") }
        let users: [UserRecord] = try await store.read { tx in
            try await self.enabledSettings(tx, scope, create: false)
            var found: [UserRecord] = []
            var seen = Set<String>()
            func add(_ user: UserRecord?) {
                if let user, seen.insert(user.localId).inserted { found.append(user) }
            }
            if caller.isAdmin, request.idToken == nil {
                for id in request.localId ?? [] { add(try await tx.user(scope, localId: id)) }
                for email in request.email ?? [] { for user in try await tx.users(scope, email: email) { add(user) } }
                for phone in request.phoneNumber ?? [] { add(try await tx.user(scope, phoneNumber: phone)) }
                for federated in request.federatedUserId ?? [] {
                    guard let providerId = federated.providerId else { throw AuthError("MISSING_PROVIDER_ID") }
                    guard let rawId = federated.rawId else { throw AuthError("MISSING_RAW_ID") }
                    add(try await tx.user(scope, providerId: providerId, rawId: rawId))
                }
                return found
            }
            guard let idToken = request.idToken else { throw AuthError.missingIdToken }
            let claims = try self.tokens.decodeIdToken(idToken)
            add(try await Emulator.userForIdToken(tx, claims, scope: scope))
            return found
        }
        var answer = SortedJSONObject(capacity: 1024)
        answer.member("kind", .string("identitytoolkit#GetAccountInfoResponse"))
        if !users.isEmpty { answer.member("users", elements: users.map { $0.wireData(forDownload: false) }) }
        return answer.text()
    }
}
