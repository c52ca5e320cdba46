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
    /// Random, so that two credentials of one user and second are two (each has its own count
    /// of wrong codes); nil in credentials made before it existed.
    public var nonce: String?

    enum CodingKeys: String, CodingKey {
        case marker = "_AuthEmulatorMfaPendingCredential"
        case localId, signInProvider, projectId, tenantId, expiresAt, nonce
    }

    /// Its members but the seal, in sorted order (the JSON `JSONEncoder` with sorted keys gives,
    /// built directly: `JSONEncoder`/`JSONDecoder` cost ~80,000 instructions each time).
    func content() -> SortedJSONObject {
        var object = SortedJSONObject()
        object.member(CodingKeys.marker.rawValue, .string(marker))
        object.member("expiresAt", .number(Double(expiresAt)))
        object.member("localId", .string(localId))
        object.member("nonce", nonce.map(JSONValue.string))
        object.member("projectId", .string(projectId))
        object.member("signInProvider", .string(signInProvider))
        object.member("tenantId", tenantId.map(JSONValue.string))
        return object
    }

    /// Base64 of its JSON, the last member `seal` (`TokenSeal`) over the text of the others.
    public func encoded(sealedBy seal: TokenSeal) -> String {
        var object = content()
        object.member("seal", .string(seal.seal(object.closedBytes)))
        return object.base64()
    }

    /// Reads a credential made by `encoded(sealedBy:)` with this seal; anything else, and one whose
    /// members were changed, is nil.
    public static func open(_ string: String, seal: TokenSeal) -> MfaPendingCredential? {
        guard let data = Data(base64Encoded: Base64.padded(string)), let json = try? JSONValue.parse(data),
            json[CodingKeys.marker.rawValue]?.stringValue == "DO NOT MODIFY",
            let localId = json["localId"]?.stringValue, let signInProvider = json["signInProvider"]?.stringValue,
            let projectId = json["projectId"]?.stringValue,
            let expiresAt = json["expiresAt"]?.doubleValue?.truncatedInt64,
            let sealText = json["seal"]?.stringValue
        else { return nil }
        var tenantId: String?
        if let tenant = json["tenantId"], !tenant.isNull {
            guard let text = tenant.stringValue else { return nil }
            tenantId = text
        }
        var nonce: String?
        if let value = json["nonce"], !value.isNull {
            guard let text = value.stringValue else { return nil }
            nonce = text
        }
        let credential = MfaPendingCredential(
            localId: localId, signInProvider: signInProvider, projectId: projectId, tenantId: tenantId,
            expiresAt: expiresAt, nonce: nonce)
        guard seal.isValid(sealText, for: credential.content().closedBytes) else { return nil }
        return credential
    }
}

extension ScopeSettings {
    static func isOn(_ state: String?) -> Bool { state == "ENABLED" || state == "MANDATORY" }

    /// SMS second factors: state ENABLED or MANDATORY and `PHONE_SMS` among the providers.
    public var smsMfaEnabled: Bool {
        Self.isOn(mfa["state"]?.stringValue)
            && (mfa["enabledProviders"]?.arrayValue ?? []).contains(.string("PHONE_SMS"))
    }

    /// TOTP second factors: a `providerConfigs` entry with a `totpProviderConfig` that is on.
    public var totpProviderConfig: JSONValue? {
        (mfa["providerConfigs"]?.arrayValue ?? []).first {
            $0["totpProviderConfig"] != nil && Self.isOn($0["state"]?.stringValue)
        }
    }

    /// Accepted TOTP steps either side of the current one (0–10, default 5).
    public var totpAdjacentIntervals: Int {
        totpProviderConfig?.value(at: "totpProviderConfig.adjacentIntervals")?.doubleValue?.truncatedInt ?? 5
    }

    /// Whether users with enrolled factors must complete a second factor at sign-in: MFA state
    /// ENABLED or MANDATORY, whichever providers are listed (as firebase-tools), or TOTP on.
    public var mfaEnabled: Bool { Self.isOn(mfa["state"]?.stringValue) || totpProviderConfig != nil }
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
    /// Finishes a first-factor sign-in: tokens for users without second factors, a pending
    /// credential and hints for those with (and no token fields at all then).
    func completeFirstFactor(
        _ grant: SessionGrant, settings: ScopeSettings, response: [String: JSONValue]
    ) async throws -> JSONValue {
        var response = response
        response.reserveCapacity(response.count + 3)
        if settings.mfaEnabled, !grant.user.enrollments.isEmpty {
            let pending = MfaPendingCredential(
                localId: grant.user.localId, signInProvider: grant.provider, projectId: grant.scope.projectId,
                tenantId: grant.scope.tenantId,
                expiresAt: clock.now().epochSeconds + Int64(settings.emulator.mfaPendingCredentialLifetimeSeconds),
                nonce: random.base64URL(16))
            response["mfaPendingCredential"] = .string(pending.encoded(sealedBy: tokens.seal))
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

    /// Stamps a sign-in on a user that is otherwise unchanged, and stores just that.
    func recordSignIn(_ tx: any StoreTransaction, _ scope: Scope, _ user: inout UserRecord) async throws {
        markSignedIn(&user)
        try await tx.saveSessionTimes(scope, user)
    }
}
