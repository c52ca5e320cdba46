import AuthEmulator
import Foundation
import Hummingbird

/// Client account APIs (API key; admin adds powers), under v1 and the legacy v3 names iOS uses.
extension RouteTable {
    func registerClientRoutes() {
        let emulator = self.emulator
        func client(_ v1: String, _ v3: String?, _ handler: @escaping @Sendable (ApiRequest) async throws -> JSONValue)
        {
            var paths = ["\(Self.toolkit)/v1/\(v1)"]
            if let v3 { paths.append("\(Self.legacy)/\(v3)") }
            api(.post, paths, access: .client, handler)
        }
        client("accounts:signUp", "signupNewUser") {
            try await emulator.signUp($0.decode(SignUpRequest.self), caller: $0.caller)
        }
        client("accounts:signInWithPassword", "verifyPassword") {
            try await emulator.signInWithPassword($0.decode(SignInWithPasswordRequest.self), caller: $0.caller)
        }
        client("accounts:signInWithCustomToken", "verifyCustomToken") {
            try await emulator.signInWithCustomToken($0.decode(SignInWithCustomTokenRequest.self), caller: $0.caller)
        }
        client("accounts:signInWithIdp", "verifyAssertion") {
            try await emulator.signInWithIdp($0.decode(SignInWithIdpRequest.self), caller: $0.caller)
        }
        client("accounts:signInWithEmailLink", "emailLinkSignin") {
            try await emulator.signInWithEmailLink($0.decode(SignInWithEmailLinkRequest.self), caller: $0.caller)
        }
        client("accounts:lookup", "getAccountInfo") {
            try await emulator.lookup($0.decode(LookupRequest.self), caller: $0.caller)
        }
        client("accounts:update", "setAccountInfo") {
            try await emulator.updateAccount($0.decode(UpdateAccountRequest.self), caller: $0.caller)
        }
        client("accounts:delete", "deleteAccount") {
            try await emulator.deleteAccount(
                idToken: $0.body["idToken"]?.stringValue, localId: $0.body["localId"]?.stringValue, caller: $0.caller)
        }
        client("accounts:createAuthUri", "createAuthUri") {
            try await emulator.createAuthUri($0.decode(CreateAuthUriRequest.self), caller: $0.caller)
        }
        client("accounts:sendOobCode", "getOobConfirmationCode") {
            try await emulator.sendOobCode($0.decode(SendOobCodeRequest.self), caller: $0.caller)
        }
        client("accounts:resetPassword", "resetPassword") {
            try await emulator.resetPassword($0.decode(ResetPasswordRequest.self), caller: $0.caller)
        }
        let projects: @Sendable (ApiRequest) async throws -> JSONValue = { request in
            if request.caller.scope.tenantId != nil { throw AuthError.unsupportedTenantOperation }
            return ProjectsInfo.response
        }
        api(.get, ["\(Self.toolkit)/v1/projects", "\(Self.legacy)/getProjectConfig"], access: .client, projects)
        api(.post, ["\(Self.legacy)/getProjectConfig"], access: .client, projects)
        let recaptchaParams: @Sendable (ApiRequest) async throws -> JSONValue = { _ in
            .object([
                "kind": "identitytoolkit#GetRecaptchaParamResponse",
                "recaptchaStoken":
                    "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-Recaptcha",
                "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_",
            ])
        }
        api(
            .get, ["\(Self.toolkit)/v1/recaptchaParams", "\(Self.legacy)/getRecaptchaParam"], access: .client,
            recaptchaParams)
        api(.post, ["\(Self.legacy)/getRecaptchaParam"], access: .client, recaptchaParams)

        api(.post, ["/securetoken.googleapis.com/v1/token"], access: .apiKey) { request in
            try await emulator.refresh(
                request.decode(SecureTokenRequest.self), defaultProjectId: request.caller.scope.projectId)
        }
        api(.post, ["\(Self.toolkit)/v2/accounts:revokeToken"], access: .client) {
            try await emulator.revokeIdpToken($0.body, caller: $0.caller)
        }
        client("accounts:sendVerificationCode", "sendVerificationCode") {
            try await emulator.sendVerificationCode($0.decode(SendVerificationCodeRequest.self), caller: $0.caller)
        }
        client("accounts:signInWithPhoneNumber", "verifyPhoneNumber") {
            try await emulator.signInWithPhoneNumber($0.decode(SignInWithPhoneNumberRequest.self), caller: $0.caller)
        }
        registerMfaRoutes()
        registerAppVerificationRoutes()
        registerPlannedClientRoutes()
    }

    /// Second factors (`IT/v2/accounts/mfaEnrollment:*`, `mfaSignIn:*`) and passkeys
    /// (`passkeyEnrollment:*`, `passkeySignIn:*`).
    func registerMfaRoutes() {
        let emulator = self.emulator
        func v2(_ operation: String, _ handler: @escaping @Sendable (ApiRequest) async throws -> JSONValue) {
            api(.post, ["\(Self.toolkit)/v2/accounts/\(operation)"], access: .client, handler)
        }
        v2("mfaEnrollment:start") {
            try await emulator.startMfaEnrollment($0.decode(StartMfaEnrollmentRequest.self), caller: $0.caller)
        }
        v2("mfaEnrollment:finalize") {
            try await emulator.finalizeMfaEnrollment($0.decode(FinalizeMfaEnrollmentRequest.self), caller: $0.caller)
        }
        v2("mfaEnrollment:withdraw") {
            try await emulator.withdrawMfa($0.decode(WithdrawMfaRequest.self), caller: $0.caller)
        }
        v2("mfaSignIn:start") {
            try await emulator.startMfaSignIn($0.decode(StartMfaSignInRequest.self), caller: $0.caller)
        }
        v2("mfaSignIn:finalize") {
            try await emulator.finalizeMfaSignIn($0.decode(FinalizeMfaSignInRequest.self), caller: $0.caller)
        }
        v2("passkeyEnrollment:start") {
            try await emulator.startPasskeyEnrollment($0.decode(PasskeyEnrollmentRequest.self), caller: $0.caller)
        }
        v2("passkeyEnrollment:finalize") {
            try await emulator.finalizePasskeyEnrollment($0.decode(PasskeyEnrollmentRequest.self), caller: $0.caller)
        }
        v2("passkeySignIn:start") { try await emulator.startPasskeySignIn(caller: $0.caller) }
        v2("passkeySignIn:finalize") {
            try await emulator.finalizePasskeySignIn($0.decode(PasskeySignInRequest.self), caller: $0.caller)
        }
    }

    /// App verification: APNs client verification, reCAPTCHA config, password policy.
    func registerAppVerificationRoutes() {
        let emulator = self.emulator
        api(.post, ["\(Self.toolkit)/v1/accounts:verifyIosClient", "\(Self.legacy)/verifyClient"], access: .client) {
            try await emulator.verifyIosClient(
                appToken: $0.body["appToken"]?.stringValue, isSandbox: $0.body["isSandbox"]?.boolValue,
                caller: $0.caller)
        }
        api(.get, ["\(Self.toolkit)/v2/recaptchaConfig"], access: .client) {
            try await emulator.recaptchaConfig(
                clientType: $0.queryValue("clientType"), version: $0.queryValue("version"), caller: $0.caller)
        }
        api(.get, ["\(Self.toolkit)/v2/passwordPolicy"], access: .client) {
            try await emulator.passwordPolicy(caller: $0.caller)
        }
    }

    /// Operations of the API that authemu does not serve yet: they answer 501 NOT_IMPLEMENTED.
    func registerPlannedClientRoutes() {
        let planned: [(String, String?)] = [

            ("accounts:signInWithGameCenter", "signInWithGameCenter"),
            ("accounts:issueSamlResponse", nil),
        ]
        for (v1, v3) in planned {
            var paths = ["\(Self.toolkit)/v1/\(v1)"]
            if let v3 { paths.append("\(Self.legacy)/\(v3)") }
            notImplemented(.post, paths, access: .client, operation: v1)
        }
        notImplemented(.post, ["\(Self.legacy)/signOutUser"], access: .client, operation: "signOutUser")
        for operation in ["defaultSupportedIdps"] {
            notImplemented(.get, ["\(Self.toolkit)/v2/\(operation)"], access: .client, operation: operation)
        }
    }
}
