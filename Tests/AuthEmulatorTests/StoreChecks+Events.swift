import Foundation
import Synchronization
import Testing

@testable import AuthEmulator

/// The events one store handed on, in the order it handed them.
final class HeardEvents: Sendable {
    private let heard = Mutex<[String]>([])

    init(_ store: any AuthStore) {
        store.committedEvents.connect { events in
            self.heard.withLock { $0 += events.map { String(decoding: $0.body, as: UTF8.self) } }
        }
    }

    var bodies: [String] { heard.withLock { $0 } }
}

extension StoreChecks {
    static func event(_ name: String) -> AuthEvent { AuthEvent(kind: .create, projectId: "p", body: Data(name.utf8)) }

    /// Events leave once per committed write, in commit order; never from a rolled-back write,
    /// a rolled-back job of a batch, or a read.
    static func eventsAfterCommit(_ store: any AuthStore, _ label: Comment) async throws {
        let heard = HeardEvents(store)
        let scope = Scope(projectId: "p")
        for index in 0..<3 {
            try await store.write { tx in
                try await tx.save(scope, UserRecord(localId: "s\(index)"))
                tx.record(event("s\(index)"))
            }
        }
        #expect(heard.bodies == ["s0", "s1", "s2"], label)
        try await store.read { tx in tx.record(event("read")) }
        let committed = await withTaskGroup(of: String?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        try await store.write { tx in
                            try await tx.save(scope, UserRecord(localId: "u\(index)"))
                            tx.record(event("u\(index)"))
                            if index % 4 == 0 { throw AuthError.emailExists }
                        }
                        return "u\(index)"
                    } catch {
                        return nil
                    }
                }
            }
            return await group.reduce(into: [String]()) { if let name = $1 { $0.append(name) } }
        }
        #expect(committed.count == 150, label)
        #expect(heard.bodies.count == 153, label)
        #expect(Set(heard.bodies.dropFirst(3)) == Set(committed), label)
    }

    /// Two stores on one database race to make the same addresses: each winner's event leaves
    /// exactly once, from the store that committed it, however often its body ran.
    static func eventsOnceAcrossInstances(_ first: any AuthStore, _ second: any AuthStore, _ label: Comment)
        async throws
    {
        let heardFirst = HeardEvents(first)
        let heardSecond = HeardEvents(second)
        let scope = Scope(projectId: "p")
        let winners = await withTaskGroup(of: (Int, String)?.self) { group in
            for attempt in 0..<40 {
                let side = attempt % 2
                let store = side == 0 ? first : second
                group.addTask {
                    do {
                        try await store.write { tx in
                            let email = "race\(attempt % 5)@example.com"
                            guard try await tx.users(scope, email: email).isEmpty else { throw AuthError.emailExists }
                            var user = UserRecord(localId: "u\(attempt)")
                            user.email = email
                            try await tx.save(scope, user)
                            tx.record(event("u\(attempt)"))
                        }
                        return (side, "u\(attempt)")
                    } catch {
                        return nil
                    }
                }
            }
            return await group.reduce(into: [(Int, String)]()) { if let winner = $1 { $0.append(winner) } }
        }
        #expect(winners.count == 5, label)
        #expect(heardFirst.bodies.sorted() == winners.filter { $0.0 == 0 }.map(\.1).sorted(), label)
        #expect(heardSecond.bodies.sorted() == winners.filter { $0.0 == 1 }.map(\.1).sorted(), label)
    }
}
