import Foundation

/// Second factors added or removed by an administrator (the inspector, test helpers), through
/// `accounts:update` with `mfa.enrollments` as the Admin SDKs send it: the same validation and
/// limits, existing factors and their TOTP secrets kept.
extension Emulator {
    /// Adds an SMS factor for `phoneNumber`, or with none a TOTP factor with a new secret; returns
    /// the new enrollment, with its secret.
    public func addSecondFactor(_ scope: Scope, localId: String, phoneNumber: String?, displayName: String?)
        async throws -> MfaEnrollment
    {
        guard let user = try await inspectorUser(scope, localId: localId) else { throw AuthError.userNotFound }
        var inputs = user.enrollments.map(Self.enrollmentInput)
        var added: JSONValue = .object([:])
        if let phoneNumber {
            added = .object(["phoneInfo": .string(phoneNumber)])
        } else {
            added = .object(["totpInfo": .object([:])])
        }
        if let displayName, !displayName.isEmpty { added = added.setting(["displayName"], to: .string(displayName)) }
        inputs.append(added)
        _ = try await updateAccount(
            try LenientDecoder.decode(
                UpdateAccountRequest.self,
                from: .object(["localId": .string(localId), "mfa": .object(["enrollments": .array(inputs)])])),
            caller: Caller(scope: scope, isAdmin: true))
        let before = Set(user.enrollments.map(\.mfaEnrollmentId))
        guard let updated = try await inspectorUser(scope, localId: localId),
            let enrollment = updated.enrollments.first(where: { !before.contains($0.mfaEnrollmentId) })
        else { throw AuthError("SECOND_FACTOR_EXISTS") }
        return enrollment
    }

    public func removeSecondFactor(_ scope: Scope, localId: String, enrollmentId: String) async throws {
        guard let user = try await inspectorUser(scope, localId: localId) else { throw AuthError.userNotFound }
        guard user.hasEnrollment(enrollmentId) else { throw AuthError.mfaEnrollmentNotFound }
        let inputs = user.enrollments.filter { $0.mfaEnrollmentId != enrollmentId }.map(Self.enrollmentInput)
        _ = try await updateAccount(
            try LenientDecoder.decode(
                UpdateAccountRequest.self,
                from: .object(["localId": .string(localId), "mfa": .object(["enrollments": .array(inputs)])])),
            caller: Caller(scope: scope, isAdmin: true))
    }

    /// An existing factor as `mfa.enrollments` names it (its TOTP secret stays with the record).
    static func enrollmentInput(_ enrollment: MfaEnrollment) -> JSONValue {
        var input: [String: JSONValue] = ["mfaEnrollmentId": .string(enrollment.mfaEnrollmentId)]
        if let phone = enrollment.phoneInfo { input["phoneInfo"] = .string(phone) }
        if enrollment.totpInfo != nil { input["totpInfo"] = .object([:]) }
        if let name = enrollment.displayName { input["displayName"] = .string(name) }
        if let enrolledAt = enrollment.enrolledAt { input["enrolledAt"] = .string(enrolledAt) }
        return .object(input)
    }

    /// The `otpauth://` URI authenticator apps take (as the SDKs' `generateQrCodeUrl` writes it):
    /// the project as issuer, the user's email (else uid) as account.
    public static func totpURI(secret: String, account: String, issuer: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":/?#")
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        let label = "\(encoded(issuer)):\(encoded(account))"
        let encodedIssuer =
            issuer.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "="])) ?? issuer
        return
            "otpauth://totp/\(label)?secret=\(secret)&issuer=\(encodedIssuer)&algorithm=SHA1&digits=\(Totp.digits)&period=\(Totp.period)"
    }
}
