import Foundation

/// Reading and removing accounts, email links and APNs pushes: what a test (or an agent through
/// `authemu mcp`) inspects after a flow.
extension AuthEmulator {
    /// One page of accounts, in uid order (`accounts:batchGet`).
    public func listUsers(maxResults: Int = 100, pageToken: String? = nil) async throws -> UserPage {
        var query = ["maxResults": String(maxResults)]
        query["nextPageToken"] = pageToken
        return try await get(
            "/identitytoolkit.googleapis.com/v1/\(adminScope)/accounts:batchGet", query: query, admin: true)
    }

    /// The account with this uid; `USER_NOT_FOUND` if there is none.
    public func user(uid: String) async throws -> UserRecord {
        try await lookup("localId", uid)
    }

    public func user(email: String) async throws -> UserRecord {
        try await lookup("email", email)
    }

    /// - Parameter phoneNumber: E.164, such as `+15555550100`.
    public func user(phoneNumber: String) async throws -> UserRecord {
        try await lookup("phoneNumber", phoneNumber)
    }

    /// Deletes one account; `USER_NOT_FOUND` if there is none.
    public func deleteUser(uid: String) async throws {
        try await send(
            "POST", "/identitytoolkit.googleapis.com/v1/\(adminScope)/accounts:delete",
            body: .object(["localId": .string(uid)]))
    }

    /// The email actions sent (verification, password reset, sign-in links, …), oldest first;
    /// with `email`, only those to that address.
    public func emailActionLinks(for email: String? = nil) async throws -> [EmailActionLink] {
        struct Listed: Decodable { let oobCodes: [EmailActionLink] }
        let listed: Listed = try await get("\(emulatorScope)/oobCodes")
        guard let email else { return listed.oobCodes }
        return listed.oobCodes.filter { $0.email == email.lowercased() }
    }

    /// The APNs outbox, oldest first, without waiting.
    public func apnsPushes() async throws -> [ApnsPush] {
        let answer: ApnsPushes = try await get("\(emulatorScope)/apnsPushes")
        return answer.apnsPushes
    }

    private func lookup(_ field: String, _ value: String) async throws -> UserRecord {
        struct Found: Decodable { let users: [UserRecord]? }
        let found: Found = try await post(
            "/identitytoolkit.googleapis.com/v1/\(adminScope)/accounts:lookup",
            .object([field: .array([.string(value)])]), admin: true)
        guard let user = found.users?.first else {
            throw AuthEmulatorError(status: 0, code: "USER_NOT_FOUND", message: "no user with \(field) \(value)")
        }
        return user
    }
}
