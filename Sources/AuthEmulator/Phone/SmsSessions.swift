import Foundation

/// The outcome of checking a code: an accepted session, or the error to answer after the
/// attempt has been recorded (wrong codes count towards the lock even though the call fails).
public enum CodeCheck: Sendable {
    case accepted(SmsMessage)
    /// The session cannot take a code (unknown, used, expired, locked).
    case rejected(AuthError)
    /// The code was compared and wrong: `INVALID_CODE`, or the lockout it just caused.
    case wrong(AuthError)
}

/// What a new SMS is for and where it goes.
struct SmsRequest {
    var scope: Scope
    var phoneNumber: String
    var purpose: SmsPurpose
    var settings: ScopeSettings
    var clientIP: String?
    var localId: String?
    var mfaEnrollmentId: String?
    var verificationPath = "none"
    /// The transaction's blocking-function answers, for beforeSendSms.
    var hooks: BlockingHooks
    /// The account the code is for, shown to beforeSendSms (nil: a sign-in of a new number).
    var user: UserRecord?

    /// `sms_type` of beforeSendSms.
    var smsType: String {
        switch purpose {
        case .mfaSignIn: "MULTI_FACTOR_SIGN_IN"
        case .mfaEnrollment: "MULTI_FACTOR_ENROLLMENT"
        default: "SIGN_IN_OR_SIGN_UP"
        }
    }
}

extension Emulator {
    /// Creates one SMS session and its outbox record: every SMS-sending flow goes through here.
    /// Test phone numbers get their fixed code and skip the region policy and quotas; newer codes supersede older
    /// pending ones for the same number and purpose when the project says so.
    func createSms(_ tx: any StoreTransaction, _ request: SmsRequest) async throws -> SmsMessage {
        let now = clock.now()
        let phone = request.settings.emulator
        let testCode = request.settings.testPhoneNumbers[request.phoneNumber]
        if testCode == nil {
            guard request.settings.smsRegions.allows(phoneNumber: request.phoneNumber) else {
                throw SmsRegionPolicy.refused
            }
            let hourAgo = now.addingTimeInterval(-3600)
            if phone.quotaPerNumberPerHour > 0,
                try await tx.countSms(phoneNumber: request.phoneNumber, since: hourAgo) >= phone.quotaPerNumberPerHour
            {
                throw AuthError("QUOTA_EXCEEDED", "Exceeded quota for verifying \(request.phoneNumber).")
            }
            if phone.quotaPerIPPerHour > 0, let ip = request.clientIP,
                try await tx.countSms(clientIP: ip, since: hourAgo) >= phone.quotaPerIPPerHour
            {
                throw AuthError("TOO_MANY_ATTEMPTS_TRY_LATER")
            }
            // A test number's code is not sent, so its function is not asked.
            var shown = request.user ?? UserRecord(localId: "")
            if request.user == nil { shown.phoneNumber = request.phoneNumber }
            var context = BlockingSignInContext(signInMethod: "phone", clientIP: request.clientIP)
            context.messageType = request.smsType
            try request.hooks.beforeSend(
                .beforeSendSms, user: shown, settings: request.settings, scope: request.scope, context: context)
        }
        if phone.supersedeOlderCodes {
            let older = try await tx.listSms(
                request.scope,
                SmsQuery(phoneNumber: request.phoneNumber, purpose: request.purpose, statuses: [.pending]))
            for var message in older {
                message.status = .superseded
                try await tx.updateSms(message)
            }
        }
        let code = testCode ?? random.digits(6)
        let message = SmsMessage(
            id: 0, projectId: request.scope.projectId, tenantId: request.scope.tenantId,
            phoneNumber: request.phoneNumber, code: code,
            text: "\(code) is your verification code for \(request.scope.projectId).", purpose: request.purpose,
            usedFor: nil, sessionInfo: random.base64URL(120), sentAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(phone.codeLifetimeSeconds)), status: .pending,
            testNumber: testCode != nil, attempts: 0,
            verificationPath: testCode != nil ? "test-number" : request.verificationPath,
            localId: request.localId, mfaEnrollmentId: request.mfaEnrollmentId, clientIP: request.clientIP)
        return try await tx.insertSms(message)
    }

    /// Logs a sent SMS with the firebase-tools wording (scrapers depend on it) and wakes readers.
    func announce(_ message: SmsMessage) async {
        let line =
            switch message.purpose {
            case .mfaEnrollment: "To enroll MFA with \(message.phoneNumber), use the code \(message.code)."
            case .mfaSignIn: "To sign in with MFA using \(message.phoneNumber), use the code \(message.code)."
            default: "To verify the phone number \(message.phoneNumber), use the code \(message.code)."
            }
        logger.info(
            "\(line)",
            metadata: [
                "event": "sms", "project": "\(message.projectId)", "tenant": "\(message.tenantId ?? "")",
                "phone": "\(message.phoneNumber)", "code": "\(message.code)", "purpose": "\(message.purpose.rawValue)",
                "sessionInfo": "\(message.sessionInfo)", "testNumber": "\(message.testNumber)",
            ])
        await outboxSignal.notify()
    }

    /// Checks `code` against the session `sessionInfo`, recording the attempt. A session of
    /// another scope or purpose is unknown here; expired, superseded and used sessions cannot be
    /// used again; too many wrong codes lock it.
    func checkCode(
        _ tx: any StoreTransaction, sessionInfo: String, code: String, scope: Scope, purposes: Set<SmsPurpose>,
        settings: ScopeSettings
    ) async throws -> CodeCheck {
        guard var message = try await tx.sms(sessionInfo: sessionInfo), message.scope == scope,
            purposes.contains(message.purpose)
        else { return .rejected(AuthError("INVALID_SESSION_INFO")) }
        switch message.status {
        case .used: return .rejected(AuthError("INVALID_SESSION_INFO"))
        case .expired, .superseded: return .rejected(AuthError("SESSION_EXPIRED"))
        case .locked: return .rejected(AuthError("TOO_MANY_ATTEMPTS_TRY_LATER"))
        case .pending: break
        }
        if clock.now() >= message.expiresAt {
            message.status = .expired
            try await tx.updateSms(message)
            return .rejected(AuthError("SESSION_EXPIRED"))
        }
        guard ConstantTime.equal(code, message.code) else {
            message.attempts += 1
            if message.attempts >= settings.emulator.maxAttempts {
                message.status = .locked
                try await tx.updateSms(message)
                return .wrong(AuthError("TOO_MANY_ATTEMPTS_TRY_LATER"))
            }
            try await tx.updateSms(message)
            return .wrong(AuthError("INVALID_CODE"))
        }
        message.status = .used
        try await tx.updateSms(message)
        return .accepted(message)
    }

    /// The outbox of a scope; with `wait` > 0 and nothing matching, waits up to that many seconds
    /// for a matching message to be sent.
    public func smsMessages(_ scope: Scope, _ query: SmsQuery, wait: Double) async throws -> [SmsMessage] {
        try await longPoll(outboxSignal, wait: wait) { tx in try await tx.listSms(scope, query) }
    }

    /// Runs `query` until it finds something or `wait` seconds (at most 30) have passed, waking
    /// when `signal` says something was written.
    func longPoll<T: Sendable>(
        _ signal: OutboxSignal, wait: Double, _ query: @escaping @Sendable (any StoreTransaction) async throws -> [T]
    ) async throws -> [T] {
        let deadline = Date().addingTimeInterval(min(max(wait, 0), 30))
        while true {
            let seen = await signal.version
            let found = try await store.read(query)
            let remaining = deadline.timeIntervalSinceNow
            if !found.isEmpty || remaining <= 0 || Task.isCancelled { return found }
            await signal.wait(seconds: remaining, since: seen)
        }
    }

    public func clearSmsMessages(_ scope: Scope) async throws {
        try await store.write { tx in try await tx.deleteAllSms(scope) }
    }

    /// The firebase-tools `verificationCodes` view: pending, unexpired codes in creation order.
    /// `GET …/verificationCodes`: the scope's pending, unexpired codes (firebase-tools' shape).
    public func verificationCodes(_ scope: Scope) async throws -> JSONListing {
        let now = clock.now()
        let entries = try await store.read { tx in
            try await self.codeListings.entries(scope, .verificationCodes, now: now, in: tx) {
                let pending = try await tx.pendingCodeEntries(scope, now: now)
                return (pending.entries, pending.earliestExpiry)
            }
        }
        return JSONListing("verificationCodes", entries)
    }

    /// `GET …/smsMessages`: the outbox entries matching `query`; with `wait` > 0 and none yet,
    /// waits up to that many seconds for one to be sent.
    public func smsMessageListing(_ scope: Scope, _ query: SmsQuery, wait: Double) async throws -> JSONListing {
        JSONListing(
            "smsMessages", try await longPoll(outboxSignal, wait: wait) { tx in try await tx.smsEntries(scope, query) })
    }
}
