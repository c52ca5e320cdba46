import Foundation
import Hummingbird

// The benchmark floor: the baseline server plus what a store must do per request, shaped like
// authemu's, and nothing else: no JSON is parsed and no token made. A `…:signInWithPassword` path
// stamps one user's sign-in time, any other POST stores a new user. Its CPU time per request bounds
// what any design on this HTTP stack and this store's driver can reach.
// - SQLite (`SQLiteFloor.swift`): one durable commit per request, as authemu's writer does.
// - PostgreSQL (`PostgresFloor.swift`): the statements authemu's PostgreSQL store sends.
// Usage: authemu-bench-floor PORT DATABASE-PATH | postgres://USER:PASSWORD@HOST:PORT/DATABASE
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let port = Int(arguments[0]) else {
    FileHandle.standardError.write(
        Data("usage: authemu-bench-floor PORT DATABASE-PATH|postgres://USER:PASSWORD@HOST:PORT/DATABASE\n".utf8))
    exit(64)
}
let store: any FloorStore =
    arguments[1].hasPrefix("postgres://")
    ? try await PostgresFloor(url: arguments[1]) : try SQLiteFloor(path: arguments[1])

/// What the floor does per request.
protocol FloorStore: Sendable {
    func signUp() async throws
    func signIn() async throws
}

let router = Router()
let answer = ByteBuffer(string: #"{"kind":"identitytoolkit#SignupNewUserResponse","localId":"floor"}"#)
router.post("**") { request, _ -> Response in
    _ = try await request.body.collect(upTo: 1 << 20)
    if request.uri.path.hasSuffix(":signInWithPassword") {
        try await store.signIn()
    } else {
        try await store.signUp()
    }
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
