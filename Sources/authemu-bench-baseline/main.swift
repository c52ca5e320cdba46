import Foundation
import Hummingbird

// The benchmark baseline: a bare Hummingbird server answering a fixed small JSON body on every
// path, so authemu's figures can be read as a ratio to the practical limit of this HTTP stack.
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 9199
let router = Router()
let body = ByteBuffer(string: #"{"kind":"identitytoolkit#SignupNewUserResponse","localId":"baseline"}"#)
let respond: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
    _ = try await request.body.collect(upTo: 1 << 20)
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
}
router.on("**", method: .post, use: respond)
router.on("**", method: .get, use: respond)
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
