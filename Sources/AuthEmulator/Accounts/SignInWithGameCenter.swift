import Foundation

/// `accounts:signInWithGameCenter` (v3 `signInWithGameCenter`), with the fields the iOS SDK sends
/// (`SignInWithGameCenterRequest`): the player's ids, the identity-verification signature Game
/// Kit made (`publicKeyUrl`, `signature`, `salt`, `timestamp`), `displayName`, and `idToken` to link.
public struct SignInWithGameCenterRequest: Decodable, Sendable {
    public var playerId: String?
    public var teamPlayerId: String?
    public var gamePlayerId: String?
    public var publicKeyUrl: String?
    public var signature: String?
    public var salt: String?
    public var timestamp: Int64?
    public var displayName: String?
    public var idToken: String?
}

extension Emulator {
    /// The provider id production gives Game Center accounts (the iOS SDK's `GameCenterAuthProvider.id`).
    public static let gameCenterProviderId = "gc.apple.com"

    /// Apple's signature cannot be checked offline: it is accepted when its parts are present, as
    /// the app-verification stubs accept their credentials, unless a test armed `GAME_CENTER`
    /// faults (`appVerification:failNext`, for the scope or for one player), which refuse the next
    /// sign-ins as a bad signature; a player's own faults are used before the scope's.
    /// The account is the one of the team player id (else the player id), the ID token's user
    /// when linking, or a new one.
    public func signInWithGameCenter(_ request: SignInWithGameCenterRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        let rawId = try Self.gameCenterPlayer(request)
        let players = [request.teamPlayerId, request.gamePlayerId, request.playerId].compactMap { $0 }.filter {
            !$0.isEmpty
        }
        let refused = try await store.write { tx in
            for player in players {
                if try await tx.takeFault(scope, key: InjectedFault.gameCenter.key(subject: player)) { return true }
            }
            return try await tx.takeFault(scope, .gameCenter)
        }
        if refused {
            throw AuthError("INVALID_IDP_RESPONSE", "((Game Center identity verification signature is invalid))")
        }
        let nowMillis = nowMillisString
        let (user, settings, response, claims) = try await writeWithBlockingFunctions(scope) { tx, hooks, random in
            let settings = try await self.enabledSettings(tx, scope)
            let linked = try await tx.user(scope, providerId: Self.gameCenterProviderId, rawId: rawId)
            var user: UserRecord
            var isNew = false
            if let idToken = request.idToken {
                user = try await Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
                if let linked, linked.localId != user.localId { throw AuthError("FEDERATED_USER_ID_ALREADY_LINKED") }
            } else if let linked {
                user = linked
            } else {
                user = UserRecord(localId: random.alphanumeric(28))
                user.createdAt = nowMillis
                user.tenantId = scope.tenantId
                user.displayName = request.displayName
                isNew = true
            }
            user.upsertProvider(
                ProviderUserInfo(
                    providerId: Self.gameCenterProviderId, rawId: rawId, federatedId: rawId,
                    displayName: request.displayName))
            let context = BlockingSignInContext(signInMethod: Self.gameCenterProviderId, clientIP: caller.clientIP)
            let claims =
                isNew
                ? try hooks.beforeCreateAndSignIn(&user, settings: settings, scope: scope, context: context)
                : try hooks.beforeSignIn(&user, settings: settings, scope: scope, context: context)
            if !(settings.mfaEnabled && !user.enrollments.isEmpty) { self.markSignedIn(&user) }
            try await tx.save(scope, user)
            if isNew { self.recordCreated(tx, user, scope: scope) }
            var response: [String: JSONValue] = ["localId": .string(user.localId), "isNewUser": .bool(isNew)]
            response.setIfPresent("playerId", request.playerId.map(JSONValue.string))
            response.setIfPresent("teamPlayerId", request.teamPlayerId.map(JSONValue.string))
            response.setIfPresent("gamePlayerId", request.gamePlayerId.map(JSONValue.string))
            response.setIfPresent("displayName", (request.displayName ?? user.displayName).map(JSONValue.string))
            return (user, settings, response, claims)
        }
        if user.isDisabled, !(settings.mfaEnabled && !user.enrollments.isEmpty) { throw AuthError.userDisabled }
        var grant = SessionGrant(user: user, scope: scope, provider: Self.gameCenterProviderId)
        grant.extraClaims = claims
        return try await completeFirstFactor(grant, settings: settings, response: response)
    }

    /// The player the request names, once the signature's parts are there (production's codes for
    /// a malformed request are not public: `INVALID_IDP_RESPONSE`, the iOS SDK's invalidCredential).
    static func gameCenterPlayer(_ request: SignInWithGameCenterRequest) throws -> String {
        guard let player = [request.teamPlayerId, request.playerId].compactMap({ $0 }).first(where: { !$0.isEmpty })
        else { throw AuthError("INVALID_IDP_RESPONSE", "((playerId or teamPlayerId is required))") }
        for (name, value) in [
            ("publicKeyUrl", request.publicKeyUrl), ("signature", request.signature), ("salt", request.salt),
        ] where value?.isEmpty ?? true {
            throw AuthError("INVALID_IDP_RESPONSE", "((\(name) is required))")
        }
        guard let url = request.publicKeyUrl.flatMap(URL.init(string:)), url.scheme == "https",
            url.host?.hasSuffix(".apple.com") == true
        else { throw AuthError("INVALID_IDP_RESPONSE", "((publicKeyUrl must be an https URL at apple.com))") }
        guard let timestamp = request.timestamp, timestamp > 0 else {
            throw AuthError("INVALID_IDP_RESPONSE", "((timestamp is required))")
        }
        return player
    }
}
