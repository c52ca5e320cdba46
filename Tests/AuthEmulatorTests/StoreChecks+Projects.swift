import Foundation
import Testing

@testable import AuthEmulator

/// Writers in several projects at once, through two stores on one database.
extension StoreChecks {
    /// Read-modify-write of one counter per project (a user's display name), 24 increments in
    /// each of four projects, spread over both stores and run all at once: no increment is lost
    /// (the writes of one project are serializable), and no project's writes touch another's.
    static func writersAcrossProjects(_ first: any AuthStore, _ second: any AuthStore, _ label: Comment) async throws {
        let projects = ["pa", "pb", "pc", "pd"]
        let failures = await withTaskGroup(of: Int.self) { group in
            for index in 0..<(24 * projects.count) {
                let store = index % 2 == 0 ? first : second
                let scope = Scope(projectId: projects[index % projects.count])
                group.addTask {
                    do {
                        try await store.write { tx in
                            var counter = try await tx.user(scope, localId: "counter") ?? UserRecord(localId: "counter")
                            counter.displayName = String(Int(counter.displayName ?? "0")! + 1)
                            try await tx.save(scope, counter)
                        }
                        return 0
                    } catch {
                        return 1
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0, label)
        let counters = try await second.read { tx in
            try await projects.asyncMap { try await tx.user(Scope(projectId: $0), localId: "counter")?.displayName }
        }
        #expect(counters == ["24", "24", "24", "24"], label)
    }
}
