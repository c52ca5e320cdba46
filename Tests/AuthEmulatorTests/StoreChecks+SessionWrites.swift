import Foundation
import Synchronization
import Testing

@testable import AuthEmulator

extension StoreChecks {
    /// `sessionWrite`: session times are stored and nothing else changes; a failed body stores
    /// nothing; a body that also changes something else is applied whole (run again as a `write`
    /// where the store needs to); many of them beside ordinary writes all land.
    static func sessionWrites(_ store: any AuthStore, _ label: Comment) async throws {
        let scope = Scope(projectId: "p")
        try await store.write { tx in
            var user = UserRecord(localId: "s")
            user.email = "s@example.com"
            user.displayName = "Session"
            try await tx.save(scope, user)
        }
        let read = try await store.sessionWrite { tx in
            var user = try #require(try await tx.users(scope, email: "s@example.com").first)
            user.lastLoginAt = "1700000000001"
            user.lastRefreshAt = "2023-11-14T22:13:20.001Z"
            try await tx.saveSessionTimes(scope, user)
            return user.displayName
        }
        #expect(read == "Session", label)
        var stored = try await store.read { tx in try await tx.user(scope, localId: "s") }
        #expect(stored?.lastLoginAt == "1700000000001" && stored?.displayName == "Session", label)

        await #expect(throws: AuthError.userDisabled, label) {
            try await store.sessionWrite { tx in
                var user = try #require(try await tx.user(scope, localId: "s"))
                user.lastLoginAt = "1700000000002"
                try await tx.saveSessionTimes(scope, user)
                throw AuthError.userDisabled
            }
        }
        stored = try await store.read { tx in try await tx.user(scope, localId: "s") }
        #expect(stored?.lastLoginAt == "1700000000001", label)

        let runs = Atomic<Int>(0)
        let renamed = try await store.sessionWrite { tx in
            runs.add(1, ordering: .relaxed)
            var user = try #require(try await tx.user(scope, localId: "s"))
            user.lastLoginAt = "1700000000003"
            try await tx.saveSessionTimes(scope, user)
            user.displayName = "Renamed"
            try await tx.save(scope, user)
            try await tx.saveProjectConfig(projectId: "p", .object(["renamed": true]))
            return user.displayName
        }
        #expect(renamed == "Renamed" && (1...2).contains(runs.load(ordering: .relaxed)), label)
        let after = try await store.read { tx in
            (try await tx.user(scope, localId: "s"), try await tx.projectConfig(projectId: "p"))
        }
        #expect(after.0?.displayName == "Renamed" && after.0?.lastLoginAt == "1700000000003", label)
        #expect(after.1 == .object(["renamed": true]), label)
        try await concurrentSessionWrites(store, scope, label)
    }

    /// 40 stamps and 40 new users at once: every one acknowledged is stored.
    private static func concurrentSessionWrites(_ store: any AuthStore, _ scope: Scope, _ label: Comment)
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await store.sessionWrite { tx in
                        var user = try #require(try await tx.user(scope, localId: "s"))
                        user.lastRefreshAt = "2023-11-14T22:13:20.\(100 + index)Z"
                        try await tx.saveSessionTimes(scope, user)
                    }
                }
                group.addTask {
                    try await store.write { tx in try await tx.save(scope, UserRecord(localId: "c\(index)")) }
                }
            }
            try await group.waitForAll()
        }
        let final = try await store.read { tx in
            (
                try await tx.user(scope, localId: "s"),
                try await (0..<40).asyncCompactMap { try await tx.user(scope, localId: "c\($0)") }
            )
        }
        #expect(final.0?.lastRefreshAt?.hasPrefix("2023-11-14T22:13:20.1") == true, label)
        #expect(final.0?.displayName == "Renamed" && final.1.count == 40, label)
        try await sessionWritesOfManyUsers(store, scope, label)
    }

    /// 30 users signing in at once (a store may store their times together): each keeps its own.
    private static func sessionWritesOfManyUsers(_ store: any AuthStore, _ scope: Scope, _ label: Comment)
        async throws
    {
        try await store.write { tx in for index in 0..<30 { try await tx.save(scope, UserRecord(localId: "m\(index)")) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask {
                    try await store.sessionWrite { tx in
                        var user = try #require(try await tx.user(scope, localId: "m\(index)"))
                        user.lastLoginAt = "\(1_700_000_100_000 + index)"
                        user.lastRefreshAt = "2023-11-14T22:15:00.\(100 + index)Z"
                        try await tx.saveSessionTimes(scope, user)
                    }
                }
            }
            try await group.waitForAll()
        }
        let stamped = try await store.read { tx in
            try await (0..<30).asyncMap { try await tx.user(scope, localId: "m\($0)") }
        }
        #expect(stamped.map { $0?.lastLoginAt } == (0..<30).map { "\(1_700_000_100_000 + $0)" }, label)
        #expect(stamped.map { $0?.lastRefreshAt } == (0..<30).map { "2023-11-14T22:15:00.\(100 + $0)Z" }, label)
    }
}
