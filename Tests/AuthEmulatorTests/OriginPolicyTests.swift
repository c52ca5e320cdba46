import Testing

@testable import AuthEmulatorHTTP

/// Which pages the CORS policy trusts, and which routes it counts as the browser SDKs' (from the
/// route table's access, so a new client route is one without another list to update).
@Suite("Origin policy")
struct OriginPolicyTests {
    let policy = OriginPolicy(publicURL: "https://Auth.Team.example/base", routes: routeTable)

    @Test("loopback origins and public_url's are trusted; others, lookalikes and non-web schemes are not")
    func trustedOrigins() {
        for trusted in [
            "http://localhost:4000", "https://localhost", "http://127.0.0.1:5173", "http://127.8.9.10:1",
            "http://[::1]:3000", "http://app.localhost:8080", "https://auth.team.example",
        ] {
            #expect(policy.isTrusted(trusted), "\(trusted)")
        }
        for foreign in [
            "https://evil.example", "http://localhost.evil.example", "http://127.0.0.1.evil.example", "null",
            "file://", "http://10.0.0.5:9099", "https://auth.team.example:8443", "ftp://localhost",
        ] {
            #expect(!policy.isTrusted(foreign), "\(foreign)")
        }
    }

    @Test("the browser SDKs' routes are the client and API-key routes, parameters and colons included")
    func browserRoutes() {
        for path in [
            "/identitytoolkit.googleapis.com/v1/accounts:signUp", "/securetoken.googleapis.com/v1/token",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword",
            "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start",
            "/identitytoolkit.googleapis.com/v2/recaptchaConfig",
        ] {
            #expect(policy.isBrowserRoute(path), "\(path)")
        }
        for path in [
            "/identitytoolkit.googleapis.com/v1/projects/p/accounts:batchGet",
            "/identitytoolkit.googleapis.com/v1/projects/p:queryAccounts", "/emulator/v1/clock",
            "/emulator/v1/projects/p/oobCodes", "/emulator/ui/", "/identitytoolkit.googleapis.com/v1/accounts:signUp/x",
            "/no/such/route",
        ] {
            #expect(!policy.isBrowserRoute(path), "\(path)")
        }
    }
}
