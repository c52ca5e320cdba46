import AuthEmulator
import AuthEmulatorSQLite
import Foundation
import HTTPTypes
import Testing

/// CORS: which pages may call what (docs/security.md), and the headers on error answers. A browser
/// reads an error answer only if it carries the CORS headers; without them every
/// `EMAIL_EXISTS` or `INVALID_PASSWORD` reaches a web app as `auth/network-request-failed`.
@Suite("CORS: who may call, and error answers")
struct CORSErrorTests {
    static let origin = "http://localhost:5173"
    static let toolkit = "/identitytoolkit.googleapis.com"

    /// The reply's status, its error message, and that it carries the reflected origin.
    static func expectCORSError(
        _ reply: Harness.Reply, status: Int, code message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        #expect(reply.errorMessage == message, sourceLocation: sourceLocation)
        #expect(reply.json.value(at: "error.code") == .number(Double(status)), sourceLocation: sourceLocation)
        #expect(reply.headers[.accessControlAllowOrigin] == origin, sourceLocation: sourceLocation)
        #expect(reply.headers[.accessControlAllowCredentials] == "true", sourceLocation: sourceLocation)
        #expect(reply.headers[.vary] == "Origin", sourceLocation: sourceLocation)
    }

    @Test("400 domain errors, bad JSON and missing fields carry the origin")
    func badRequests() async throws {
        try await Harness().run { client in
            let headers: HTTPFields = [.origin: Self.origin]
            let body = #"{"email":"cors@example.com","password":"secret123"}"#
            let first = try await client.call(.post, "\(Self.toolkit)/v1/accounts:signUp", body, headers: headers)
            #expect(first.status == 200)
            let again = try await client.call(.post, "\(Self.toolkit)/v1/accounts:signUp", body, headers: headers)
            Self.expectCORSError(again, status: 400, code: "EMAIL_EXISTS")
            let wrong = try await client.call(
                .post, "\(Self.toolkit)/v1/accounts:signInWithPassword",
                #"{"email":"nobody@example.com","password":"x"}"#, headers: headers)
            Self.expectCORSError(wrong, status: 400, code: "EMAIL_NOT_FOUND")
            let malformed = try await client.call(
                .post, "\(Self.toolkit)/v1/accounts:signUp", "{not json", headers: headers)
            Self.expectCORSError(
                malformed, status: 400, code: "Invalid JSON payload received. The body is not valid JSON.")
            let oob = try await client.call(
                .post, "\(Self.toolkit)/v1/accounts:update", #"{"oobCode":"nope"}"#, headers: headers)
            Self.expectCORSError(oob, status: 400, code: "INVALID_OOB_CODE")
        }
    }

    @Test("401, 403, 404 and 413 raised before any handler runs carry the origin")
    func credentialRouteAndSizeErrors() async throws {
        try await Harness().run { client in
            let origin: HTTPFields = [.origin: Self.origin]
            var badToken = origin
            badToken[.authorization] = "Bearer not-the-owner"
            let unauthenticated = try await client.call(
                .post, "\(Self.toolkit)/v1/accounts:signUp", "{}", key: false, headers: badToken)
            Self.expectCORSError(unauthenticated, status: 401, code: AuthError.invalidCredentials.message)
            let noKey = try await client.call(
                .post, "\(Self.toolkit)/v1/accounts:signUp", "{}", key: false, headers: origin)
            Self.expectCORSError(noKey, status: 403, code: "The request is missing a valid API key.")
            let unknown = try await client.call(.post, "/no/such/route", "{}", headers: origin)
            Self.expectCORSError(unknown, status: 404, code: "Not Found")
            let unknownMethod = try await client.call(.put, "\(Self.toolkit)/v1/accounts:signUp", "{}", headers: origin)
            Self.expectCORSError(unknownMethod, status: 404, code: "Not Found")
            let huge = #"{"displayName":""# + String(repeating: "x", count: 70 * 1024) + #""}"#
            let tooLarge = try await client.call(.post, "\(Self.toolkit)/v1/accounts:signUp", huge, headers: origin)
            Self.expectCORSError(tooLarge, status: 413, code: "The request body exceeds the configured limit.")
        }
    }

    @Test("500 from an unreachable blocking function and 501 for an unbuilt operation carry the origin")
    func serverErrors() async throws {
        try await Harness().run { client in
            let origin: HTTPFields = [.origin: Self.origin]
            let notBuilt = try await client.call(
                .post, "\(Self.toolkit)/v1/accounts:signInWithIdp",
                #"{"requestUri":"http://localhost","returnRefreshToken":true}"#, headers: origin)
            Self.expectCORSError(
                notBuilt, status: 501, code: "signInWithIdp returnRefreshToken is not implemented in the Auth Emulator."
            )
            try await BlockingFunctionTests.configure(client, ["beforeCreate": BlockingFunctionTests.beforeCreate])
            let serverError = try await client.call(
                .post, "\(Self.toolkit)/v1/accounts:signUp", #"{"email":"bf@example.com","password":"secret123"}"#,
                headers: origin)
            Self.expectCORSError(
                serverError, status: 500,
                code:
                    "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Failed to make request to \(BlockingFunctionTests.beforeCreate).))"
            )
        }
    }

    @Test("503 from an emulator endpoint while the store is closed carries the origin")
    func unavailable() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try Harness(store: SQLiteStore(path: directory.appendingPathComponent("state.sqlite").path))
        try await harness.run { client in
            try harness.store.close()
            let ready = try await client.call(.get, "/readyz", key: false, headers: [.origin: Self.origin])
            Self.expectCORSError(
                ready, status: 503, code: "The emulator's database cannot be used: the store is not open")
        }
    }

    @Test(
        "CORS: every OPTIONS is a preflight (204, origin and headers reflected) for this machine's pages; a foreign origin only on client routes"
    )
    func cors() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let privateNetwork = HTTPField.Name("Access-Control-Request-Private-Network")!
            let requested = "Authorization,X-Client-Version,X-Whatever-Header"
            // firebase-tools' own test (no Access-Control-Request-Method, on the root path), from a
            // loopback origin: everything reflected, as there.
            let preflight = try await client.call(
                .options, "/", key: false,
                headers: [
                    .origin: "http://localhost:4000", .accessControlRequestHeaders: requested, privateNetwork: "true",
                ])
            #expect(preflight.status == 204)
            #expect(preflight.headers[.accessControlAllowOrigin] == "http://localhost:4000")
            #expect(preflight.headers[.accessControlAllowHeaders] == requested)
            #expect(preflight.headers[.accessControlAllowMethods] == "GET,HEAD,PUT,PATCH,POST,DELETE")
            #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] == nil)
            // The same from another origin (authemu diverges, docs/security.md): refused on any route
            // but the browser SDKs', which answer without credentials and without Authorization.
            let foreign = try await client.call(
                .options, "/", key: false,
                headers: [.origin: "example.com", .accessControlRequestHeaders: requested, privateNetwork: "true"])
            #expect(foreign.status == 403)
            #expect(foreign.headers[.accessControlAllowOrigin] == nil)
            let foreignClient = try await client.call(
                .options, "/identitytoolkit.googleapis.com/v1/accounts:signUp", key: false,
                headers: [.origin: "example.com", .accessControlRequestHeaders: requested, privateNetwork: "true"])
            #expect(foreignClient.status == 204)
            #expect(foreignClient.headers[.accessControlAllowOrigin] == "example.com")
            #expect(foreignClient.headers[.accessControlAllowCredentials] == nil)
            #expect(foreignClient.headers[.accessControlAllowHeaders] == "X-Client-Version, X-Whatever-Header")
            #expect(foreignClient.headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] == "true")
            // A browser's preflight of an API call, and one without an Origin (express `cors` answers it too).
            let api = try await client.call(
                .options, "/identitytoolkit.googleapis.com/v1/accounts:signUp", key: false,
                headers: [.origin: "http://localhost:5173", .accessControlRequestMethod: "POST"])
            #expect(api.status == 204)
            #expect(api.headers[.accessControlAllowOrigin] == "http://localhost:5173")
            #expect(api.headers[.accessControlAllowCredentials] == "true")
            let bare = try await client.call(.options, "/identitytoolkit.googleapis.com/v1/accounts:lookup", key: false)
            #expect(bare.status == 204)
            #expect(bare.headers[.accessControlAllowOrigin] == nil)
            // An actual request with an Origin gets it back; one without gets no CORS headers.
            let body = #"{"email":"cors@example.com","password":"secret123"}"#
            let signUp = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body,
                headers: [.origin: "http://localhost:5173"])
            #expect(signUp.status == 200)
            #expect(signUp.headers[.accessControlAllowOrigin] == "http://localhost:5173")
            let plain = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", body)
            #expect(plain.status == 200)
            #expect(plain.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
