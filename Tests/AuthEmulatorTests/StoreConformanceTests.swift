import AuthEmulator
import Foundation
import Testing

@testable import AuthEmulatorSQLite

/// One suite every store must pass (Dex-style), run on file and in-memory SQLite.
@Suite("Store conformance")
struct StoreConformanceTests {
    static func stores() throws -> [(String, SQLiteStore)] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authemu-\(UUID().uuidString)")
        return [
            ("memory", try SQLiteStore()),
            ("file", try SQLiteStore(path: directory.appendingPathComponent("s.sqlite").path)),
        ]
    }

    @Test("users: save, find by id/email/phone/federated id, list in order, delete")
    func users() async throws {
        for (name, store) in try Self.stores() {
            let scope = Scope(projectId: "p")
            let tenant = Scope(projectId: "p", tenantId: "t")
            try await store.write { tx in
                for id in ["c", "a", "b"] {
                    var user = UserRecord(localId: id)
                    user.email = "\(id)@Example.com"
                    user.phoneNumber = "+1555000000\(id == "a" ? 1 : 2)"
                    user.providerUserInfo = [
                        ProviderUserInfo(providerId: "google.com", rawId: "g-\(id)", email: "Shared@Idp.com")
                    ]
                    try tx.save(scope, user)
                }
                try tx.save(tenant, UserRecord(localId: "a"))
            }
            let found = try await store.read { tx in
                (
                    try tx.user(scope, localId: "a")?.localId,
                    try tx.users(scope, email: "B@EXAMPLE.COM").map(\.localId),
                    try tx.user(scope, phoneNumber: "+15550000001")?.localId,
                    try tx.user(scope, providerId: "google.com", rawId: "g-c")?.localId,
                    try tx.listUsers(scope, after: "a", limit: 1, descending: false).map(\.localId),
                    try tx.listUsers(scope, after: nil, limit: nil, descending: true).map(\.localId),
                    try tx.countUsers(tenant), try tx.user(tenant, localId: "b")?.localId
                )
            }
            #expect(found.0 == "a", "\(name)")
            #expect(found.1 == ["b"], "\(name)")
            #expect(found.2 == "a", "\(name)")
            #expect(found.3 == "c", "\(name)")
            #expect(found.4 == ["b"], "\(name)")
            #expect(found.5 == ["c", "b", "a"], "\(name)")
            #expect(found.6 == 1, "\(name)")
            #expect(found.7 == nil, "\(name)")
            let deleted = try await store.write { tx in
                (try tx.deleteUser(scope, localId: "c"), try tx.deleteUser(scope, localId: "c"))
            }
            #expect(deleted.0 == true && deleted.1 == false, "\(name)")
            let gone = try await store.read { tx in try tx.user(scope, providerId: "google.com", rawId: "g-c") }
            #expect(gone == nil, "\(name)")
            let linked = try await store.read { tx in
                (
                    try tx.users(scope, providerEmail: "shared@IDP.com").map(\.localId),
                    try tx.users(scope, providerId: "google.com", limit: 1).map(\.localId),
                    try tx.users(tenant, providerEmail: "shared@idp.com").map(\.localId)
                )
            }
            #expect(linked.0 == ["a", "b"], "\(name)")
            #expect(linked.1 == ["a"], "\(name)")
            #expect(linked.2 == [], "\(name)")
        }
    }

    @Test("a sign-in stamp changes only the timestamps; reads after any write see the stored record")
    func signInStampAndRereads() async throws {
        for (name, store) in try Self.stores() {
            let scope = Scope(projectId: "p")
            let tenant = Scope(projectId: "p", tenantId: "t")
            try await store.write { tx in
                var user = UserRecord(localId: "u")
                user.email = "u@example.com"
                user.displayName = "Top"
                user.customAttributes = #"{"role":"admin","n":1.5}"#
                user.passwordHash = "aGFzaA=="
                user.salt = "c2FsdA=="
                user.providerUserInfo = [ProviderUserInfo(providerId: "password", rawId: "u@example.com")]
                user.passwordUpdatedAt = 1_700_000_000_001.5
                user.mfaInfo = [
                    MfaEnrollment(mfaEnrollmentId: "p1", displayName: "phone", phoneInfo: "+15550001111"),
                    MfaEnrollment(mfaEnrollmentId: "t1", totpInfo: .object([:]), totpSecret: "JBSWY3DPEHPK3PXP"),
                ]
                try tx.save(scope, user)
                user.displayName = "Tenant"
                try tx.save(tenant, user)
            }
            // Read (and so cache) both, then stamp a sign-in on the top-level one.
            _ = try await store.read { tx in (try tx.user(scope, localId: "u"), try tx.user(tenant, localId: "u")) }
            try await store.write { tx in
                var user = try #require(try tx.users(scope, email: "u@example.com").first)
                user.lastLoginAt = "1700000000123"
                user.lastRefreshAt = "2023-11-14T22:13:20.123Z"
                try tx.saveSessionTimes(scope, user)
            }
            let stamped = try await store.read { tx in
                (try tx.user(scope, localId: "u"), try tx.user(tenant, localId: "u"))
            }
            // Listing decodes rows afresh: it must agree with what the lookups answered (records
            // cached at save and at the stamp included).
            let listed = try await store.read { tx in try tx.listUsers(scope, after: nil, limit: nil, descending: false)
            }
            #expect(listed == [stamped.0].compactMap { $0 }, "\(name)")
            #expect(stamped.0?.lastLoginAt == "1700000000123", "\(name)")
            #expect(stamped.0?.lastRefreshAt == "2023-11-14T22:13:20.123Z", "\(name)")
            #expect(stamped.0?.displayName == "Top" && stamped.0?.email == "u@example.com", "\(name)")
            #expect(stamped.1?.displayName == "Tenant" && stamped.1?.lastLoginAt == nil, "\(name)")
            // A full write after the stamp is what the next read returns.
            try await store.write { tx in
                var user = try #require(try tx.user(scope, localId: "u"))
                user.displayName = "Renamed"
                try tx.save(scope, user)
            }
            let renamed = try await store.read { tx in try tx.user(scope, localId: "u") }
            #expect(renamed?.displayName == "Renamed" && renamed?.lastLoginAt == "1700000000123", "\(name)")
        }
    }

    @Test("a failing write transaction leaves nothing behind")
    func rollback() async throws {
        for (name, store) in try Self.stores() {
            let scope = Scope(projectId: "p")
            await #expect(throws: AuthError.emailExists) {
                try await store.write { tx in
                    try tx.save(scope, UserRecord(localId: "half"))
                    throw AuthError.emailExists
                }
            }
            let user = try await store.read { tx in try tx.user(scope, localId: "half") }
            #expect(user == nil, "\(name)")
        }
    }

    @Test("concurrent writes (run in place or waiting suspended) all land; failing ones leave nothing")
    func concurrentWrites() async throws {
        for (name, store) in try Self.stores() {
            let scope = Scope(projectId: "p")
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do {
                            try await store.write { tx in
                                try tx.save(scope, UserRecord(localId: "u\(index)"))
                                if index % 4 == 0 { throw AuthError.emailExists }
                            }
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 150, "\(name)")
            let stored = try await store.read { tx in
                (0..<200).filter { (try? tx.user(scope, localId: "u\($0)")) != nil }
            }
            #expect(stored == (0..<200).filter { $0 % 4 != 0 }, "\(name)")
        }
    }

    @Test("writes that queue behind a running one commit together; each gets its own result or error")
    func groupCommit() async throws {
        for (name, store) in try Self.stores() {
            let scope = Scope(projectId: "p")
            let started = Flag()
            let gate = DispatchSemaphore(value: 0)
            let first = Task {
                try await store.write { tx in
                    try tx.save(scope, UserRecord(localId: "first"))
                    started.set()
                    gate.wait()
                    return -1
                }
            }
            while !started.isSet { await Task.yield() }
            let before = store.groupCommit.statistics
            let queued = (0..<20).map { index in
                Task {
                    try await store.write { tx in
                        try tx.save(scope, UserRecord(localId: "u\(index)"))
                        if index % 4 == 0 { throw AuthError.emailExists }
                        return index
                    }
                }
            }
            while store.groupCommit.waitingCount < 20 { await Task.yield() }
            gate.signal()
            #expect(try await first.value == -1, "\(name)")
            for (index, task) in queued.enumerated() {
                if index % 4 == 0 {
                    await #expect(throws: AuthError.emailExists) { try await task.value }
                } else {
                    #expect(try await task.value == index, "\(name)")
                }
            }
            let after = store.groupCommit.statistics
            #expect(after.batches - before.batches == 2, "\(name)")
            #expect(after.writes - before.writes == 21, "\(name)")
            let stored = try await store.read { tx in
                try tx.listUsers(scope, after: nil, limit: nil, descending: false).map(\.localId)
            }
            let expected = ["first"] + (0..<20).filter { $0 % 4 != 0 }.map { "u\($0)" }
            #expect(stored == expected.sorted(), "\(name)")
        }
    }

    @Test("tenants, configs, OOB codes and IdP configs round-trip")
    func resources() async throws {
        for (name, store) in try Self.stores() {
            let scope = Scope(projectId: "p", tenantId: "t")
            let code = OobCode(email: "x@y.z", requestType: .verifyEmail, oobCode: "code1", oobLink: "http://l")
            try await store.write { tx in
                try tx.saveTenant(projectId: "p", tenantId: "t2", .object(["tenantId": "t2"]))
                try tx.saveTenant(projectId: "p", tenantId: "t1", .object(["tenantId": "t1"]))
                try tx.saveProjectConfig(projectId: "p", .object(["a": 1]))
                try tx.saveOobCode(scope, code)
                try tx.saveIdpConfig(scope, kind: "oauthIdpConfigs", id: "oidc.a", .object(["clientId": "c"]))
            }
            let read = try await store.read { tx in
                (
                    try tx.listTenants(projectId: "p", after: nil, limit: nil), try tx.projectConfig(projectId: "p"),
                    try tx.listOobCodes(scope), try tx.idpConfig(scope, kind: "oauthIdpConfigs", id: "oidc.a")
                )
            }
            #expect(read.0 == [.object(["tenantId": "t1"]), .object(["tenantId": "t2"])], "\(name)")
            #expect(read.1 == .object(["a": 1]), "\(name)")
            #expect(read.2 == [code], "\(name)")
            #expect(read.3 == .object(["clientId": "c"]), "\(name)")
        }
    }

    @Test("inspector reads: project ids of every table; users by uid, email, phone or display-name prefix, by uid, paged")
    func inspectorReads() async throws {
        for (name, store) in try Self.stores() {
            let scope = Scope(projectId: "p")
            try await store.write { tx in
                for (id, email, phone) in [
                    ("u3", "zed@example.com", "+15550003"), ("u1", "amy@example.com", "+15550001"),
                    ("x9", "amos@example.com", "+44700900"),
                ] {
                    var user = UserRecord(localId: id)
                    user.email = email
                    user.phoneNumber = phone
                    try tx.save(scope, user)
                }
                var named = UserRecord(localId: "d1")
                named.displayName = "Zelda Smith"
                try tx.save(scope, named)
                try tx.save(Scope(projectId: "q", tenantId: "t"), UserRecord(localId: "only"))
                try tx.saveProjectConfig(projectId: "c", .object([:]))
            }
            #expect(try await store.read { tx in try tx.projectIds() } == ["c", "p", "q"], "\(name)")
            let byEmail = try await store.read { tx in try tx.searchUsers(scope, prefix: "AM", after: nil, limit: 10) }
            #expect(byEmail.map(\.localId) == ["u1", "x9"], "\(name)")
            let byUid = try await store.read { tx in try tx.searchUsers(scope, prefix: "u", after: nil, limit: 10) }
            #expect(byUid.map(\.localId) == ["u1", "u3"], "\(name)")
            let byPhone = try await store.read { tx in try tx.searchUsers(scope, prefix: "+1555", after: "u1", limit: 1)
            }
            #expect(byPhone.map(\.localId) == ["u3"], "\(name)")
            let byName = try await store.read { tx in try tx.searchUsers(scope, prefix: "zEL", after: nil, limit: 10) }
            #expect(byName.map(\.localId) == ["d1"], "\(name)")
        }
    }

    @Test("the clock offset: 0 until saved, then what was saved, replaced by the next save")
    func clockOffset() async throws {
        for (name, store) in try Self.stores() {
            #expect(try await store.read { tx in try tx.clockOffset() } == 0, "\(name)")
            try await store.write { tx in try tx.saveClockOffset(3601.5) }
            #expect(try await store.read { tx in try tx.clockOffset() } == 3601.5, "\(name)")
            try await store.write { tx in try tx.saveClockOffset(-60) }
            #expect(try await store.read { tx in try tx.clockOffset() } == -60, "\(name)")
        }
    }

    @Test("a file from a newer authemu is refused and not modified")
    func newerSchemaRefused() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authemu-\(UUID().uuidString).sqlite")
            .path
        let store = try SQLiteStore(path: path)
        try await store.write { tx in try tx.saveProjectConfig(projectId: "p", .object([:])) }
        try store.close()
        try SQLiteStore.recordMigrationForTesting(path: path, identifier: "v999-from-the-future")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreOpenError.self) { try SQLiteStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

/// A flag one task sets and another polls.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
