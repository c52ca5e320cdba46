import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of a running authemu daemon for test code (XCUITest targets, integration suites): SMS
/// codes from the outbox, TOTP codes, email action links, APNs pushes, settings, users and the
/// movable clock. Foundation only, so an iOS or macOS test target can link it.
public struct AuthEmulator: Sendable {
    /// `host:port` of the daemon.
    public let host: String
    public let projectId: String
    public let tenantId: String?
    /// The admin credential (`Bearer owner` unless the daemon's `admin_token` says otherwise).
    public let adminToken: String

    /// - Parameters:
    ///   - host: `host:port`; defaults to `FIREBASE_AUTH_EMULATOR_HOST`, else `127.0.0.1:9099`.
    ///   - projectId: The Firebase project the app uses.
    ///   - tenantId: A tenant of the project, when the app signs in to one.
    ///   - adminToken: The daemon's admin credential (its `admin_token`; `owner` by default).
    public init(
        host: String? = nil, projectId: String = "demo-project", tenantId: String? = nil, adminToken: String = "owner"
    ) {
        let environment = ProcessInfo.processInfo.environment["FIREBASE_AUTH_EMULATOR_HOST"]
        self.host = host ?? environment.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:9099"
        self.projectId = projectId
        self.tenantId = tenantId
        self.adminToken = adminToken
    }

    // MARK: SMS

    /// The newest pending SMS code (to `phoneNumber`, for `purpose` such as `MFA_SIGN_IN`),
    /// waiting up to `timeout` seconds for one to be sent.
    public func smsCode(to phoneNumber: String? = nil, purpose: String? = nil, timeout: TimeInterval = 10)
        async throws -> String
    {
        try await latestSms(to: phoneNumber, purpose: purpose, timeout: timeout).code
    }

    /// The newest pending SMS (its code, number, purpose and session), waiting as `smsCode` does.
    public func latestSms(to phoneNumber: String? = nil, purpose: String? = nil, timeout: TimeInterval = 10)
        async throws -> SmsMessage
    {
        let messages = try await smsMessages(
            phoneNumber: phoneNumber, purpose: purpose, status: "PENDING", wait: timeout)
        guard let message = messages.last else {
            throw AuthEmulatorError(
                status: 0, code: "NO_SMS_CODE",
                message: "no pending SMS code\(phoneNumber.map { " for \($0)" } ?? "") within \(timeout) s")
        }
        return message
    }

    /// The outbox, oldest first, filtered; with `wait`, a long-poll until one matches.
    public func smsMessages(
        phoneNumber: String? = nil, purpose: String? = nil, status: String? = nil, wait: TimeInterval = 0
    )
        async throws -> [SmsMessage]
    {
        var query: [String: String] = [:]
        query["phoneNumber"] = phoneNumber
        query["purpose"] = purpose
        query["status"] = status
        if wait > 0 { query["wait"] = String(min(wait, 30)) }
        let answer: SmsOutbox = try await get("\(emulatorScope)/smsMessages", query: query, timeout: wait + 10)
        return answer.smsMessages
    }

    public func clearOutbox() async throws {
        try await send("DELETE", "\(emulatorScope)/smsMessages")
    }

    // MARK: TOTP

    /// The RFC 6238 code of a base32 secret at `date` (6 digits, 30 s), computed here.
    public static func totpCode(secret: String, at date: Date = Date()) throws -> String {
        guard let key = TOTP.base32Decode(secret), !key.isEmpty else {
            throw AuthEmulatorError(status: 0, code: "INVALID_SECRET", message: "not base32: \(secret)")
        }
        return TOTP.code(secret: key, at: date)
    }

    /// The same, for a secret the test holds (`sharedSecretKey` of `mfaEnrollment:start`).
    public func totpCode(secret: String, at date: Date = Date()) throws -> String {
        try Self.totpCode(secret: secret, at: date)
    }

    /// The current code of an enrolled TOTP factor, asked of the daemon (at its clock, which tests may move).
    public func totpCode(localId: String, enrollmentId: String? = nil) async throws -> String {
        var query = ["localId": localId]
        query["mfaEnrollmentId"] = enrollmentId
        let answer: TotpAnswer = try await get("\(emulatorScope)/totpCodes", query: query)
        return answer.code
    }

    // MARK: email links and APNs

    /// The newest email action link for `email` (of `mode`: `resetPassword`, `verifyEmail`,
    /// `signIn`, …), waiting up to `timeout` seconds for one.
    public func emailActionLink(for email: String, mode: String? = nil, timeout: TimeInterval = 10) async throws -> URL
    {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let match = try await emailActionLinks(for: email).last { code in
                mode.map { code.oobLink.contains("mode=\($0)&") } ?? true
            }
            if let match, let url = URL(string: match.oobLink) { return url }
            try await Task.sleep(nanoseconds: 100_000_000)
        } while Date() < deadline
        throw AuthEmulatorError(
            status: 0, code: "NO_EMAIL_LINK", message: "no email link for \(email) within \(timeout) s")
    }

    /// The next APNs push (the newest if one is there), waiting up to `timeout` seconds.
    public func apnsPush(timeout: TimeInterval = 10) async throws -> ApnsPush {
        let answer: ApnsPushes = try await get(
            "\(emulatorScope)/apnsPushes", query: ["wait": String(min(timeout, 30))], timeout: timeout + 10)
        guard let push = answer.apnsPushes.last else {
            throw AuthEmulatorError(status: 0, code: "NO_APNS_PUSH", message: "no APNs push within \(timeout) s")
        }
        return push
    }

    // MARK: settings

    public func setTestPhoneNumbers(_ numbers: [String: String]) async throws {
        let map = JSONBody.object(numbers.mapValues { .string($0) })
        if tenantId == nil {
            try await patchConfig(
                ["signIn": .object(["phoneNumber": .object(["testPhoneNumbers": map])])],
                mask: "signIn.phoneNumber.testPhoneNumbers")
        } else {
            try await patchConfig(["testPhoneNumbers": map], mask: "testPhoneNumbers")
        }
    }

    /// Second factors: SMS, TOTP (with its window, `adjacentIntervals` 0-10), both or neither.
    public func setMFA(sms: Bool = true, totp: Bool = false, adjacentIntervals: Int = 5) async throws {
        let mfa = JSONBody.object([
            "state": .string(sms || totp ? "ENABLED" : "DISABLED"),
            "enabledProviders": .array(sms ? [.string("PHONE_SMS")] : []),
            "providerConfigs": .array([
                .object([
                    "state": .string(totp ? "ENABLED" : "DISABLED"),
                    "totpProviderConfig": .object(["adjacentIntervals": .number(Double(adjacentIntervals))]),
                ])
            ]),
        ])
        let key = tenantId == nil ? "mfa" : "mfaConfig"
        try await patchConfig([key: mfa], mask: key)
    }

    /// `enforce`: SMS requests must prove the app (APNs, reCAPTCHA, Play Integrity); `off`: they need not.
    public func setAppVerification(_ mode: AppVerification) async throws {
        try await patchConfig(
            ["emulatorSettings": .object(["appVerification": .string(mode.rawValue)])],
            mask: "emulatorSettings.appVerification")
    }

    /// A token the SMS endpoints accept (or, with `valid: false`, refuse) under `enforce`.
    public func mintAppCredential(_ kind: AppCredential, valid: Bool = true) async throws -> String {
        let answer: Minted = try await post(
            "\(emulatorScope)/appCredentials", .object(["kind": .string(kind.rawValue), "valid": .bool(valid)]))
        return answer.token
    }

    // MARK: users

    /// Creates a user as the Admin SDKs' createUser does; returns its uid.
    @discardableResult
    public func createUser(
        email: String? = nil, password: String? = nil, phoneNumber: String? = nil, displayName: String? = nil,
        emailVerified: Bool = false, uid: String? = nil
    ) async throws -> String {
        var body: [String: JSONBody] = ["emailVerified": .bool(emailVerified)]
        body["email"] = email.map { .string($0) }
        body["password"] = password.map { .string($0) }
        body["phoneNumber"] = phoneNumber.map { .string($0) }
        body["displayName"] = displayName.map { .string($0) }
        body["localId"] = uid.map { .string($0) }
        let created: Created = try await post(
            "/identitytoolkit.googleapis.com/v1/\(adminScope)/accounts", .object(body), admin: true)
        return created.localId
    }

    /// The scope's accounts and everything sent for them: email action codes, the SMS and APNs
    /// outboxes, armed app-verification faults.
    public func deleteAllUsers() async throws {
        try await send("DELETE", "\(emulatorScope)/accounts")
    }

    /// The scope's email action codes only.
    public func clearEmailActionCodes() async throws {
        try await send("DELETE", "\(emulatorScope)/oobCodes")
    }

    /// Loads a known state into the running daemon: an export's `accounts.json` (firebase-tools'
    /// or authemu's, `{"users": […]}`) into this scope and, on the project, optionally its
    /// `config.json`. Users with the same uid are replaced. Returns how many were stored; if any
    /// was refused, throws `IMPORT_REFUSED` naming the first (the others are stored).
    @discardableResult
    public func importState(accountsJSON: Data, configJSON: Data? = nil) async throws -> Int {
        var body: [String: Any] = [:]
        guard let accounts = try JSONSerialization.jsonObject(with: accountsJSON) as? [String: Any] else {
            throw AuthEmulatorError(status: 0, code: "INVALID_ACCOUNTS", message: "accounts.json is not a JSON object")
        }
        body["users"] = accounts["users"] ?? []
        if let configJSON { body["config"] = try JSONSerialization.jsonObject(with: configJSON) }
        let data = try await exchange(
            "POST", "\(emulatorScope):import", admin: true, timeout: 120,
            rawBody: try JSONSerialization.data(withJSONObject: body))
        let answer = try JSONDecoder().decode(Imported.self, from: data)
        if let first = answer.error?.first {
            throw AuthEmulatorError(
                status: 0, code: "IMPORT_REFUSED",
                message: "\(answer.error!.count) account(s) refused, first #\(first.index): \(first.message)")
        }
        return answer.importedCount
    }

    /// `deleteAllUsers()`, and the clock back to the real time; settings stay.
    public func reset() async throws {
        try await deleteAllUsers()
        try await resetClock()
    }

    // MARK: clock

    /// Moves the daemon's clock (tokens, codes and links expire on it); returns its new time.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval) async throws -> Date {
        try await clock("clock:advance", .object(["seconds": .number(seconds)]))
    }

    @discardableResult
    public func setClock(to date: Date) async throws -> Date {
        try await clock("clock:set", .object(["time": .string(Self.rfc3339(date))]))
    }

    /// Stops the daemon's clock at `date` (default: where it is). Every time it reads is then that
    /// instant, until `advanceClock`/`setClock` move it or `resumeClock` lets it run.
    @discardableResult
    public func freezeClock(at date: Date? = nil) async throws -> Date {
        var body: [String: JSONBody] = ["freeze": .bool(true)]
        if let date { body["time"] = .string(Self.rfc3339(date)) }
        return try await clock("clock:set", .object(body))
    }

    /// Lets a frozen clock run again from the instant it stands at.
    @discardableResult
    public func resumeClock() async throws -> Date {
        try await clock("clock:resume", .object([:]))
    }

    @discardableResult
    public func resetClock() async throws -> Date {
        try await clock("clock:reset", .object([:]))
    }

    /// The daemon's time.
    public func clockNow() async throws -> Date {
        let answer: ClockAnswer = try await get("/emulator/v1/clock", admin: true)
        return try Self.date(answer.now)
    }
}
