import Foundation

/// A passkey on an account, as lookups and exports show it.
public struct PasskeyInfo: Codable, Sendable, Equatable {
    public var credentialId: String
    public var name: String?

    public init(credentialId: String, name: String?) {
        self.credentialId = credentialId
        self.name = name
    }

    var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["credentialId": .string(credentialId)]
        object["name"] = name.map(JSONValue.string)
        return .object(object)
    }
}

/// `v2/accounts/passkeyEnrollment:start` and `:finalize`.
public struct PasskeyEnrollmentRequest: Decodable, Sendable {
    public var idToken: String?
    public var authenticatorRegistrationResponse: JSONValue?
    public var name: String?
    public var displayName: String?
}

/// `v2/accounts/passkeySignIn:start` and `:finalize`.
public struct PasskeySignInRequest: Decodable, Sendable {
    public var authenticatorAuthenticationResponse: JSONValue?
}

/// Passkeys (WebAuthn) as firebase-tools mocks them: the options a browser needs to create or use
/// a credential, then enrolment and sign-in by the credential `id` the authenticator answers.
/// Attestations and assertions are not verified and challenges are not kept.
extension Emulator {
    public func startPasskeyEnrollment(_ request: PasskeyEnrollmentRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        guard let idToken = request.idToken, !idToken.isEmpty else { throw AuthError.missingIdToken }
        let user = try await store.read { tx in
            try await self.enabledSettings(tx, scope)
            return try await Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
        }
        return .object([
            "credentialCreationOptions": .object([
                "rp": .object(["name": "localhost", "id": "localhost"]),
                "user": .object([
                    "id": .string(Data(user.localId.utf8).base64EncodedString()),
                    "name": .string(user.email.flatMap { $0.isEmpty ? nil : $0 } ?? "user@example.com"),
                    "displayName": .string(user.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? "User"),
                ]),
                "challenge": .string(challenge()),
                "pubKeyCredParams": .array([
                    .object(["type": "public-key", "alg": -7]), .object(["type": "public-key", "alg": -257]),
                ]),
                "timeout": 60000,
                "attestation": "none",
            ])
        ])
    }

    public func finalizePasskeyEnrollment(_ request: PasskeyEnrollmentRequest, caller: Caller) async throws
        -> JSONValue
    {
        let scope = caller.scope
        guard let idToken = request.idToken, !idToken.isEmpty else { throw AuthError.missingIdToken }
        guard let response = request.authenticatorRegistrationResponse, response.isTruthy else {
            throw AuthError.missingAuthenticatorResponse
        }
        let user: UserRecord = try await store.write { tx in
            try await self.enabledSettings(tx, scope)
            var user = try await Emulator.userForIdToken(tx, try self.tokens.decodeIdToken(idToken), scope: scope)
            guard let credentialId = response["id"]?.stringValue, !credentialId.isEmpty else {
                throw AuthError("INVALID_CREDENTIAL_ID")
            }
            if try await tx.user(scope, passkeyCredentialId: credentialId) != nil {
                throw AuthError("CREDENTIAL_ALREADY_IN_USE")
            }
            let name = [request.name, request.displayName].compactMap { $0 }.first { !$0.isEmpty } ?? "Unnamed Passkey"
            user.passkeyInfo = (user.passkeyInfo ?? []) + [PasskeyInfo(credentialId: credentialId, name: name)]
            try await tx.save(scope, user)
            return user
        }
        var reply = try await issueTokens(SessionGrant(user: user, scope: scope, provider: "passkey"))
        reply["localId"] = .string(user.localId)
        return .object(reply)
    }

    public func startPasskeySignIn(caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        try await store.read { tx -> Void in try await self.enabledSettings(tx, scope) }
        return .object([
            "credentialRequestOptions": .object([
                "challenge": .string(challenge()), "rpId": "localhost", "userVerification": "required",
            ])
        ])
    }

    public func finalizePasskeySignIn(_ request: PasskeySignInRequest, caller: Caller) async throws -> JSONValue {
        let scope = caller.scope
        guard let response = request.authenticatorAuthenticationResponse, response.isTruthy else {
            throw AuthError.missingAuthenticatorResponse
        }
        guard let credentialId = response["id"]?.stringValue, !credentialId.isEmpty else {
            throw AuthError("INVALID_CREDENTIAL_ID")
        }
        let user: UserRecord = try await store.sessionWrite { tx in
            try await self.enabledSettings(tx, scope)
            guard var user = try await tx.user(scope, passkeyCredentialId: credentialId) else {
                throw AuthError("PASSKEY_CREDENTIAL_NOT_FOUND")
            }
            if user.isDisabled { throw AuthError.userDisabled }
            try await self.recordSignIn(tx, scope, &user)
            return user
        }
        var reply = try await issueTokens(SessionGrant(user: user, scope: scope, provider: "passkey"))
        reply["localId"] = .string(user.localId)
        return .object(reply)
    }

    /// 32 random bytes, base64 (a fresh WebAuthn challenge; never checked).
    private func challenge() -> String {
        Data(random.bytes(32)).base64EncodedString()
    }
}

extension AuthError {
    public static let missingAuthenticatorResponse = AuthError("MISSING_AUTHENTICATOR_RESPONSE")
}

extension JSONValue {
    /// JavaScript truthiness, which firebase-tools' checks use: null, false, 0, "" are false;
    /// objects and arrays (even empty) are true.
    var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let value): value
        case .number(let value): value != 0 && !value.isNaN
        case .string(let value): !value.isEmpty
        case .array, .object: true
        }
    }
}
