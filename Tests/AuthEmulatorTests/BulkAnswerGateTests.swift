import Foundation
import HTTPTypes
import Testing

@testable import AuthEmulatorHTTP

/// The gate that builds bulk answers a few at a time: permits in arrival order, a long-poll's
/// wait outside its permit, no start while unread answers exceed the budget, and the route table's
/// bulk routes.
@Suite("Bulk answers through one gate")
struct BulkAnswerGateTests {
    /// Yields until `condition` holds; fails after 100,000 yields instead of hanging.
    static func until(_ condition: () -> Bool) async {
        for _ in 0..<100_000 where !condition() { await Task.yield() }
        #expect(condition())
    }

    @Test("with one permit a second bulk answer waits for the first, then runs")
    func onePermit() async throws {
        let gate = BulkAnswerGate(permits: 1, open: OpenConnections(maximum: nil), budget: 1 << 20)
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await gate.admit {
                for await _ in release { break }
                return 1
            }
        }
        await Self.until { gate.counts.free == 0 }
        let second = Task { try await gate.admit { 2 } }
        await Self.until { gate.counts.queued == 1 }
        #expect(gate.counts.free == 0)
        releaser.yield()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(gate.counts == (1, 0, 0))
    }

    @Test("a long-poll's wait sets its permit aside and takes it again for the answer")
    func longPollWaitsWithoutPermit() async throws {
        let gate = BulkAnswerGate(permits: 1, open: OpenConnections(maximum: nil), budget: 1 << 20)
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let (aside, asideSignal) = AsyncStream<Void>.makeStream()
        let poll = Task {
            try await gate.admit {
                try await BulkAnswerGate.setAside {
                    asideSignal.yield()
                    for await _ in release { break }
                }
                return gate.counts.free
            }
        }
        for await _ in aside { break }
        #expect(try await gate.admit { 2 } == 2)
        releaser.yield()
        #expect(try await poll.value == 0)
        #expect(gate.counts == (1, 0, 0))
    }

    @Test("no bulk answer starts while unread answers exceed the budget, for at most budgetWait")
    func budget() async throws {
        let open = OpenConnections(maximum: nil)
        let gate = BulkAnswerGate(permits: 2, open: open, budget: 1 << 20, budgetWait: .seconds(600))
        open.waitingChanged(by: 3 << 20)
        let waiting = Task { try await gate.admit { open.waitingAnswerBytes } }
        await Self.until { gate.counts.overBudget == 1 }
        open.waitingChanged(by: -(3 << 20))
        #expect(try await waiting.value == 0)
        let bounded = BulkAnswerGate(permits: 1, open: open, budget: 0, budgetWait: .zero)
        open.waitingChanged(by: 1)
        #expect(try await bounded.admit { open.waitingAnswerBytes } == 1)
    }

    @Test("a body over 64 KiB, or of no stated length, sends any route's request through the gate")
    func bulkBodies() {
        func bulk(_ method: HTTPRequest.Method, _ fields: HTTPFields) -> Bool {
            RouteRegistration<AuthRequestContext>.isBulkBody(method: method, headers: fields)
        }
        #expect(!bulk(.post, [.contentLength: "65536"]))
        #expect(bulk(.post, [.contentLength: "65537"]))
        #expect(bulk(.patch, [.contentLength: "16777216"]))
        #expect(bulk(.post, [.transferEncoding: "chunked"]))
        #expect(!bulk(.post, [:]))
        #expect(!bulk(.get, [.contentLength: "1000000"]))
        #expect(!bulk(.head, [.transferEncoding: "chunked"]))
    }

    @Test("the route table sends every listing, download and list page through the gate, and nothing else")
    func bulkRoutes() {
        let bulk = routeTable.filter { $0.cost == .bulk }
        let named = routeTable.filter { route in
            let last = route.path.split(separator: "/").last.map(String.init) ?? ""
            if case .listing = route.handler { return true }
            if ["accounts:query", "{project}:queryAccounts", "downloadAccount"].contains(last) { return true }
            return route.method == .get
                && [
                    "accounts:batchGet", "apnsPushes", "users", "export", "messages", "tenants", "oauthIdpConfigs",
                    "inboundSamlConfigs", "defaultSupportedIdpConfigs",
                ].contains(last)
        }
        #expect(bulk.map(\.path) == named.map(\.path))
        #expect(bulk.count == 28)
    }
}
