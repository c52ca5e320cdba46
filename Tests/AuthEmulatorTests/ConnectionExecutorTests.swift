import AuthEmulator
import AuthEmulatorHTTP
import AuthEmulatorPostgres
import AuthEmulatorSQLite
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// A connection executor (what the daemon on PostgreSQL uses: `EventLoopTaskExecutor`) that
/// counts the jobs it runs and whether each ran on the event loop it was made for.
final class CountingExecutors: Sendable {
    struct Counts {
        var executors = 0
        var jobs = 0
        var jobsOffTheirLoop = 0
    }
    let counts = Mutex(Counts())

    func executor(for eventLoop: any EventLoop) -> any TaskExecutor {
        counts.withLock { $0.executors += 1 }
        return Counting(inner: EventLoopTaskExecutor(eventLoop), eventLoop: eventLoop, owner: self)
    }

    final class Counting: TaskExecutor {
        let inner: EventLoopTaskExecutor
        let eventLoop: any EventLoop
        let owner: CountingExecutors

        init(inner: EventLoopTaskExecutor, eventLoop: any EventLoop, owner: CountingExecutors) {
            (self.inner, self.eventLoop, self.owner) = (inner, eventLoop, owner)
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            eventLoop.execute {
                let onLoop = self.eventLoop.inEventLoop
                self.owner.counts.withLock {
                    $0.jobs += 1
                    if !onLoop { $0.jobsOffTheirLoop += 1 }
                }
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
    }
}

@Suite("HTTP handlers on a connection executor")
struct ConnectionExecutorTests {
    @Test("given a connection executor, a live server answers through jobs run on the connection's own event loop")
    func handlersRunOnTheConnectionsLoop() async throws {
        var config = AppConfig()
        (config.host, config.port, config.projectId, config.ephemeral) = ("127.0.0.1", 0, "example", true)
        let emulator = try await makeEmulator(config: config, store: try SQLiteStore())
        let executors = CountingExecutors()
        let app = buildApplication(
            config: config, emulator: emulator, connectionExecutor: { executors.executor(for: $0) })
        try await app.test(.live) { client in
            for email in ["a@example.com", "b@example.com"] {
                let status = try await client.execute(
                    uri: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", method: .post,
                    headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"email":"\#(email)","password":"secret123"}"#)
                ) { $0.status }
                #expect(status == .ok)
            }
        }
        let counts = executors.counts.withLock { $0 }
        #expect(counts.executors >= 1)
        #expect(counts.jobs >= 2)
        #expect(counts.jobsOffTheirLoop == 0)
    }
}
