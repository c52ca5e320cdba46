import Foundation

extension Emulator {
    /// Legacy v3 `signOutUser` (`{instanceId, localId}` → `{localId}`), which an app instance sent
    /// to end a user's session on it. Sessions here are the tokens the app holds, so nothing is
    /// revoked (production revokes only that instance's); the account must exist.
    public func signOutUser(localId: String?, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        guard let localId, !localId.isEmpty else { throw AuthError.missingLocalId }
        let user = try await store.read { tx in
            try await self.enabledSettings(tx, scope, create: false)
            return try await tx.user(scope, localId: localId)
        }
        guard let user else { throw AuthError.userNotFound }
        return .object(["localId": .string(user.localId)])
    }
}
