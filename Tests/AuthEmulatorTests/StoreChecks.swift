import Foundation
import Testing

@testable import AuthEmulator

/// The checks of `runStoreConformance`, one per area of the store protocols.
enum StoreChecks {
    static func users(_ store: any AuthStore, _ label: Comment) async throws {
        #expect(await store.isReady(), label)
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
                try await tx.save(scope, user)
            }
            try await tx.save(tenant, UserRecord(localId: "a"))
        }
        let found = try await store.read { tx in
            (
                try await tx.user(scope, localId: "a")?.localId,
                try await tx.users(scope, email: "B@EXAMPLE.COM").map(\.localId),
                try await tx.user(scope, phoneNumber: "+15550000001")?.localId,
                try await tx.user(scope, providerId: "google.com", rawId: "g-c")?.localId,
                try await tx.listUsers(scope, after: "a", limit: 1, descending: false).map(\.localId),
                try await tx.listUsers(scope, after: nil, limit: nil, descending: true).map(\.localId),
                try await tx.countUsers(tenant), try await tx.user(tenant, localId: "b")?.localId
            )
        }
        #expect(found.0 == "a", label)
        #expect(found.1 == ["b"], label)
        #expect(found.2 == "a", label)
        #expect(found.3 == "c", label)
        #expect(found.4 == ["b"], label)
        #expect(found.5 == ["c", "b", "a"], label)
        #expect(found.6 == 1, label)
        #expect(found.7 == nil, label)
        let deleted = try await store.write { tx in
            (try await tx.deleteUser(scope, localId: "c"), try await tx.deleteUser(scope, localId: "c"))
        }
        #expect(deleted.0 == true && deleted.1 == false, label)
        #expect(
            try await store.read { tx in try await tx.user(scope, providerId: "google.com", rawId: "g-c") } == nil,
            label)
        let linked = try await store.read { tx in
            (
                try await tx.users(scope, providerEmail: "shared@IDP.com").map(\.localId),
                try await tx.users(scope, providerId: "google.com", limit: 1).map(\.localId),
                try await tx.users(tenant, providerEmail: "shared@idp.com").map(\.localId)
            )
        }
        #expect(linked.0 == ["a", "b"], label)
        #expect(linked.1 == ["a"], label)
        #expect(linked.2 == [], label)
        try await store.write { tx in try await tx.deleteAllUsers(scope) }
        let left = try await store.read { tx in
            (
                try await tx.countUsers(scope), try await tx.countUsers(tenant),
                try await tx.user(scope, providerId: "google.com", rawId: "g-a")
            )
        }
        #expect(left.0 == 0 && left.1 == 1 && left.2 == nil, label)
    }

    static func signInStampAndRereads(_ store: any AuthStore, _ label: Comment) async throws {
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
            try await tx.save(scope, user)
            user.displayName = "Tenant"
            try await tx.save(tenant, user)
        }
        // Read (and so cache) both, then stamp a sign-in on the top-level one.
        _ = try await store.read { tx in
            (try await tx.user(scope, localId: "u"), try await tx.user(tenant, localId: "u"))
        }
        try await store.write { tx in
            var user = try #require(try await tx.users(scope, email: "u@example.com").first)
            user.lastLoginAt = "1700000000123"
            user.lastRefreshAt = "2023-11-14T22:13:20.123Z"
            try await tx.saveSessionTimes(scope, user)
        }
        let stamped = try await store.read { tx in
            (try await tx.user(scope, localId: "u"), try await tx.user(tenant, localId: "u"))
        }
        // Listing decodes rows afresh: it must agree with what the lookups answered.
        let listed = try await store.read { tx in
            try await tx.listUsers(scope, after: nil, limit: nil, descending: false)
        }
        #expect(listed == [stamped.0].compactMap { $0 }, label)
        #expect(stamped.0?.lastLoginAt == "1700000000123", label)
        #expect(stamped.0?.lastRefreshAt == "2023-11-14T22:13:20.123Z", label)
        #expect(stamped.0?.displayName == "Top" && stamped.0?.email == "u@example.com", label)
        #expect(stamped.0?.mfaInfo?.map(\.mfaEnrollmentId) == ["p1", "t1"], label)
        #expect(stamped.1?.displayName == "Tenant" && stamped.1?.lastLoginAt == nil, label)
        try await store.write { tx in
            var user = try #require(try await tx.user(scope, localId: "u"))
            user.displayName = "Renamed"
            try await tx.save(scope, user)
        }
        let renamed = try await store.read { tx in try await tx.user(scope, localId: "u") }
        #expect(renamed?.displayName == "Renamed" && renamed?.lastLoginAt == "1700000000123", label)
    }

    static func rollback(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        await #expect(throws: AuthError.emailExists, label) {
            try await store.write { tx in
                try await tx.save(scope, UserRecord(localId: "half"))
                try await tx.saveProjectConfig(projectId: "p", .object(["half": true]))
                throw AuthError.emailExists
            }
        }
        let left = try await store.read { tx in
            (try await tx.user(scope, localId: "half"), try await tx.projectConfig(projectId: "p"))
        }
        #expect(left.0 == nil && left.1 == nil, label)
    }

    static func concurrentWrites(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        try await store.write { tx in
                            try await tx.save(scope, UserRecord(localId: "u\(index)"))
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
        #expect(outcomes.filter { $0 }.count == 150, label)
        let stored = try await store.read { tx in
            var found: [Int] = []
            for index in 0..<200 where try await tx.user(scope, localId: "u\(index)") != nil { found.append(index) }
            return found
        }
        #expect(stored == (0..<200).filter { $0 % 4 != 0 }, label)
    }

    static func resources(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p", tenantId: "t")
        let code = OobCode(email: "x@y.z", requestType: .verifyEmail, oobCode: "code1", oobLink: "http://l")
        let second = OobCode(email: "x@y.z", requestType: .passwordReset, oobCode: "code2", oobLink: "http://m")
        try await store.write { tx in
            for id in ["t3", "t2", "t1"] {
                try await tx.saveTenant(projectId: "p", tenantId: id, .object(["tenantId": .string(id)]))
            }
            try await tx.saveProjectConfig(projectId: "p", .object(["a": 1]))
            try await tx.saveProjectConfig(projectId: "p", .object(["a": 2]))
            try await tx.saveOobCode(scope, code)
            try await tx.saveOobCode(scope, second)
            try await tx.saveIdpConfig(scope, kind: "oauthIdpConfigs", id: "oidc.b", .object(["clientId": "b"]))
            try await tx.saveIdpConfig(scope, kind: "oauthIdpConfigs", id: "oidc.a", .object(["clientId": "c"]))
        }
        let read = try await store.read { tx in
            (
                try await tx.listTenants(projectId: "p", after: nil, limit: nil),
                try await tx.projectConfig(projectId: "p"),
                try await tx.listOobCodes(scope), try await tx.idpConfig(scope, kind: "oauthIdpConfigs", id: "oidc.a"),
                try await tx.listTenants(projectId: "p", after: "t1", limit: 1),
                try await tx.oobCode(scope, code: "code2"),
                try await tx.listIdpConfigs(scope, kind: "oauthIdpConfigs"),
                try await tx.tenant(projectId: "p", tenantId: "t2")
            )
        }
        #expect(read.0.count == 3 && read.0.first == .object(["tenantId": "t1"]), label)
        #expect(read.1 == .object(["a": 2]), label)
        #expect(read.2 == [code, second], label)
        #expect(read.3 == .object(["clientId": "c"]), label)
        #expect(read.4 == [.object(["tenantId": "t2"])], label)
        #expect(read.5 == second, label)
        #expect(read.6 == [.object(["clientId": "c"]), .object(["clientId": "b"])], label)
        #expect(read.7 == .object(["tenantId": "t2"]), label)
        // A replaced code moves to the end; deletions remove exactly what they name.
        let removed = try await store.write { tx in
            try await tx.saveOobCode(scope, code)
            let order = try await tx.listOobCodes(scope).map(\.oobCode)
            // The listing's entries are the codes' own, in the same order.
            #expect(
                JSONListing.body("l", try await tx.oobCodeEntries(scope))
                    == JSONListing.body("l", try await tx.listOobCodes(scope).map(\.listingEntry)), label)
            #expect(try await tx.listOobCodes(scope).count == 2, label)
            try await tx.deleteOobCode(scope, code: "code1")
            let afterOne = try await tx.listOobCodes(scope).map(\.oobCode)
            try await tx.deleteAllOobCodes(scope)
            return (
                order, afterOne, try await tx.listOobCodes(scope).count,
                try await tx.deleteTenant(projectId: "p", tenantId: "t2"),
                try await tx.deleteTenant(projectId: "p", tenantId: "t2"),
                try await tx.deleteIdpConfig(scope, kind: "oauthIdpConfigs", id: "oidc.b"),
                try await tx.deleteIdpConfig(scope, kind: "oauthIdpConfigs", id: "oidc.b")
            )
        }
        #expect(removed.0 == ["code2", "code1"] && removed.1 == ["code2"] && removed.2 == 0, label)
        #expect(removed.3 && !removed.4 && removed.5 && !removed.6, label)
        // A deleted tenant is remembered until it is saved again; one never saved is not deleted.
        let deleted = try await store.read { tx in
            (
                try await tx.tenantWasDeleted(projectId: "p", tenantId: "t2"),
                try await tx.tenantWasDeleted(projectId: "p", tenantId: "never"),
                try await tx.tenantWasDeleted(projectId: "other", tenantId: "t2")
            )
        }
        #expect(deleted == (true, false, false), label)
        try await store.write { tx in
            try await tx.saveTenant(projectId: "p", tenantId: "t2", .object(["tenantId": "t2"]))
        }
        #expect(
            try await store.read { tx in try await tx.tenantWasDeleted(projectId: "p", tenantId: "t2") } == false, label
        )
        // Removing every tenant of a project forgets those deleted before, in that project only.
        let afterAll = try await store.write { tx in
            _ = try await tx.deleteTenant(projectId: "p", tenantId: "t2")
            try await tx.saveTenant(projectId: "p", tenantId: "t3", .object(["tenantId": "t3"]))
            try await tx.saveTenant(projectId: "q", tenantId: "t4", .object(["tenantId": "t4"]))
            _ = try await tx.deleteTenant(projectId: "q", tenantId: "t4")
            try await tx.deleteAllTenants(projectId: "p")
            return (
                try await tx.tenantWasDeleted(projectId: "p", tenantId: "t2"),
                try await tx.listTenants(projectId: "p", after: nil, limit: nil).count,
                try await tx.tenantWasDeleted(projectId: "q", tenantId: "t4")
            )
        }
        #expect(afterAll == (false, 0, true), label)
    }

    static func inspectorReads(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        try await store.write { tx in
            for (id, email, phone) in [
                ("u3", "zed@example.com", "+15550003"), ("u1", "amy@example.com", "+15550001"),
                ("x9", "amos@example.com", "+44700900"),
            ] {
                var user = UserRecord(localId: id)
                user.email = email
                user.phoneNumber = phone
                try await tx.save(scope, user)
            }
            var named = UserRecord(localId: "d1")
            named.displayName = "Zelda Smith"
            try await tx.save(scope, named)
            try await tx.save(Scope(projectId: "q", tenantId: "t"), UserRecord(localId: "only"))
            try await tx.saveProjectConfig(projectId: "c", .object([:]))
        }
        #expect(
            try await store.read { tx in try await tx.projectIds(after: nil, limit: 10) } == ["c", "p", "q"], label)
        #expect(try await store.read { tx in try await tx.projectIds(after: "c", limit: 1) } == ["p"], label)
        #expect(try await store.read { tx in try await tx.projectIds(after: "q", limit: 10) } == [], label)
        #expect(
            try await store.read { tx in try await tx.tenantIds(projectId: "q", after: nil, limit: 10) } == ["t"], label
        )
        #expect(
            try await store.read { tx in try await tx.tenantIds(projectId: "p", after: nil, limit: 10) } == [], label)
        let searches = try await store.read { tx in
            (
                try await tx.searchUsers(scope, prefix: "AM", after: nil, limit: 10).map(\.localId),
                try await tx.searchUsers(scope, prefix: "u", after: nil, limit: 10).map(\.localId),
                try await tx.searchUsers(scope, prefix: "+1555", after: "u1", limit: 1).map(\.localId),
                try await tx.searchUsers(scope, prefix: "zEL", after: nil, limit: 10).map(\.localId)
            )
        }
        #expect(searches.0 == ["u1", "x9"], label)
        #expect(searches.1 == ["u1", "u3"], label)
        #expect(searches.2 == ["u3"], label)
        #expect(searches.3 == ["d1"], label)
    }

    static func clockSetting(_ store: any AuthStore, _ label: Comment) async throws {
        #expect(try await store.read { tx in try await tx.clockSetting() } == .real, label)
        try await store.write { tx in try await tx.saveClockSetting(ClockSetting(offsetSeconds: 3601.5)) }
        #expect(
            try await store.read { tx in try await tx.clockSetting() } == ClockSetting(offsetSeconds: 3601.5), label)
        let frozen = ClockSetting(offsetSeconds: -60, frozenAt: Date(timeIntervalSince1970: 1_893_456_000.25))
        try await store.write { tx in try await tx.saveClockSetting(frozen) }
        #expect(try await store.read { tx in try await tx.clockSetting() } == frozen, label)
        try await store.write { tx in try await tx.saveClockSetting(.real) }
        #expect(try await store.read { tx in try await tx.clockSetting() } == .real, label)
    }
}
