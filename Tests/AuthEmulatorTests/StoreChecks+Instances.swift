import Foundation
import Testing

@testable import AuthEmulator

/// The contract between stores on one database, as two daemons would open it.
extension StoreChecks {
    /// The domain's sign-up rule (check, then save) through two stores at once: exactly one
    /// account per address; every other attempt sees the winner.
    static func sameEmailAcrossInstances(_ first: any AuthStore, _ second: any AuthStore, _ label: Comment) async throws
    {
        let scope = Scope(projectId: "p")
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for attempt in 0..<40 {
                let store = attempt % 2 == 0 ? first : second
                group.addTask {
                    do {
                        try await store.write { tx in
                            let email = "race\(attempt % 5)@example.com"
                            guard try await tx.users(scope, email: email).isEmpty else { throw AuthError.emailExists }
                            var user = UserRecord(localId: "u\(attempt)")
                            user.email = email
                            try await tx.save(scope, user)
                        }
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 5, label)
        let owners = try await second.read { tx in
            try await (0..<5).asyncMap { try await tx.users(scope, email: "race\($0)@example.com").count }
        }
        #expect(owners == [1, 1, 1, 1, 1], label)
    }

    /// Writers on both stores insert SMS while a reader pages with `afterId`: it sees every
    /// message exactly once, ids only ever increasing (the long-poll's assumption).
    static func outboxCommitOrder(_ first: any AuthStore, _ second: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<60 {
                    let store = index % 2 == 0 ? first : second
                    group.addTask {
                        _ = try? await store.write { tx in
                            try await tx.insertSms(sms("+1555\(index)", "order-\(index)"))
                        }
                    }
                }
            }
        }
        var seen: [Int64] = []
        var last: Int64?
        var increasing = true
        for _ in 0..<2_000 where seen.count < 60 {
            let after = last
            let page = try await second.read { tx in try await tx.listSms(scope, SmsQuery(afterId: after)) }
            for message in page {
                if let last, message.id <= last { increasing = false }
                last = message.id
                seen.append(message.id)
            }
            if page.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
        }
        await writers.value
        let final = try await first.read { tx in try await tx.listSms(scope, SmsQuery()).map(\.id) }
        #expect(increasing, label)
        #expect(seen == final && final.count == 60, label)
    }

    /// A write through one store is announced to the other, as the daemon's caches and
    /// long-polls need.
    static func changesHeard(_ first: any AuthStore, _ second: any AuthStore, _ label: Comment) async throws {
        let heard = ChangeLog()
        second.observeChanges { heard.append($0) }
        // The listener connects in the background: settings changes until the first is heard.
        for _ in 0..<50 where heard.changes.isEmpty {
            try await first.write { tx in try await tx.saveProjectConfig(projectId: "p", .object([:])) }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(Set(heard.changes) == [.settings], label)
        try await first.write { tx in _ = try await tx.insertSms(sms("+15550009", "heard")) }
        try await first.write { tx in try await tx.saveClockSetting(ClockSetting(offsetSeconds: 60)) }
        for _ in 0..<100 where !Set(heard.changes).isSuperset(of: [.sms, .clock]) {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(Set(heard.changes) == [.settings, .sms, .clock], label)
    }
}

/// What `observeChanges` delivered.
final class ChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [StoreChange] = []
    var changes: [StoreChange] { lock.withLock { log } }
    func append(_ change: StoreChange) { lock.withLock { log.append(change) } }
}

extension StoreChecks {
    /// A read of two statements sees one snapshot, also when another store commits between them:
    /// PostgreSQL sends a body's first `SELECT` outside any transaction, and a second statement
    /// runs the body again inside one. (Only for stores whose bodies may await another store.)
    static func readSnapshotAcrossInstances(_ first: any AuthStore, _ second: any AuthStore, _ label: Comment)
        async throws
    {
        let scope = Scope(projectId: "p")
        @Sendable func named(_ name: String) -> UserRecord {
            var user = UserRecord(localId: "s")
            user.displayName = name
            return user
        }
        try await first.write { tx in try await tx.save(scope, named("before")) }
        let wrote = Flag()
        let names = try await first.read { tx in
            let once = try await tx.user(scope, localId: "s")?.displayName
            if !wrote.isSet {
                wrote.set()
                try await second.write { tx in try await tx.save(scope, named("after")) }
            }
            return (once, try await tx.user(scope, localId: "s")?.displayName)
        }
        #expect(names.0 == "after" && names.1 == "after", label)
        let single = try await first.read { tx in try await tx.user(scope, localId: "s")?.displayName }
        #expect(single == "after", label)
    }
}
