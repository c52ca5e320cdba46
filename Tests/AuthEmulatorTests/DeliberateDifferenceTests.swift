import Foundation
import Testing

/// docs/endpoints.md's table "Where authemu answers as production, not as firebase-tools" and this
/// list of the deliberate differences, kept in step: each difference once, in the same order, with
/// the firebase-tools spec tests it explains. A difference added to one and not the other, or a
/// spec test named in one and not the other, fails here.
@Suite("Deliberate differences from firebase-tools")
struct DeliberateDifferenceTests {
    /// Each row's request (the start of its first cell) and the spec tests it explains, as
    /// `file "title"`.
    static let differences: [(request: String, specTests: [String])] = [
        ("Phone sign-in on a tenant", []),
        ("`mfaEnrollment:withdraw` of the factor that verified the current session", []),
        (
            "`accounts:update` (admin) with `mfa.enrollments` whose factor has no `mfaEnrollmentId`",
            [#"setAccountInfo.spec.ts "should error if mfaEnrollmentId is absent""#]
        ),
        ("Reading an account whose password hash was imported", []),
        ("`createAuthUri` for an address no account has", []),
        ("`v2/accounts:revokeToken` (Sign in with Apple)", []),
        ("`GET`, `PATCH` or `DELETE` of a tenant deleted through the API", []),
        ("`DELETE /emulator/v1/projects/{p}[/tenants/{t}]/accounts` (emulator API)", []),
        ("A request naming another project than the default", []),
        (
            "`sendOobCode` with `VERIFY_AND_CHANGE_EMAIL`",
            [
                #"oob.spec.ts "should generate OOB code for verify and change email""#,
                #"setAccountInfo.spec.ts "should update email when OOB flow of VERIFY_AND_CHANGE_EMAIL is initiated""#,
            ]
        ),
        (
            "A request from a page of another origin to a route the browser SDKs never call",
            [#"rest.spec.ts "should allow cross-origin requests""#]
        ),
    ]

    /// The rows of "Where production's answer depends on what the emulator cannot know", with the
    /// tests of Google's suites each explains.
    static let unknowable: [(request: String, suiteTests: [String])] = [
        (
            "`sendOobCode` with `canHandleCodeInApp` and a `linkDomain` the project does not own",
            [#"firebase-admin-python integration/test_auth.py "test_auth_error_parse""#]
        )
    ]

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The rows of the table under `heading`, each as its cells.
    static func tableRows(
        under heading: String = "## Where authemu answers as production, not as firebase-tools"
    ) throws -> [[String]] {
        let text = try String(contentsOf: repository.appendingPathComponent("docs/endpoints.md"), encoding: .utf8)
        guard let section = text.range(of: heading) else { return [] }
        let lines = text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        let table = lines.drop { !$0.hasPrefix("| Request") }.prefix { $0.hasPrefix("|") }.dropFirst(2)
        return table.map { line in
            line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
        }
    }

    @Test("every row of the table is a listed difference, in order, with the spec tests listed for it")
    func tableMatchesList() throws {
        let rows = try Self.tableRows()
        #expect(rows.count == Self.differences.count)
        for (row, difference) in zip(rows, Self.differences) {
            #expect(row.count == 5, "\(row.first ?? "")")
            #expect(row[0].hasPrefix(difference.request), "row \(row[0]) is not \(difference.request)")
            let named = row.last == "—" ? [] : row.last?.components(separatedBy: "; ") ?? []
            #expect(named == difference.specTests, "\(difference.request)")
        }
    }

    @Test("the differences production's knowledge decides are listed with the Google suite tests they explain")
    func unknowableMatchesList() throws {
        let rows = try Self.tableRows(under: "### Where production's answer depends on what the emulator cannot know")
        #expect(rows.count == Self.unknowable.count)
        for (row, difference) in zip(rows, Self.unknowable) {
            #expect(row.count == 5, "\(row.first ?? "")")
            #expect(row[0].hasPrefix(difference.request), "row \(row[0]) is not \(difference.request)")
            #expect(row.last?.components(separatedBy: "; ") == difference.suiteTests, "\(difference.request)")
        }
    }

    @Test("each spec test named exists in firebase-tools' suite (its titles, in ../shared/reference)")
    func specTestsExist() throws {
        let titles = Self.repository.deletingLastPathComponent()
            .appendingPathComponent("shared/reference/firebase-emulator-test-names.txt")
        guard let text = try? String(contentsOf: titles, encoding: .utf8) else { return }
        for name in Self.differences.flatMap(\.specTests) {
            let file = String(name.prefix { $0 != " " })
            let title = String(name.dropFirst(file.count + 2).dropLast())
            guard let section = text.range(of: "=== \(file) ") else {
                Issue.record("no spec file \(file)")
                continue
            }
            let rest = text[section.upperBound...]
            let end = rest.range(of: "\n===")?.lowerBound ?? rest.endIndex
            #expect(rest[..<end].contains("- \(title)\n"), "\(name)")
        }
    }
}
