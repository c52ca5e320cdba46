import NIOCore

/// Runs a task's jobs on one NIO event loop: a transaction preferring the executor of its
/// connection's loop writes each statement and resumes on its answer on that thread, so no
/// statement costs a wake-up of another thread (a thread pool waiting on each answer cost two).
/// The daemon on this store also runs each HTTP connection's handlers on that connection's loop.
public final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
