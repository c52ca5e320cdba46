import NIOCore

/// Runs a task's jobs on one NIO event loop: a transaction preferring the executor of its
/// connection's loop writes each statement and resumes on its answer on that thread, so no
/// statement costs a wake-up of another thread (a thread pool waiting on each answer cost two).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
