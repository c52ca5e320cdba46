import AuthEmulator
import Foundation
import Hummingbird

/// Client account APIs (API key; admin adds powers), under v1 and the legacy v3 names iOS uses.
extension RouteTable {
    func registerClientRoutes() {
        let emulator = self.emulator
        /// A client POST: its v1 path and, where iOS has one, its v3 (relyingparty) path.
        func client(_ paths: [String], _ handler: @escaping @Sendable (ApiRequest) async throws -> JSONValue) {
            api(.post, paths, access: .client, handler)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:signUp",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser",
        ]) {
            try await emulator.signUp($0.decode(SignUpRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword",
        ]) {
            try await emulator.signInWithPassword($0.decode(SignInWithPasswordRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyCustomToken",
        ]) {
            try await emulator.signInWithCustomToken($0.decode(SignInWithCustomTokenRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyAssertion",
        ]) {
            try await emulator.signInWithIdp($0.decode(SignInWithIdpRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithEmailLink",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/emailLinkSignin",
        ]) {
            try await emulator.signInWithEmailLink($0.decode(SignInWithEmailLinkRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:lookup",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/getAccountInfo",
        ]) {
            try await emulator.lookup($0.decode(LookupRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:update",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/setAccountInfo",
        ]) {
            try await emulator.updateAccount($0.decode(UpdateAccountRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:delete",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/deleteAccount",
        ]) {
            try await emulator.deleteAccount(
                idToken: $0.body["idToken"]?.stringValue, localId: $0.body["localId"]?.stringValue, caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:createAuthUri",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/createAuthUri",
        ]) {
            try await emulator.createAuthUri($0.decode(CreateAuthUriRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/getOobConfirmationCode",
        ]) {
            try await emulator.sendOobCode($0.decode(SendOobCodeRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:resetPassword",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/resetPassword",
        ]) {
            try await emulator.resetPassword($0.decode(ResetPasswordRequest.self), caller: $0.caller)
        }
        let projects: @Sendable (ApiRequest) async throws -> JSONValue = {
            try ProjectsInfo.response(caller: $0.caller)
        }
        api(
            .get,
            [
                "/identitytoolkit.googleapis.com/v1/projects",
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig",
            ], access: .client, projects)
        api(.post, ["/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig"], access: .client, projects)
        let recaptchaParams: @Sendable (ApiRequest) async throws -> JSONValue = { _ in
            .object([
                "kind": "identitytoolkit#GetRecaptchaParamResponse",
                "recaptchaStoken":
                    "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-Recaptcha",
                "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_",
            ])
        }
        api(
            .get,
            [
                "/identitytoolkit.googleapis.com/v1/recaptchaParams",
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/getRecaptchaParam",
            ], access: .client,
            recaptchaParams)
        api(
            .post, ["/www.googleapis.com/identitytoolkit/v3/relyingparty/getRecaptchaParam"], access: .client,
            recaptchaParams)

        api(.post, ["/securetoken.googleapis.com/v1/token"], access: .apiKey) { request in
            try await emulator.refresh(
                request.decode(SecureTokenRequest.self), defaultProjectId: request.caller.scope.projectId)
        }
        api(.post, ["/identitytoolkit.googleapis.com/v2/accounts:revokeToken"], access: .client) {
            try await emulator.revokeIdpToken($0.body, caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode",
        ]) {
            try await emulator.sendVerificationCode($0.decode(SendVerificationCodeRequest.self), caller: $0.caller)
        }
        client([
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber",
        ]) {
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
        func v2(_ path: String, _ handler: @escaping @Sendable (ApiRequest) async throws -> JSONValue) {
            api(.post, [path], access: .client, handler)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start") {
            try await emulator.startMfaEnrollment($0.decode(StartMfaEnrollmentRequest.self), caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:finalize") {
            try await emulator.finalizeMfaEnrollment($0.decode(FinalizeMfaEnrollmentRequest.self), caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:withdraw") {
            try await emulator.withdrawMfa($0.decode(WithdrawMfaRequest.self), caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start") {
            try await emulator.startMfaSignIn($0.decode(StartMfaSignInRequest.self), caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize") {
            try await emulator.finalizeMfaSignIn($0.decode(FinalizeMfaSignInRequest.self), caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/passkeyEnrollment:start") {
            try await emulator.startPasskeyEnrollment($0.decode(PasskeyEnrollmentRequest.self), caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/passkeyEnrollment:finalize") {
            try await emulator.finalizePasskeyEnrollment($0.decode(PasskeyEnrollmentRequest.self), caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/passkeySignIn:start") {
            try await emulator.startPasskeySignIn(caller: $0.caller)
        }
        v2("/identitytoolkit.googleapis.com/v2/accounts/passkeySignIn:finalize") {
            try await emulator.finalizePasskeySignIn($0.decode(PasskeySignInRequest.self), caller: $0.caller)
        }
    }

    /// App verification: APNs client verification, reCAPTCHA config, password policy.
    func registerAppVerificationRoutes() {
        let emulator = self.emulator
        api(
            .post,
            [
                "/identitytoolkit.googleapis.com/v1/accounts:verifyIosClient",
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyClient",
            ], access: .client
        ) {
            try await emulator.verifyIosClient(
                appToken: $0.body["appToken"]?.stringValue, isSandbox: $0.body["isSandbox"]?.boolValue,
                caller: $0.caller)
        }
        api(.get, ["/identitytoolkit.googleapis.com/v2/recaptchaConfig"], access: .client) {
            try await emulator.recaptchaConfig(
                clientType: $0.queryValue("clientType"), version: $0.queryValue("version"), caller: $0.caller)
        }
        api(.get, ["/identitytoolkit.googleapis.com/v2/passwordPolicy"], access: .client) {
            try await emulator.passwordPolicy(caller: $0.caller)
        }
    }

    /// Operations of the API that authemu does not serve yet: they answer 501 NOT_IMPLEMENTED.
    func registerPlannedClientRoutes() {
        notImplemented(
            .post,
            [
                "/identitytoolkit.googleapis.com/v1/accounts:signInWithGameCenter",
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/signInWithGameCenter",
            ], access: .client,
            operation: "accounts:signInWithGameCenter")
        notImplemented(
            .post, ["/identitytoolkit.googleapis.com/v1/accounts:issueSamlResponse"], access: .client,
            operation: "accounts:issueSamlResponse")
        notImplemented(
            .post, ["/www.googleapis.com/identitytoolkit/v3/relyingparty/signOutUser"], access: .client,
            operation: "signOutUser")
        notImplemented(
            .get, ["/identitytoolkit.googleapis.com/v2/defaultSupportedIdps"], access: .client,
            operation: "defaultSupportedIdps")
    }
}
