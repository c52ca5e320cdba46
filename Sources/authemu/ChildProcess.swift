import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The command `authemu exec` runs: spawned with the caller's stdin, stdout and stderr, in the same
/// process group (so it keeps the terminal), with SIGINT and SIGTERM at their default action even
/// though this process ignores them while it forwards them.
struct ChildProcess: Sendable {
    let pid: pid_t

    /// `/bin/sh -c TEXT` for one argument with a space in it (`authemu exec "npm test"`, as
    /// firebase-tools runs its script through a shell), else the arguments as they are.
    static func argv(for command: [String]) -> [String] {
        if command.count == 1, command[0].contains(where: { $0 == " " || $0 == "\t" }) {
            return ["/bin/sh", "-c", command[0]]
        }
        return command
    }

    /// Starts `argv[0]` found on `PATH`; the error names the command and the reason.
    static func spawn(_ argv: [String], environment: [String: String]) throws -> ChildProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let arguments = argv.map { strdup($0) } + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, argv[0], nil, &attributes, arguments, variables)
        guard result == 0 else {
            throw ChildProcessError(description: "cannot run \(argv[0]): \(String(cString: strerror(result)))")
        }
        return ChildProcess(pid: pid)
    }

    /// Waits on a thread of its own (waitpid blocks) and gives the shell's view of the status:
    /// the exit code, or 128 + the signal that ended it.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let pid = self.pid
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
            }
        }
    }

    func send(_ signal: Int32) { kill(pid, signal) }
}

struct ChildProcessError: Error, CustomStringConvertible {
    let description: String
}
