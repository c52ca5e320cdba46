import Foundation

/// `POST /securetoken.googleapis.com/v1/token` body (JSON or form, snake or camel case).
public struct SecureTokenRequest: Decodable, Sendable {
    public var grantType: String?
    public var refreshToken: String?
    public var code: String?
}

extension Emulator {
    /// Exchanges a refresh token for fresh tokens; answers in snake_case as securetoken does.
    public func refresh(_ request: SecureTokenRequest, defaultProjectId: String) async throws -> JSONValue {
        guard let grantType = request.grantType, !grantType.isEmpty else { throw AuthError("MISSING_GRANT_TYPE") }
        guard grantType == "refresh_token" else { throw AuthError("INVALID_GRANT_TYPE") }
        guard let token = request.refreshToken, !token.isEmpty else { throw AuthError.missingRefreshToken }
        let refresh = try tokens.openRefreshToken(token)
        let scope = refresh.scope
        let user: UserRecord = try await store.sessionWrite { tx in
            guard var user = try await tx.user(scope, localId: refresh.localId) else {
                throw AuthError.invalidRefreshToken
            }
            if user.isDisabled { throw AuthError.userDisabled }
            if let validSince = user.validSinceSeconds, let issued = refresh.issuedAt, issued < validSince {
                throw AuthError.tokenExpired
            }
            // A session verified with a factor that was since withdrawn is over.
            if let factor = refresh.secondFactor, !user.hasEnrollment(factor.identifier) {
                throw AuthError.tokenExpired
            }
            user.lastRefreshAt = self.clock.now().rfc3339Millis
            try await tx.saveSessionTimes(scope, user)
            return user
        }
        var grant = SessionGrant(
            user: user, scope: scope, provider: refresh.provider, secondFactor: refresh.secondFactor)
        grant.extraClaims = refresh.extraClaims
        // The session goes on: its auth_time is the sign-in's (older tokens: the last sign-in).
        grant.authTime = refresh.authTime ?? user.lastLoginAt.flatMap { Int64($0) }.map { $0 / 1000 }
        let tokens = try await issueTokens(grant)
        return .object([
            "id_token": tokens["idToken"]!, "access_token": tokens["idToken"]!, "expires_in": tokens["expiresIn"]!,
            "refresh_token": tokens["refreshToken"]!, "token_type": "Bearer", "user_id": .string(user.localId),
            "project_id": .string(ProjectsInfo.projectNumber),
        ])
    }

    /// `projects/{p}:createSessionCookie`.
    public func createSessionCookie(idToken: String?, validDuration: String?, caller: Caller) async throws -> JSONValue
    {
        try caller.requireAdmin()
        guard let idToken, !idToken.isEmpty else { throw AuthError.missingIdToken }
        let duration = Int64(validDuration ?? "") ?? 1_209_600
        guard (300...1_209_600).contains(duration) else { throw AuthError("INVALID_DURATION") }
        let claims = try tokens.decodeIdToken(idToken)
        let scope = caller.scope
        _ = try await store.read { tx in try await Emulator.userForIdToken(tx, claims, scope: scope) }
        let cookie = try await tokens.sessionCookie(from: idToken, projectId: scope.projectId, validDuration: duration)
        return .object(["sessionCookie": .string(cookie)])
    }
}

/// `GET v1/projects` (v3 `getProjectConfig`).
public enum ProjectsInfo {
    /// firebase-tools always answers this fake project number.
    public static let projectNumber = "12345"
    public static var response: JSONValue {
        .object(["projectId": .string(projectNumber), "authorizedDomains": .array(["localhost"])])
    }

    /// `GET v1/projects` (v3 `getProjectConfig`): a project's, never a tenant's.
    public static func response(caller: Caller) throws -> JSONValue {
        if caller.scope.tenantId != nil { throw AuthError.unsupportedTenantOperation }
        return response
    }
}
