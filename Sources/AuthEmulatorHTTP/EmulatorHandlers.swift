import AuthEmulator
import Foundation

/// The emulator's own JSON endpoints (no credential; the clock's needs the admin credential off
/// loopback), byte-compatible with firebase-tools where it has them: accounts, settings and
/// codes of a project, the SMS and APNs outboxes, app-verification stubs, the clock, redirect
/// events and the public keys of signed tokens.
enum EmulatorHandlers {
    static func deleteAllAccounts(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.deleteAllAccounts(request.caller.scope)
    }

    static func config(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.emulatorConfig(projectId: request.caller.scope.projectId)
    }

    static func importState(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.importState(request.caller.scope, request.body)
    }

    static func resetConfig(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.resetSettings(request.caller.scope.projectId)
    }

    static func updateConfig(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.updateEmulatorConfig(
            projectId: request.caller.scope.projectId, patch: request.rawBody)
    }

    static func oobCodes(_ request: ApiRequest) async throws -> JSONListing {
        try await request.emulator.oobCodeListing(request.caller.scope)
    }

    static func clearOobCodes(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.clearOobCodes(request.caller.scope)
    }

    static func verificationCodes(_ request: ApiRequest) async throws -> JSONListing {
        try await request.emulator.verificationCodes(request.caller.scope)
    }

    static func smsMessages(_ request: ApiRequest) async throws -> JSONListing {
        let query = try SmsQueryParameters.parse(request)
        let (emulator, scope) = (request.emulator, request.caller.scope)
        if query.wait > 0 {
            // The wait asks for one message; the listing is built after it, through the gate.
            var one = query.filter
            one.limit = 1
            let first = one
            _ = try await request.untilClientLeaves(waiting: true) {
                try await emulator.smsMessageListing(scope, first, wait: query.wait)
            }
        }
        return try await emulator.smsMessageListing(scope, query.filter, wait: 0)
    }

    static func clearSmsMessages(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.clearSmsMessages(request.caller.scope)
        return .object([:])
    }

    static func totpCodes(_ request: ApiRequest) async throws -> JSONValue {
        guard let localId = request.queryValue("localId"), !localId.isEmpty else { throw AuthError("MISSING_LOCAL_ID") }
        return try await request.emulator.currentTotpCode(
            request.caller.scope, localId: localId, enrollmentId: request.queryValue("mfaEnrollmentId"))
    }

    static func apnsPushes(_ request: ApiRequest) async throws -> JSONValue {
        let query = try SmsQueryParameters.parse(request)
        let (emulator, scope) = (request.emulator, request.caller.scope)
        if query.wait > 0 {
            _ = try await request.untilClientLeaves(waiting: true) {
                try await emulator.apnsPushes(scope, afterId: query.filter.afterId, limit: 1, wait: query.wait)
            }
        }
        let pushes = try await emulator.apnsPushes(
            scope, afterId: query.filter.afterId, limit: query.filter.limit, wait: 0)
        return .object(["apnsPushes": .array(pushes.map(\.wireValue))])
    }

    static func clearApnsPushes(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.clearApnsPushes(request.caller.scope)
        return .object([:])
    }

    static func mintAppCredential(_ request: ApiRequest) async throws -> JSONValue {
        guard let name = request.body["kind"]?.stringValue, let kind = AppCredentialKind(rawValue: name.uppercased())
        else {
            throw AuthError(
                "INVALID_ARGUMENT", "kind must be RECAPTCHA_V2, RECAPTCHA_ENTERPRISE, PLAY_INTEGRITY or SAFETY_NET")
        }
        return try await request.emulator.mintAppCredential(
            kind: kind, valid: request.body["valid"]?.boolValue ?? true, scope: request.caller.scope)
    }

    static func failNext(_ request: ApiRequest) async throws -> JSONValue {
        guard let name = request.body["fault"]?.stringValue, let fault = InjectedFault(rawValue: name.uppercased())
        else {
            throw AuthError("INVALID_ARGUMENT", "fault must be APNS_PUSH, CREDENTIAL or GAME_CENTER")
        }
        let count = try LenientDecoder.decode(Int?.self, from: request.body["count"] ?? .null) ?? 1
        return try await request.emulator.injectFault(
            fault, playerId: request.body["playerId"]?.stringValue, count: count, scope: request.caller.scope)
    }

    static func clock(_ request: ApiRequest) async throws -> JSONValue { request.emulator.clockState() }

    static func advanceClock(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.advanceClock(request.decode(AdvanceClockRequest.self))
    }

    static func setClock(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.setClock(request.decode(SetClockRequest.self))
    }

    static func resumeClock(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.resumeClock()
    }

    static func resetClock(_ request: ApiRequest) async throws -> JSONValue { try await request.emulator.resetClock() }

    static func storeRedirectEvent(_ request: ApiRequest) async throws -> JSONValue {
        try request.emulator.storeRedirectEvent(request.decode(StoreRedirectEventRequest.self))
    }

    static func takeRedirectEvent(_ request: ApiRequest) async throws -> JSONValue {
        try request.emulator.takeRedirectEvent(request.decode(TakeRedirectEventRequest.self))
    }

    /// JWKS of signed tokens (`token_signing: rs256`); an empty set while tokens are unsigned.
    static func signingJWKS(_ request: ApiRequest) async throws -> JSONValue { try request.emulator.signingJWKS() }

    /// The same keys as X.509 certificates, as Google's `metadata/x509` and `publicKeys` URLs.
    static func signingCertificates(_ request: ApiRequest) async throws -> JSONValue {
        request.emulator.signingCertificates()
    }

    /// Query of `GET …/smsMessages`: `phoneNumber`, `purpose`, `status`, `after` (id), `limit`,
    /// `wait` (seconds).
    enum SmsQueryParameters {
        static func parse(_ request: ApiRequest) throws -> (filter: SmsQuery, wait: Double) {
            var filter = SmsQuery()
            filter.phoneNumber = request.queryValue("phoneNumber").flatMap { $0.isEmpty ? nil : $0 }
            if let purpose = request.queryValue("purpose"), !purpose.isEmpty {
                guard let value = SmsPurpose(rawValue: purpose.uppercased()) else {
                    throw AuthError(
                        "INVALID_ARGUMENT",
                        "purpose must be one of \(SmsPurpose.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                filter.purpose = value
            }
            if let after = request.queryValue("after"), !after.isEmpty {
                guard let id = Int64(after) else { throw AuthError("INVALID_ARGUMENT", "after must be a message id") }
                filter.afterId = id
            }
            if let limit = request.queryValue("limit"), !limit.isEmpty {
                guard let count = Int(limit), count > 0 else {
                    throw AuthError("INVALID_ARGUMENT", "limit must be a positive integer")
                }
                filter.limit = count
            }
            if let status = request.queryValue("status"), !status.isEmpty {
                var statuses = Set<SmsStatus>()
                for name in status.split(separator: ",") {
                    guard let value = SmsStatus(rawValue: name.uppercased()) else {
                        throw AuthError(
                            "INVALID_ARGUMENT", "status must be PENDING, USED, EXPIRED, SUPERSEDED or LOCKED")
                    }
                    statuses.insert(value)
                }
                filter.statuses = statuses
            }
            var wait = 0.0
            if let text = request.queryValue("wait"), !text.isEmpty {
                guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                    throw AuthError("INVALID_ARGUMENT", "wait must be a number of seconds from 0 to 30")
                }
                wait = min(seconds, 30)
            }
            return (filter, wait)
        }
    }

}
