import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Keeps the planner's statistics of the account tables from lagging behind their growth. A new
/// schema's tables have none until autovacuum analyzes them, up to a minute later; meanwhile an
/// email lookup and a scan of the project's whole primary-key range cost the same to the planner,
/// and it may take the scan (3 ms at 7,000 accounts instead of 0.06). So this daemon analyzes them
/// itself when the accounts it has saved reach 100, 1,000, 10,000 and 100,000; autovacuum keeps
/// them current after that.
final class PlannerStatistics: Sendable {
    static let thresholds = [100, 1_000, 10_000, 100_000]
    private let savedAccounts = NIOLockedValueBox(0)
    private let analyze: @Sendable () async throws -> Void
    private let logger: Logger

    /// `analyze` runs `ANALYZE` on the account tables.
    init(logger: Logger, analyze: @escaping @Sendable () async throws -> Void) {
        self.logger = logger
        self.analyze = analyze
    }

    /// Called after a commit that saved `count` accounts.
    func saved(_ count: Int) {
        guard count > 0 else { return }
        let crossed = savedAccounts.withLockedValue { total -> Bool in
            defer { total += count }
            return Self.thresholds.contains { total < $0 && total + count >= $0 }
        }
        guard crossed else { return }
        Task { [analyze, logger] in
            do { try await analyze() } catch { logger.debug("ANALYZE of the account tables: \(error)") }
        }
    }
}
