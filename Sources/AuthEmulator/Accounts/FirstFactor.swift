import Foundation

/// The bound, expiring credential a first-factor sign-in of an MFA user returns instead of
/// tokens. Opaque to clients; base64 JSON like firebase-tools' (its tests decode it).
public struct MfaPendingCredential: Codable, Sendable {
    public var marker = "DO NOT MODIFY"
    public var localId: String
    public var signInProvider: String
    public var projectId: String
    public var tenantId: String?
    public var expiresAt: Int64

    enum CodingKeys: String, CodingKey {
        case marker = "_AuthEmulatorMfaPendingCredential"
        case localId, signInProvider, projectId, tenantId, expiresAt
    }

    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ((try? encoder.encode(self)) ?? Data()).base64EncodedString()
    }

    public static func decode(_ string: String) -> MfaPendingCredential? {
        guard let data = Data(base64Encoded: Base64.padded(string)),
            let credential = try? JSONDecoder().decode(MfaPendingCredential.self, from: data),
            credential.marker == "DO NOT MODIFY"
        else { return nil }
        return credential
    }
}

extension ScopeSettings {
    /// Whether second factors are asked for at sign-in (state ENABLED or MANDATORY).
    public var mfaEnabled: Bool {
        let state = mfa["state"]?.stringValue
        return state == "ENABLED" || state == "MANDATORY"
    }
}

extension MfaEnrollment {
    /// The hint shown to a user who must pick a second factor: masked phone, or `totpInfo: {}`.
    public var hint: JSONValue {
        var hint: [String: JSONValue] = ["mfaEnrollmentId": .string(mfaEnrollmentId)]
        if let name = displayName { hint["displayName"] = .string(name) }
        if let enrolledAt { hint["enrolledAt"] = .string(enrolledAt) }
        if let phone = phoneInfo { hint["phoneInfo"] = .string(Self.mask(phone)) }
        if totpInfo != nil { hint["totpInfo"] = .object([:]) }
        return .object(hint)
    }

    /// Every digit but the last four replaced by `*`; other characters kept (`+*******0100`).
    public static func mask(_ phone: String) -> String {
        let digitCount = phone.filter(\.isNumber).count
        var seen = 0
        return String(
            phone.map { character in
                guard character.isNumber else { return character }
                seen += 1
                return seen <= digitCount - 4 ? "*" : character
            })
    }
}

extension Emulator {
    /// Pending-credential lifetime (seconds).
    static let mfaPendingLifetime: Int64 = 600

    /// Finishes a first-factor sign-in: tokens for users without second factors, a pending
    /// credential and hints for those with (and no token fields at all then).
    func completeFirstFactor(
        _ grant: SessionGrant, settings: ScopeSettings, response: [String: JSONValue]
    ) async throws -> JSONValue {
        var response = response
        if settings.mfaEnabled, !grant.user.enrollments.isEmpty {
            let pending = MfaPendingCredential(
                localId: grant.user.localId, signInProvider: grant.provider, projectId: grant.scope.projectId,
                tenantId: grant.scope.tenantId, expiresAt: clock.now().epochSeconds + Self.mfaPendingLifetime)
            response["mfaPendingCredential"] = .string(pending.encoded())
            response["mfaInfo"] = .array(grant.user.enrollments.map(\.hint))
            return .object(response)
        }
        for (key, value) in try await issueTokens(grant) { response[key] = value }
        return .object(response)
    }

    /// Stamps a successful sign-in on the user.
    func markSignedIn(_ user: inout UserRecord) {
        user.lastLoginAt = nowMillisString
        user.lastRefreshAt = clock.now().rfc3339Millis
    }
}
