import Foundation
import Testing

@testable import AuthEmulator

extension StoreChecks {
    static func sms(
        _ phone: String, _ session: String, purpose: SmsPurpose = .signIn, scope: Scope = Scope(projectId: "p"),
        ip: String? = "10.0.0.1", sentAt: Double = 1_700_000_000
    ) -> SmsMessage {
        SmsMessage(
            id: 0, projectId: scope.projectId, tenantId: scope.tenantId, phoneNumber: phone, code: "123456",
            text: "code", purpose: purpose, usedFor: nil, sessionInfo: session,
            sentAt: Date(timeIntervalSince1970: sentAt), expiresAt: Date(timeIntervalSince1970: sentAt + 300),
            status: .pending, testNumber: false, attempts: 0, verificationPath: "none", localId: nil,
            mfaEnrollmentId: nil, clientIP: ip)
    }

    static func smsOutbox(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        let tenant = Scope(projectId: "p", tenantId: "t")
        let stored = try await store.write { tx in
            [
                try await tx.insertSms(sms("+15550001", "s1", sentAt: 1_700_000_000)),
                try await tx.insertSms(sms("+15550001", "s2", purpose: .mfaSignIn, sentAt: 1_700_000_100)),
                try await tx.insertSms(sms("+15550002", "s3", ip: "10.0.0.2", sentAt: 1_700_000_200)),
                try await tx.insertSms(sms("+15550001", "s4", scope: tenant, sentAt: 1_700_000_300)),
            ]
        }
        let ids = stored.map(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == 4 && ids[0] > 0, label)
        try await store.write { tx in
            var used = stored[0]
            used.status = .used
            used.attempts = 2
            try await tx.updateSms(used)
        }
        let read = try await store.read { tx in
            (
                try await tx.sms(sessionInfo: "s1"), try await tx.listSms(scope, SmsQuery()).map(\.sessionInfo),
                try await tx.listSms(scope, SmsQuery(phoneNumber: "+15550001")).map(\.sessionInfo),
                try await tx.listSms(scope, SmsQuery(purpose: .mfaSignIn)).map(\.sessionInfo),
                try await tx.listSms(scope, SmsQuery(afterId: ids[0], limit: 1)).map(\.sessionInfo),
                try await tx.listSms(scope, SmsQuery(statuses: [.pending])).map(\.sessionInfo),
                try await tx.listSms(tenant, SmsQuery()).map(\.sessionInfo),
                try await tx.countSms(phoneNumber: "+15550001", since: Date(timeIntervalSince1970: 1_700_000_050)),
                try await tx.countSms(clientIP: "10.0.0.1", since: Date(timeIntervalSince1970: 0)),
                try await tx.sms(sessionInfo: "missing")
            )
        }
        #expect(read.0?.status == .used && read.0?.attempts == 2 && read.0?.id == ids[0], label)
        #expect(read.0?.sentAt == Date(timeIntervalSince1970: 1_700_000_000), label)
        #expect(read.1 == ["s1", "s2", "s3"], label)
        #expect(read.2 == ["s1", "s2"], label)
        #expect(read.3 == ["s2"], label)
        #expect(read.4 == ["s2"], label)
        #expect(read.5 == ["s2", "s3"], label)
        #expect(read.6 == ["s4"], label)
        #expect(read.7 == 2, label)
        #expect(read.8 == 3, label)
        #expect(read.9 == nil, label)
        // The listings' entries are the records' own, in the same order, for every filter (a store
        // may hand runs of them joined); the pending codes leave out used and expired ones (s2
        // expires at 1_700_000_400).
        @Sendable func body(_ entries: [Data]) -> String {
            String(decoding: JSONListing.body("l", entries), as: UTF8.self)
        }
        let listings = try await store.read { tx in
            (
                body(try await tx.listSms(scope, SmsQuery()).map(\.listingEntry)),
                body(try await tx.smsEntries(scope, SmsQuery())),
                body(
                    try await tx.listSms(scope, SmsQuery(phoneNumber: "+15550001", afterId: 0, limit: 5)).map(
                        \.listingEntry)),
                body(try await tx.smsEntries(scope, SmsQuery(phoneNumber: "+15550001", afterId: 0, limit: 5))),
                body(try await tx.pendingCodeEntries(scope, now: Date(timeIntervalSince1970: 1_700_000_350)).entries),
                body(try await tx.pendingCodeEntries(scope, now: Date(timeIntervalSince1970: 1_700_000_450)).entries),
                body(try await tx.pendingCodeEntries(tenant, now: Date(timeIntervalSince1970: 0)).entries),
                body(try await tx.smsEntries(tenant, SmsQuery(phoneNumber: "+15559999")))
            )
        }
        #expect(listings.0 == listings.1 && listings.1.components(separatedBy: #""sessionInfo""#).count == 4, label)
        #expect(listings.2 == listings.3 && listings.3.components(separatedBy: #""sessionInfo""#).count == 3, label)
        #expect(listings.4 == body([stored[1].codeEntry, stored[2].codeEntry]), label)
        #expect(listings.5 == body([stored[2].codeEntry]), label)
        #expect(listings.6 == #"{"l":[{"code":"123456","phoneNumber":"+15550001","sessionInfo":"s4"}]}"#, label)
        #expect(listings.7 == #"{"l":[]}"#, label)
        // The earliest expiry of what is listed: s2's, then s3's; none when nothing is listed.
        let expiries = try await store.read { tx in
            [
                try await tx.pendingCodeEntries(scope, now: Date(timeIntervalSince1970: 1_700_000_350)),
                try await tx.pendingCodeEntries(scope, now: Date(timeIntervalSince1970: 1_700_000_450)),
                try await tx.pendingCodeEntries(scope, now: Date(timeIntervalSince1970: 1_700_000_550)),
            ].map { $0.earliestExpiry?.timeIntervalSince1970 }
        }
        #expect(expiries == [1_700_000_400, 1_700_000_500, nil], label)
        try await store.write { tx in try await tx.deleteAllSms(scope) }
        let left = try await store.read { tx in
            (try await tx.listSms(scope, SmsQuery()), try await tx.listSms(tenant, SmsQuery()))
        }
        #expect(left.0.isEmpty && left.1.count == 1, label)
    }

    static func proofsAndTotpSessions(_ store: any AuthStore, _ label: Comment) async throws {
        let proof = TemporaryProof(
            proof: "proof-1", projectId: "p", tenantId: "t", phoneNumber: "+15550001",
            expiresAt: Date(timeIntervalSince1970: 1_700_000_000))
        let enrollment = TotpEnrollmentSession(
            sessionInfo: "totp-1", projectId: "p", tenantId: nil, localId: "u", secret: "JBSWY3DPEHPK3PXP",
            expiresAt: Date(timeIntervalSince1970: 1_700_000_600))
        try await store.write { tx in
            try await tx.saveTemporaryProof(proof)
            try await tx.saveTotpSession(enrollment)
            var replaced = enrollment
            replaced.secret = "KRSXG5CTMVRXEZLU"
            try await tx.saveTotpSession(replaced)
        }
        let read = try await store.read { tx in
            (
                try await tx.temporaryProof("proof-1"), try await tx.totpSession("totp-1"),
                try await tx.temporaryProof("other")
            )
        }
        #expect(read.0 == proof, label)
        #expect(read.1?.secret == "KRSXG5CTMVRXEZLU" && read.1?.localId == "u", label)
        #expect(read.2 == nil, label)
        try await store.write { tx in
            try await tx.deleteTemporaryProof("proof-1")
            try await tx.deleteTotpSession("totp-1")
        }
        let gone = try await store.read { tx in
            (try await tx.temporaryProof("proof-1"), try await tx.totpSession("totp-1"))
        }
        #expect(gone.0 == nil && gone.1 == nil, label)
    }

    static func appVerification(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        let credential = IssuedCredential(
            token: "tok", kind: .recaptchaV2, projectId: "p", tenantId: nil, secret: nil, appToken: nil, valid: true,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        let push = ApnsPush(
            id: 0, projectId: "p", tenantId: nil, deviceToken: "device", isSandbox: true, receipt: "r1", secret: "s1",
            sentAt: Date(timeIntervalSince1970: 1_700_000_000))
        let pushes = try await store.write { tx in
            try await tx.saveCredential(credential)
            var invalid = credential
            invalid.valid = false
            try await tx.saveCredential(invalid)
            try await tx.setFault(scope, .credential, count: 2)
            var other = push
            other.tenantId = "t"
            return [try await tx.insertPush(push), try await tx.insertPush(push), try await tx.insertPush(other)]
        }
        #expect(pushes[0].id < pushes[1].id && pushes[1].id < pushes[2].id, label)
        let read = try await store.read { tx in
            (
                try await tx.credential("tok")?.valid, try await tx.credential("none"),
                try await tx.listPushes(scope, afterId: nil, limit: nil),
                try await tx.listPushes(scope, afterId: pushes[0].id, limit: 5).map(\.id),
                try await tx.listPushes(scope, afterId: nil, limit: 1).map(\.id)
            )
        }
        #expect(read.0 == false && read.1 == nil, label)
        #expect(read.2 == [pushes[0], pushes[1]], label)
        #expect(read.3 == [pushes[1].id] && read.4 == [pushes[0].id], label)
        let taken = try await store.write { tx in
            [
                try await tx.takeFault(scope, .credential), try await tx.takeFault(scope, .credential),
                try await tx.takeFault(scope, .credential), try await tx.takeFault(scope, .apnsPush),
            ]
        }
        #expect(taken == [true, true, false, false], label)
        let player = InjectedFault.gameCenter.key(subject: "T:1")
        let subjects = try await store.write { tx in
            try await tx.setFault(scope, key: player, count: 1)
            try await tx.setFault(scope, .gameCenter, count: 1)
            let first = [try await tx.takeFault(scope, key: player), try await tx.takeFault(scope, key: player)]
            try await tx.setFault(scope, key: player, count: 3)
            try await tx.clearFaults(scope)
            return first + [try await tx.takeFault(scope, key: player), try await tx.takeFault(scope, .gameCenter)]
        }
        #expect(player == "GAME_CENTER:T:1", label)
        #expect(subjects == [true, false, false, false], label)
        try await store.write { tx in try await tx.deletePushes(scope) }
        let left = try await store.read { tx in
            (
                try await tx.listPushes(scope, afterId: nil, limit: nil).count,
                try await tx.listPushes(Scope(projectId: "p", tenantId: "t"), afterId: nil, limit: nil).count
            )
        }
        #expect(left.0 == 0 && left.1 == 1, label)
    }

    static func signingKeys(_ store: any AuthStore, _ label: Comment) async throws {
        #expect(try await store.read { tx in try await tx.signingKey() } == nil, label)
        let old = StoredSigningKey(kid: "old", privateKeyPEM: "a", certificatePEM: "b", createdAt: 1_700_000_000)
        let new = StoredSigningKey(kid: "new", privateKeyPEM: "c", certificatePEM: "d", createdAt: 1_700_000_100)
        try await store.write { tx in
            try await tx.saveSigningKey(new)
            try await tx.saveSigningKey(old)
        }
        #expect(try await store.read { tx in try await tx.signingKey() } == new, label)
        // The token secret: stored once; a second save (another daemon starting) keeps the first.
        #expect(try await store.read { tx in try await tx.tokenSecret() } == nil, label)
        try await store.write { tx in try await tx.saveTokenSecret(Data(repeating: 1, count: 32)) }
        try await store.write { tx in try await tx.saveTokenSecret(Data(repeating: 2, count: 32)) }
        #expect(try await store.read { tx in try await tx.tokenSecret() } == Data(repeating: 1, count: 32), label)
    }

    static func countsAndPasskeys(_ store: any AuthStore, _ label: Comment) async throws {
        try await store.write { tx in
            var user = UserRecord(localId: "pk")
            user.passkeyInfo = [PasskeyInfo(credentialId: "cred-1", name: "key")]
            try await tx.save(Scope(projectId: "p"), user)
            try await tx.save(Scope(projectId: "p", tenantId: "b"), UserRecord(localId: "x"))
            try await tx.save(Scope(projectId: "p", tenantId: "a"), UserRecord(localId: "y"))
            try await tx.save(Scope(projectId: "q"), UserRecord(localId: "z"))
        }
        let read = try await store.read { tx in
            (
                try await tx.countAllUsers(), try await tx.tenantsWithUsers(projectId: "p"),
                try await tx.user(Scope(projectId: "p"), passkeyCredentialId: "cred-1")?.localId,
                try await tx.user(Scope(projectId: "q"), passkeyCredentialId: "cred-1")
            )
        }
        #expect(read.0 == 4, label)
        #expect(read.1 == [nil, "a", "b"], label)
        #expect(read.2 == "pk" && read.3 == nil, label)
    }
}

extension StoreChecks {
    /// A listing's version changes with a listed row (sent, used, deleted), and only then; a store
    /// that cannot tell (PostgreSQL) answers nil for both listings.
    static func codeListingVersions(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        let tenant = Scope(projectId: "p", tenantId: "t")
        @Sendable func versions() async throws -> [CodeListingVersion?] {
            try await store.read { tx in
                [
                    try await tx.codeListingVersion(scope, .verificationCodes),
                    try await tx.codeListingVersion(scope, .oobCodes),
                    try await tx.codeListingVersion(tenant, .verificationCodes),
                ]
            }
        }
        let first = try await versions()
        guard first[0] != nil else {
            #expect(first == [nil, nil, nil], label)
            return
        }
        let empty = CodeListingVersion(newest: 0, count: 0)
        #expect(first == [empty, empty, empty], label)
        var seen = first
        // Each step, then which of the three versions it must change.
        let code = OobCode(email: "a@example.com", requestType: .verifyEmail, oobCode: "c1", oobLink: "http://l/c1")
        let sent = sms("+15550001", "v1")
        let steps: [(String, [Bool], @Sendable (any StoreTransaction) async throws -> Void)] = [
            ("a code sent", [true, false, false], { tx in _ = try await tx.insertSms(sent) }),
            (
                "a tenant's code sent", [false, false, true],
                { tx in _ = try await tx.insertSms(sms("+1", "v2", scope: tenant)) }
            ),
            ("an email code", [false, true, false], { tx in try await tx.saveOobCode(scope, code) }),
            (
                "a code used", [true, false, false],
                { tx in
                    var used = try await tx.sms(sessionInfo: "v1")!
                    used.status = .used
                    try await tx.updateSms(used)
                }
            ),
            (
                "a used code touched", [false, false, false],
                { tx in
                    var used = try await tx.sms(sessionInfo: "v1")!
                    used.attempts = 3
                    try await tx.updateSms(used)
                }
            ),
            ("an email code used", [false, true, false], { tx in try await tx.deleteOobCode(scope, code: "c1") }),
            ("the tenant's outbox emptied", [false, false, true], { tx in try await tx.deleteAllSms(tenant) }),
            ("another code sent", [true, false, false], { tx in _ = try await tx.insertSms(sms("+15550004", "v4")) }),
            (
                "the outbox emptied and as many codes sent", [true, false, false],
                { tx in
                    try await tx.deleteAllSms(scope)
                    _ = try await tx.insertSms(sms("+15550004", "v5"))
                }
            ),
            ("an email code sent again", [false, true, false], { tx in try await tx.saveOobCode(scope, code) }),
            ("that email code replaced", [false, true, false], { tx in try await tx.saveOobCode(scope, code) }),
        ]
        for (step, changes, write) in steps {
            try await store.write(write)
            let now = try await versions()
            for index in 0..<3 {
                if changes[index] {
                    #expect(now[index] != seen[index], "\(label): \(step) changes version \(index)")
                } else {
                    #expect(now[index] == seen[index], "\(label): \(step) leaves version \(index)")
                }
            }
            seen = now
        }
        // A write that fails changes nothing.
        await #expect(throws: (any Error).self) {
            try await store.write { tx in
                _ = try await tx.insertSms(sms("+15550003", "v3"))
                throw AuthError.emailExists
            }
        }
        #expect(try await versions() == seen, label)
    }

    /// The rows that joined a listing after a version's newest, as a full read lists them (what a
    /// kept listing grows by); nil from a store without versions. A read that failed leaves the
    /// store's reads working.
    static func codeListingRows(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let one = OobCode(email: "a@example.com", requestType: .verifyEmail, oobCode: "c1", oobLink: "http://l/c1")
        let two = OobCode(email: "b@example.com", requestType: .verifyEmail, oobCode: "c2", oobLink: "http://l/c2")
        try await store.write { tx in
            _ = try await tx.insertSms(sms("+15550001", "r1"))
            _ = try await tx.insertSms(sms("+15550002", "r2"))
            try await tx.saveOobCode(scope, one)
        }
        let versions = try await store.read { tx in
            [
                try await tx.codeListingVersion(scope, .verificationCodes),
                try await tx.codeListingVersion(scope, .oobCodes),
            ]
        }
        guard let codes = versions[0], let links = versions[1] else {
            let rows = try await store.read { tx in
                try await tx.codeListingRows(scope, .verificationCodes, after: 0, now: now)
            }
            #expect(versions == [nil, nil] && rows == nil, label)
            return
        }
        let third = try await store.write { tx in
            try await tx.saveOobCode(scope, two)
            return try await tx.insertSms(sms("+15550003", "r3", sentAt: 1_700_000_010))
        }
        await #expect(throws: AuthError.self, label) {
            try await store.read { tx in
                _ = try await tx.codeListingVersion(scope, .verificationCodes)
                throw AuthError.userNotFound
            }
        }
        let read = try await store.read { tx in
            (
                all: try await tx.codeListingRows(scope, .verificationCodes, after: 0, now: now),
                full: try await tx.pendingCodeEntries(scope, now: now),
                added: try await tx.codeListingRows(scope, .verificationCodes, after: codes.newest, now: now),
                none: try await tx.codeListingRows(scope, .verificationCodes, after: codes.newest + 1_000, now: now),
                links: try await tx.codeListingRows(scope, .oobCodes, after: links.newest, now: now)
            )
        }
        func joined(_ entries: [Data]?) -> String {
            (entries ?? []).map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",")
        }
        #expect(read.all?.rows == 3, label)
        #expect(joined(read.all?.entries) == joined(read.full.entries), label)
        #expect(read.all?.earliestExpiry == read.full.earliestExpiry, label)
        #expect(read.added?.rows == 1, label)
        #expect(joined(read.added?.entries) == String(decoding: third.codeEntry, as: UTF8.self), label)
        #expect(read.added?.earliestExpiry == third.expiresAt, label)
        #expect(read.none == ListedRows([], rows: 0, earliestExpiry: nil), label)
        #expect(read.links?.rows == 1 && read.links?.earliestExpiry == nil, label)
        #expect(joined(read.links?.entries) == String(decoding: two.listingEntry, as: UTF8.self), label)
    }
}
