import AuthEmulator
import Foundation
import Hummingbird

/// Emulator-only endpoints (no credential), byte-compatible with firebase-tools, plus health.
extension RouteTable {
    func registerEmulatorRoutes() {
        registerStatusRoutes()
        registerSigningKeyRoutes()
        registerProjectStateRoutes()
        registerOutboxRoutes()
        registerAppVerificationStubRoutes()
        registerClockRoutes()
        registerActionPage()
        registerIdpWidget()
    }

    /// `/`, the OpenAPI document, `/healthz` and `/readyz`.
    func registerStatusRoutes() {
        let emulator = self.emulator
        router.get("/") { _, _ in
            JSONResponse.make(
                .object([
                    "authEmulator": .object([
                        "ready": true, "docs": "https://firebase.google.com/docs/emulator-suite",
                        "apiSpec": "/emulator/openapi.json", "clock": emulator.clockState(),
                    ])
                ]))
        }
        let catalog = self.catalog
        router.get("/emulator/openapi.json") { _, _ in
            JSONResponse.make(OpenAPIDocument.render(catalog, publicURL: emulator.options.publicURL))
        }
        for path in [
            "/", "/healthz", "/readyz", "/emulator/openapi.json", "/emulator/action", "/emulator/auth/handler",
            "/emulator/auth/iframe",
        ] {
            catalog.add(.get, path, access: .open)
        }
        router.get("/healthz") { _, _ in JSONResponse.make(.object(["status": "ok"])) }
        router.get("/readyz") { _, _ in
            guard await emulator.store.isReady() else {
                return ErrorEnvelope.response(for: .storeUnavailable("the store is not open"))
            }
            return JSONResponse.make(.object(["status": "ready"]))
        }
    }

    /// Accounts, settings and email action codes of a project (firebase-tools' emulator API).
    func registerProjectStateRoutes() {
        let emulator = self.emulator
        api(
            .delete,
            ["/emulator/v1/projects/{project}/accounts", "/emulator/v1/projects/{project}/tenants/{tenant}/accounts"],
            access: .open
        ) {
            try await emulator.deleteAllAccounts($0.caller.scope)
        }
        api(.get, ["/emulator/v1/projects/{project}/config"], access: .open) {
            try await emulator.emulatorConfig(projectId: $0.caller.scope.projectId)
        }
        api(.delete, ["/emulator/v1/projects/{project}/config"], access: .open) {
            try await emulator.resetSettings($0.caller.scope.projectId)
        }
        api(.patch, ["/emulator/v1/projects/{project}/config"], access: .open) {
            try await emulator.updateEmulatorConfig(projectId: $0.caller.scope.projectId, patch: $0.rawBody)
        }
        api(
            .get,
            ["/emulator/v1/projects/{project}/oobCodes", "/emulator/v1/projects/{project}/tenants/{tenant}/oobCodes"],
            access: .open
        ) { try await emulator.listOobCodes($0.caller.scope) }
        api(
            .get,
            [
                "/emulator/v1/projects/{project}/verificationCodes",
                "/emulator/v1/projects/{project}/tenants/{tenant}/verificationCodes",
            ], access: .open
        ) {
            try await emulator.verificationCodes($0.caller.scope)
        }
    }

    /// The SMS outbox, TOTP codes of enrolled factors and the APNs outbox, with their long-polls.
    func registerOutboxRoutes() {
        let emulator = self.emulator
        api(
            .get,
            [
                "/emulator/v1/projects/{project}/smsMessages",
                "/emulator/v1/projects/{project}/tenants/{tenant}/smsMessages",
            ], access: .open
        ) { request in
            let query = try SmsQueryParameters.parse(request)
            let messages = try await emulator.smsMessages(request.caller.scope, query.filter, wait: query.wait)
            return .object(["smsMessages": .array(messages.map(\.wireValue))])
        }
        api(
            .delete,
            [
                "/emulator/v1/projects/{project}/smsMessages",
                "/emulator/v1/projects/{project}/tenants/{tenant}/smsMessages",
            ], access: .open
        ) {
            try await emulator.clearSmsMessages($0.caller.scope)
            return .object([:])
        }
        api(
            .get,
            [
                "/emulator/v1/projects/{project}/totpCodes",
                "/emulator/v1/projects/{project}/tenants/{tenant}/totpCodes",
            ], access: .open
        ) { request in
            guard let localId = request.queryValue("localId"), !localId.isEmpty else {
                throw AuthError("MISSING_LOCAL_ID")
            }
            return try await emulator.currentTotpCode(
                request.caller.scope, localId: localId, enrollmentId: request.queryValue("mfaEnrollmentId"))
        }
        api(
            .get,
            [
                "/emulator/v1/projects/{project}/apnsPushes",
                "/emulator/v1/projects/{project}/tenants/{tenant}/apnsPushes",
            ], access: .open
        ) { request in
            let query = try SmsQueryParameters.parse(request)
            let pushes = try await emulator.apnsPushes(
                request.caller.scope, afterId: query.filter.afterId, limit: query.filter.limit, wait: query.wait)
            return .object(["apnsPushes": .array(pushes.map(\.wireValue))])
        }
        api(
            .delete,
            [
                "/emulator/v1/projects/{project}/apnsPushes",
                "/emulator/v1/projects/{project}/tenants/{tenant}/apnsPushes",
            ], access: .open
        ) {
            try await emulator.clearApnsPushes($0.caller.scope)
            return .object([:])
        }
    }

    /// Minted app credentials and injected app-verification faults.
    func registerAppVerificationStubRoutes() {
        let emulator = self.emulator
        api(
            .post,
            [
                "/emulator/v1/projects/{project}/appCredentials",
                "/emulator/v1/projects/{project}/tenants/{tenant}/appCredentials",
            ], access: .open
        ) { request in
            guard let name = request.body["kind"]?.stringValue,
                let kind = AppCredentialKind(rawValue: name.uppercased())
            else {
                throw AuthError(
                    "INVALID_ARGUMENT", "kind must be RECAPTCHA_V2, RECAPTCHA_ENTERPRISE, PLAY_INTEGRITY or SAFETY_NET")
            }
            return try await emulator.mintAppCredential(
                kind: kind, valid: request.body["valid"]?.boolValue ?? true, scope: request.caller.scope)
        }
        api(
            .post,
            [
                "/emulator/v1/projects/{project}/appVerification:failNext",
                "/emulator/v1/projects/{project}/tenants/{tenant}/appVerification:failNext",
            ], access: .open
        ) { request in
            guard let name = request.body["fault"]?.stringValue, let fault = InjectedFault(rawValue: name.uppercased())
            else {
                throw AuthError("INVALID_ARGUMENT", "fault must be APNS_PUSH or CREDENTIAL")
            }
            let count = try LenientDecoder.decode(Int?.self, from: request.body["count"] ?? .null) ?? 1
            return try await emulator.injectFault(fault, count: count, scope: request.caller.scope)
        }
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

    /// `GET /emulator/auth/handler` and `/emulator/auth/iframe`: the IdP sign-in pages of popup
    /// and redirect flows (`IdpWidgetPages`).
    func registerIdpWidget() {
        let emulator = self.emulator
        let defaultProject = settings.defaultProjectId
        router.get("/emulator/auth/handler") { request, _ in
            let query = request.uri.queryParameters
            guard let apiKey = query.get("apiKey"), !apiKey.isEmpty, let providerId = query.get("providerId"),
                !providerId.isEmpty
            else {
                return JSONResponse.make(
                    .object(["authEmulator": .object(["error": "missing apiKey or providerId query parameters"])]),
                    status: .badRequest)
            }
            let scope = try Scope.resolve(
                projectId: defaultProject, tenant: TenantSources(query: query.get("tenantId") ?? query.get("tid")))
            let accounts = try await emulator.idpWidgetAccounts(providerId: providerId, scope: scope)
            return IdpWidgetPages.response(IdpWidgetPages.handler(providerId: providerId, accounts: accounts))
        }
        router.get("/emulator/auth/iframe") { _, _ in IdpWidgetPages.response(IdpWidgetPages.relayFrame) }
        api(.post, ["/emulator/auth/redirectEvents"], access: .open) {
            try emulator.storeRedirectEvent($0.decode(StoreRedirectEventRequest.self))
        }
        api(.post, ["/emulator/auth/redirectEvents:take"], access: .open) {
            try emulator.takeRedirectEvent($0.decode(TakeRedirectEventRequest.self))
        }
    }

    /// `/emulator/v1/clock`: the emulator's movable time (`ClockService`).
    func registerClockRoutes() {
        let emulator = self.emulator
        api(.get, ["/emulator/v1/clock"], access: .emulatorAdmin) { _ in emulator.clockState() }
        api(.post, ["/emulator/v1/clock:advance"], access: .emulatorAdmin) {
            try await emulator.advanceClock($0.decode(AdvanceClockRequest.self))
        }
        api(.post, ["/emulator/v1/clock:set"], access: .emulatorAdmin) {
            try await emulator.setClock($0.decode(SetClockRequest.self))
        }
        api(.post, ["/emulator/v1/clock:reset"], access: .emulatorAdmin) { _ in try await emulator.resetClock() }
    }

    /// `GET /emulator/action`: the page email links point at.
    func registerActionPage() {
        let emulator = self.emulator
        let defaultProject = settings.defaultProjectId
        router.get("/emulator/action") { request, _ in
            let query = request.uri.queryParameters
            func failure(_ message: String, _ instructions: String? = nil) -> Response {
                var body: [String: JSONValue] = ["error": .string(message)]
                if let instructions { body["instructions"] = .string(instructions) }
                return JSONResponse.make(.object(["authEmulator": .object(body)]), status: .badRequest)
            }
            guard query.get("apiKey") != nil else { return failure("missing apiKey query parameter") }
            guard let mode = query.get("mode") else { return failure("Invalid mode") }
            let scope = try Scope.resolve(
                projectId: defaultProject, tenant: TenantSources(query: query.get("tenantId")))
            let caller = Caller(scope: scope, isAdmin: true)
            let continueUrl = query.get("continueUrl")
            func success(_ message: String, email: String?) -> Response {
                if let continueUrl, !continueUrl.isEmpty {
                    return Response(status: .seeOther, headers: [.location: continueUrl])
                }
                var body: [String: JSONValue] = ["success": .string(message)]
                if let email { body["email"] = .string(email) }
                return JSONResponse.make(.object(["authEmulator": .object(body)]))
            }
            let code = query.get("oobCode") ?? ""
            do {
                switch mode {
                case "resetPassword":
                    guard let password = query.get("newPassword"), password != "NEW_PASSWORD_HERE" else {
                        return failure(
                            "missing newPassword query parameter",
                            "To reset the password for the account, send a GET request to this URL with a newPassword query parameter."
                        )
                    }
                    let result = try await emulator.resetPassword(
                        ResetPasswordRequest(oobCode: code, newPassword: password), caller: caller)
                    return success("The password has been successfully updated.", email: result["email"]?.stringValue)
                case "verifyEmail", "verifyAndChangeEmail":
                    let result = try await emulator.applyOobCode(code, caller: caller)
                    return success("The email has been successfully verified.", email: result["email"]?.stringValue)
                case "recoverEmail":
                    let result = try await emulator.applyOobCode(code, caller: caller)
                    return success("The email has been successfully reset.", email: result["email"]?.stringValue)
                case "signIn":
                    guard let continueUrl, var components = URLComponents(string: continueUrl) else {
                        return failure("missing continueUrl query parameter")
                    }
                    var items = components.queryItems ?? []
                    for (key, value) in query where key != "continueUrl" {
                        items.append(URLQueryItem(name: String(key), value: String(value)))
                    }
                    components.queryItems = items
                    return Response(status: .seeOther, headers: [.location: components.string ?? continueUrl])
                default:
                    return failure("Invalid mode")
                }
            } catch let error as AuthError {
                return failure(error.message)
            }
        }
    }
}
