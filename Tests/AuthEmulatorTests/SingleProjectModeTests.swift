import AuthEmulator
import Testing

/// firebase-tools' `singleProjectMode` (`single_project`): other project ids served quietly, with a
/// warning, or refused with its 400.
@Suite("single project mode")
struct SingleProjectModeTests {
    static let refusal =
        "Multiple projectIds are not recommended in single project mode. Requested project ID other, but the "
        + "emulator is configured for example. To opt-out of single project mode add/set the 'singleProjectMode' "
        + "false property in the firebase.json emulators config."

    @Test("error refuses a request for another project with firebase-tools' text; the default project is served")
    func errorMode() async throws {
        try await Harness(singleProject: .error).run { client in
            let other = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/projects/other/accounts:query", "{}", admin: true)
            #expect(other.status == 400)
            #expect(other.errorMessage == Self.refusal)
            let item: JSONValue = .object([
                "message": .string(Self.refusal), "reason": .string("invalid"), "domain": .string("global"),
            ])
            #expect(other["error.errors"] == .array([item]))
            let own = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/projects/example/accounts:query", "{}", admin: true)
            #expect(own.status == 200)
            let signedUp = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                #"{"email":"a@example.com","password":"secret1"}"#)
            #expect(signedUp.status == 200)
        }
    }

    @Test("warn and off serve other projects")
    func servingModes() async throws {
        for mode in [SingleProjectMode.warn, .off] {
            try await Harness(singleProject: mode).run { client in
                let other = try await client.call(
                    .post, "/identitytoolkit.googleapis.com/v1/projects/other/accounts:query", "{}", admin: true)
                #expect(other.status == 200)
                #expect(other["recordsCount"] == "0")
            }
        }
    }
}
