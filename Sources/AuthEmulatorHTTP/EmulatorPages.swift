import AuthEmulator
import Foundation
import Hummingbird

/// The emulator's answers that are not API calls: the root, health, the OpenAPI document, the
/// page email links point at, and the IdP sign-in pages of popup and redirect flows.
enum EmulatorPages {
    static func root(_ request: PageRequest) async throws -> Response {
        JSONResponse.make(
            .object([
                "authEmulator": .object([
                    "ready": true, "docs": "https://firebase.google.com/docs/emulator-suite",
                    "apiSpec": "/emulator/openapi.json", "clock": request.emulator.clockState(),
                ])
            ]))
    }

    static func openAPI(_ request: PageRequest) async throws -> Response {
        JSONResponse.make(OpenAPIDocument.render(routeTable, publicURL: request.emulator.options.publicURL))
    }

    static func health(_ request: PageRequest) async throws -> Response { JSONResponse.make(.object(["status": "ok"])) }

    /// 503 while the store cannot be reached or read (a PostgreSQL server that is down, an SQLite
    /// file truncated under the daemon); a change either way is logged once.
    static func readiness(_ request: PageRequest) async throws -> Response {
        let ready = await request.emulator.store.isReady()
        request.emulator.noteStoreReadiness(ready)
        guard ready else { return ErrorEnvelope.response(for: .storeUnavailable("the store is not open")) }
        return JSONResponse.make(.object(["status": "ready"]))
    }

    /// `GET /emulator/auth/handler`: the IdP page listing the provider's accounts (`IdpWidgetPages`).
    static func idpHandler(_ request: PageRequest) async throws -> Response {
        guard let apiKey = request.query.get("apiKey"), !apiKey.isEmpty,
            let providerId = request.query.get("providerId"),
            !providerId.isEmpty
        else {
            return JSONResponse.make(
                .object(["authEmulator": .object(["error": "missing apiKey or providerId query parameters"])]),
                status: .badRequest)
        }
        if let refusal = IdpWidgetLink.refusal(request.query) {
            return JSONResponse.make(
                .object(["authEmulator": .object(["error": .string(refusal)])]), status: .badRequest)
        }
        let scope = try Scope.resolve(
            projectId: request.services.settings.defaultProjectId,
            tenant: TenantSources(query: request.query.get("tenantId") ?? request.query.get("tid")))
        let accounts = try await request.emulator.idpWidgetAccounts(providerId: providerId, scope: scope)
        let nonce = HTMLPage.nonce()
        return HTMLPage.response(
            IdpWidgetPages.handler(providerId: providerId, accounts: accounts, nonce: nonce),
            policy: IdpWidgetPages.handlerPolicy(nonce: nonce))
    }

    /// `GET /emulator/auth/iframe`: the relay frame of the redirect flow.
    static func idpRelayFrame(_ request: PageRequest) async throws -> Response {
        let nonce = HTMLPage.nonce()
        return HTMLPage.response(
            IdpWidgetPages.relayFrame(nonce: nonce), policy: IdpWidgetPages.relayPolicy(nonce: nonce))
    }

    /// `GET /emulator/action`: applies an email action code, or passes a sign-in link on.
    static func action(_ request: PageRequest) async throws -> Response {
        let query = request.query
        guard query.get("apiKey") != nil else { return actionFailure("missing apiKey query parameter") }
        guard let code = query.get("oobCode"), !code.isEmpty else {
            return actionFailure("missing oobCode query parameter")
        }
        guard let mode = query.get("mode") else { return actionFailure("Invalid mode") }
        let scope = try Scope.resolve(
            projectId: request.services.settings.defaultProjectId, tenant: TenantSources(query: query.get("tenantId")))
        let caller = Caller(scope: scope, isAdmin: true)
        let continueUrl = query.get("continueUrl")
        if let continueUrl, !continueUrl.isEmpty, !IdpWidgetLink.isWebAddress(continueUrl) {
            return actionFailure("continueUrl must be an http(s) address")
        }
        func success(_ message: String, _ result: JSONValue) -> Response {
            if let continueUrl, !continueUrl.isEmpty {
                return Response(status: .seeOther, headers: [.location: continueUrl])
            }
            var body: [String: JSONValue] = ["success": .string(message)]
            if let email = result["email"]?.stringValue { body["email"] = .string(email) }
            return JSONResponse.make(.object(["authEmulator": .object(body)]))
        }
        do {
            switch mode {
            case "resetPassword":
                guard let password = query.get("newPassword"), password != "NEW_PASSWORD_HERE" else {
                    return actionFailure(
                        "missing newPassword query parameter",
                        "To reset the password for the account, send a GET request to this URL with a newPassword query parameter."
                    )
                }
                let result = try await request.emulator.resetPassword(
                    ResetPasswordRequest(oobCode: code, newPassword: password), caller: caller)
                return success("The password has been successfully updated.", result)
            case "verifyEmail", "verifyAndChangeEmail":
                let result = try await request.emulator.applyOobCode(code, caller: caller)
                return success("The email has been successfully verified.", result)
            case "recoverEmail":
                let result = try await request.emulator.applyOobCode(code, caller: caller)
                return success("The email has been successfully reset.", result)
            case "signIn":
                return signInLinkRedirect(query, continueUrl: continueUrl)
            default:
                return actionFailure("Invalid mode")
            }
        } catch let error as AuthError {
            return actionFailure(error.message)
        }
    }

    /// A sign-in link goes on to `continueUrl`, with the link's parameters added to its query.
    static func signInLinkRedirect(_ query: Parameters, continueUrl: String?) -> Response {
        guard let continueUrl, var components = URLComponents(string: continueUrl) else {
            return actionFailure("missing continueUrl query parameter")
        }
        var items = components.queryItems ?? []
        for (key, value) in query where key != "continueUrl" {
            items.append(URLQueryItem(name: String(key), value: String(value)))
        }
        components.queryItems = items
        return Response(status: .seeOther, headers: [.location: components.string ?? continueUrl])
    }

    static func actionFailure(_ message: String, _ instructions: String? = nil) -> Response {
        var body: [String: JSONValue] = ["error": .string(message)]
        if let instructions { body["instructions"] = .string(instructions) }
        return JSONResponse.make(.object(["authEmulator": .object(body)]), status: .badRequest)
    }
}
