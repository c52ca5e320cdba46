import AuthEmulator
import Foundation
import Testing

/// The daemon's hand-over of redirect IdP results from the sign-in page to the helper iframe.
@Suite("IdP redirect results kept by the daemon")
struct IdpRedirectEventTests {
    static let store = "/emulator/auth/redirectEvents"
    static let take = "/emulator/auth/redirectEvents:take"

    static func event(_ eventId: String) -> String {
        #"{"type":"signInViaRedirect","eventId":"\#(eventId)","urlResponse":"http://127.0.0.1:9099/emulator/auth/handler?providerId=google.com&id_token=%7B%7D","sessionId":"s1","postBody":"","tenantId":null,"error":null}"#
    }

    @Test("a result is taken once, by the same app and origin only, newest first")
    func takenOnce() async throws {
        try await Harness().run { client in
            for eventId in ["e1", "e2"] {
                let stored = try await client.call(
                    .post, Self.store,
                    #"{"apiKey":"k","appName":"[DEFAULT]","appOrigin":"http://localhost:3000","eventId":"\#(eventId)","sessionId":"s1","authEvent":\#(Self.event(eventId))}"#,
                    key: false)
                #expect(stored.status == 200)
                #expect(stored.json == .object([:]))
            }
            let otherOrigin = try await client.call(
                .post, Self.take, #"{"apiKey":"k","appName":"[DEFAULT]","appOrigin":"http://localhost:3001"}"#,
                key: false)
            #expect(otherOrigin.json == .object(["authEvent": .null]))
            let otherApp = try await client.call(
                .post, Self.take, #"{"apiKey":"k","appName":"other","appOrigin":"http://localhost:3000"}"#, key: false)
            #expect(otherApp.json == .object(["authEvent": .null]))
            // The origin as `location.ancestorOrigins` gives it; a trailing slash and upper case are the same.
            let newest = try await client.call(
                .post, Self.take, #"{"apiKey":"k","appName":"[DEFAULT]","appOrigin":"HTTP://LOCALHOST:3000/"}"#,
                key: false)
            #expect(newest.status == 200)
            #expect(newest.json == .object(["authEvent": try JSONValue.parse(Data(Self.event("e2").utf8))]))
            let older = try await client.call(
                .post, Self.take, #"{"apiKey":"k","appName":"[DEFAULT]","appOrigin":"http://localhost:3000"}"#,
                key: false)
            #expect(older["authEvent.eventId"] == "e1")
            let none = try await client.call(
                .post, Self.take, #"{"apiKey":"k","appName":"[DEFAULT]","appOrigin":"http://localhost:3000"}"#,
                key: false)
            #expect(none.json == .object(["authEvent": .null]))
        }
    }

    @Test("results expire after ten minutes of the emulator's clock")
    func expiry() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let stored = try await client.call(
                .post, Self.store,
                #"{"apiKey":"k","appName":"a","appOrigin":"http://localhost:3000","authEvent":\#(Self.event("e"))}"#,
                key: false)
            #expect(stored.status == 200)
            harness.clock.advance(by: 601)
            let taken = try await client.call(
                .post, Self.take, #"{"apiKey":"k","appName":"a","appOrigin":"http://localhost:3000"}"#, key: false)
            #expect(taken.json == .object(["authEvent": .null]))
        }
    }

    @Test("what is kept is bounded: 16 KiB an event, the newest 10 per app and origin, 1,000 in all")
    func bounded() async throws {
        try await Harness().run { client in
            func put(_ app: String, _ eventId: String, padding: Int = 0) async throws -> Harness.Reply {
                let event =
                    #"{"type":"signInViaRedirect","eventId":"\#(eventId)","postBody":"\#(String(repeating: "x", count: padding))"}"#
                return try await client.call(
                    .post, Self.store,
                    #"{"apiKey":"k","appName":"\#(app)","appOrigin":"http://localhost:3000","authEvent":\#(event)}"#,
                    key: false)
            }
            let large = try await put("a", "big", padding: 16 * 1024)
            #expect(large.status == 400)
            #expect(large.errorMessage == "AUTH_EVENT_TOO_LARGE : A redirect event may take at most 16384 bytes.")
            #expect(try await put("a", "fits", padding: 15 * 1024).status == 200)
            for index in 1...12 { try await put("a", "e\(index)").ok() }
            func take(_ app: String) async throws -> JSONValue? {
                try await client.call(
                    .post, Self.take, #"{"apiKey":"k","appName":"\#(app)","appOrigin":"http://localhost:3000"}"#,
                    key: false)["authEvent.eventId"]
            }
            var taken: [JSONValue] = []
            while let eventId = try await take("a") { taken.append(eventId) }
            #expect(taken == (3...12).reversed().map { .string("e\($0)") })
            for index in 1...1001 { try await put("app\(index)", "e").ok() }
            #expect(try await take("app1") == nil)  // the oldest went first
            #expect(try await take("app2") == "e")
        }
    }

    @Test("bad requests: no apiKey, no appName, an origin that is not one, no event object")
    func badRequests() async throws {
        try await Harness().run { client in
            let cases: [(String, String, String)] = [
                (
                    Self.store, #"{"appName":"a","appOrigin":"http://x","authEvent":{}}"#,
                    "MISSING_API_KEY : apiKey is required."
                ),
                (Self.take, #"{"apiKey":"k","appOrigin":"http://x"}"#, "MISSING_APP_NAME : appName is required."),
                (
                    Self.take, #"{"apiKey":"k","appName":"a","appOrigin":"http://x/path"}"#,
                    "INVALID_APP_ORIGIN : appOrigin must be an http(s) origin."
                ),
                (
                    Self.store, #"{"apiKey":"k","appName":"a","appOrigin":"javascript:alert(1)","authEvent":{}}"#,
                    "INVALID_APP_ORIGIN : appOrigin must be an http(s) origin."
                ),
                (
                    Self.store, #"{"apiKey":"k","appName":"a","appOrigin":"http://x","authEvent":"x"}"#,
                    "MISSING_AUTH_EVENT : authEvent must be an object."
                ),
            ]
            for (path, body, message) in cases {
                let reply = try await client.call(.post, path, body, key: false)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.errorMessage == message, "\(body)")
            }
        }
    }

    @Test("the widget pages declare no globals that replace the browser's (parent, stop, name)")
    func noShadowingGlobals() async throws {
        try await Harness().run { client in
            for path in ["/emulator/auth/iframe", "/emulator/auth/handler?apiKey=k&appName=a&providerId=google.com"] {
                let page = try await client.call(.get, path, key: false)
                #expect(page.status == 200)
                let html = page.json.stringValue ?? ""
                #expect(html.contains("(function () {"), "\(path)")
                for global in ["var parent", "function stop", "var name ="] {
                    #expect(!html.contains("\n\(global)"), "\(path): \(global)")
                }
            }
        }
    }
}
