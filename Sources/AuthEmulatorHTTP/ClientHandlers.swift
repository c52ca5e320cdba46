import AuthEmulator
import Foundation

/// Client account APIs (API key; the admin credential adds powers), reached under v1, v2 and the
/// legacy v3 names iOS uses (`routeTable`). Each decodes its request and calls the domain.
enum ClientHandlers {
    static func delete(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.deleteAccount(
            idToken: request.body["idToken"]?.stringValue, localId: request.body["localId"]?.stringValue,
            caller: request.caller)
    }

    static func projects(_ request: ApiRequest) async throws -> JSONValue {
        try ProjectsInfo.response(caller: request.caller)
    }

    static func recaptchaParams(_ request: ApiRequest) async throws -> JSONValue {
        .object([
            "kind": "identitytoolkit#GetRecaptchaParamResponse",
            "recaptchaStoken":
                "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-Recaptcha",
            "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_",
        ])
    }

    static func refreshToken(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.refresh(
            request.decode(SecureTokenRequest.self), defaultProjectId: request.caller.scope.projectId)
    }

    static func revokeIdpToken(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.revokeIdpToken(request.body, caller: request.caller)
    }

    static func verifyIosClient(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.verifyIosClient(
            appToken: request.body["appToken"]?.stringValue, isSandbox: request.body["isSandbox"]?.boolValue,
            caller: request.caller)
    }

    static func recaptchaConfig(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.recaptchaConfig(
            clientType: request.queryValue("clientType"), version: request.queryValue("version"), caller: request.caller
        )
    }

    static func passwordPolicy(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.passwordPolicy(caller: request.caller)
    }

    static func signOutUser(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.signOutUser(localId: request.body["localId"]?.stringValue, caller: request.caller)
    }

    static func defaultSupportedIdps(_ request: ApiRequest) async throws -> JSONValue {
        request.emulator.listDefaultSupportedIdps(
            pageSize: request.queryValue("pageSize").flatMap { Int($0) }, pageToken: request.queryValue("pageToken"))
    }

    static func startPasskeySignIn(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.startPasskeySignIn(caller: request.caller)
    }
}
