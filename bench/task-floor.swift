// What running an `async` transaction body costs on SQLite, whose GRDB API is synchronous: the
// body has to run to its end inside GRDB's closure, so authemu starts a task for it
// (`Task.immediate`, Sources/AuthEmulatorSQLite/SynchronousBody.swift). This program times that
// against awaiting the same body in the caller's task, which is what a body costs where no closure
// is in the way. Built and run under callgrind by bench/task-floor.

/// A repository whose calls never suspend, as SQLite's are, behind an `async` requirement.
protocol Repository: Sendable {
    func value(_ key: Int) async throws -> Int
}

struct SynchronousRepository: Repository {
    let base: Int
    func value(_ key: Int) throws -> Int { base &+ key }
}

typealias Body = @Sendable (any Repository) async throws -> Int

/// The body awaited in the caller's task: no task of its own.
@inline(never)
func awaited(_ body: Body, _ repository: any Repository) async throws -> Int {
    try await body(repository)
}

/// The body run to its end in a task of its own, from a synchronous function, as `runToEnd` does.
@inline(never)
func immediate(_ body: @escaping Body, _ repository: any Repository) throws -> Int {
    var result = 0
    var failure: (any Error)?
    var finished = false
    withUnsafeMutablePointer(to: &result) { result in
        withUnsafeMutablePointer(to: &failure) { failure in
            withUnsafeMutablePointer(to: &finished) { finished in
                nonisolated(unsafe) let (result, failure, finished) = (result, failure, finished)
                Task.immediate {
                    do { result.pointee = try await body(repository) } catch { failure.pointee = error }
                    finished.pointee = true
                }
            }
        }
    }
    precondition(finished, "the body suspended")
    if let failure { throw failure }
    return result
}

enum Mode: String {
    case none, awaited, immediate
}

@main
struct TaskFloor {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let mode = Mode(rawValue: arguments[1]), let calls = Int(arguments[2]) else {
            fatalError("usage: task-floor none|awaited|immediate CALLS")
        }
        let repository: any Repository = SynchronousRepository(base: calls)
        let body: Body = { repository in try await repository.value(1) &+ (try await repository.value(2)) }
        var total = 0
        for _ in 0..<calls {
            switch mode {
            case .awaited: total &+= try await awaited(body, repository)
            case .immediate: total &+= try immediate(body, repository)
            case .none: total &+= 1
            }
        }
        print(total)
    }
}
