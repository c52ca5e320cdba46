import AuthEmulator
import Foundation
import GRDB

/// Group commit: writes that arrive while another write holds the database wait in line, and the
/// next writer runs all of them in one transaction, each inside its own savepoint, with one
/// `COMMIT`. A write that fails rolls back to its savepoint only; a write is acknowledged (its
/// caller resumed) only after the commit that contains it. Under concurrent load this shares the
/// WAL appends, locks and commit of several requests instead of paying them per request; a write
/// that finds the database idle runs alone, on its own thread, as before.
final class GroupCommit: @unchecked Sendable {
    /// One write waiting for (or run by) a batch. A subclass runs it and keeps its value, in a
    /// field of the value's own type (an `any Sendable` cast back cost a write ~2,000 instructions).
    class Job: @unchecked Sendable {
        var continuation: CheckedContinuation<Turn, Never>?
        /// The events its last run recorded, handed on if that run commits.
        var events: RecordedEvents?
        /// Runs the write on the batch's connection.
        func run(_ db: Database) throws { preconditionFailure("a GroupCommit.Job subclass runs the write") }
    }

    /// What a waiting write is woken with: its outcome, or the lead of the next batch.
    enum Turn {
        case done(Result<Void, any Error>)
        case lead
    }

    private let lock = NSLock()
    /// Writes waiting for the next batch, oldest first.
    private var waiting: [Job] = []
    /// Whether a writer is running a batch (or has been handed the next one).
    private var leading = false
    private var batchCount = 0
    private var jobCount = 0

    /// Writes waiting for the running batch to finish.
    var waitingCount: Int { lock.withLock { waiting.count } }
    /// Batches run and the writes they held, since start.
    var statistics: (batches: Int, writes: Int) { lock.withLock { (batchCount, jobCount) } }

    /// Runs `job` in the next batch and returns its outcome once that batch has committed (its
    /// value, if any, is in `job`).
    /// `runBatch` executes jobs in one transaction and returns one result per job, in order.
    func submit(
        _ job: Job, runBatch: ([Job]) -> [Result<Void, any Error>]
    ) async -> Result<Void, any Error> {
        let leadsNow: Bool = lock.withLock {
            if leading { return false }
            leading = true
            return true
        }
        if !leadsNow {
            let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
                let leads: Bool = lock.withLock {
                    if leading {
                        job.continuation = continuation
                        waiting.append(job)
                        return false
                    }
                    leading = true
                    return true
                }
                if leads { continuation.resume(returning: .lead) }
            }
            if case .done(let result) = turn { return result }
        }
        return lead(job, runBatch: runBatch)
    }

    /// Runs `own` with everything waiting, wakes the others with their outcomes, and hands the
    /// lead to the oldest write that arrived meanwhile (or gives it up).
    private func lead(_ own: Job, runBatch: ([Job]) -> [Result<Void, any Error>]) -> Result<Void, any Error> {
        let others: [Job] = lock.withLock {
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        let results = runBatch([own] + others)
        lock.withLock {
            batchCount += 1
            jobCount += 1 + others.count
        }
        for (job, result) in zip(others, results.dropFirst()) {
            job.continuation?.resume(returning: .done(result))
        }
        let next: Job? = lock.withLock {
            if waiting.isEmpty {
                leading = false
                return nil
            }
            return waiting.removeFirst()
        }
        next?.continuation?.resume(returning: .lead)
        return results[0]
    }
}

extension Database {
    /// Runs each job in its own savepoint of one `BEGIN IMMEDIATE` transaction and commits once.
    /// A lone job runs without a savepoint. Results are in job order; when the transaction itself
    /// fails (the commit, or an error after which SQLite rolled everything back), every job gets
    /// that error, because none of them was stored.
    func runBatch(_ jobs: [GroupCommit.Job]) -> [Result<Void, any Error>] {
        do {
            try cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            let results =
                try jobs.count == 1 ? [run(jobs[0], savepoint: false)] : jobs.map { try run($0, savepoint: true) }
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return results
        } catch {
            if isInsideTransaction { try? rollback() }
            return jobs.map { _ in .failure(error) }
        }
    }

    /// One job's outcome; throws when the whole transaction is lost.
    private func run(_ job: GroupCommit.Job, savepoint: Bool) throws -> Result<Void, any Error> {
        if savepoint { try cachedStatement(sql: "SAVEPOINT job").execute() }
        let outcome: Result<Void, any Error>
        do {
            outcome = .success(try job.run(self))
        } catch {
            // After SQLITE_FULL or an I/O error SQLite may have rolled the transaction back.
            guard savepoint, isInsideTransaction else { throw error }
            try cachedStatement(sql: "ROLLBACK TRANSACTION TO SAVEPOINT job").execute()
            outcome = .failure(error)
        }
        if savepoint { try cachedStatement(sql: "RELEASE SAVEPOINT job").execute() }
        return outcome
    }
}
