import Foundation
import NIOPosix

/// Where checks of caller-chosen cost run (an imported password hash: bcrypt, scrypt, PBKDF2):
/// on threads of their own, at most `width` at a time, so a slow check delays only the request
/// that asked for it. Never inside a store transaction (AuthStore.swift, "Bodies do only
/// database work"), never on the cooperative threads that serve every other request. Work waits
/// its turn in the pool's queue; its cost is bounded at import (`PasswordHashBounds`).
public final class SlowCheckPool: Sendable {
    /// One thread less than the machine has cores (at least one): the rest of the daemon keeps a
    /// core while every pool thread hashes.
    public static let shared = SlowCheckPool(width: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    private let threads: NIOThreadPool

    public init(width: Int) {
        threads = NIOThreadPool(numberOfThreads: width)
        threads.start()
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        try await threads.runIfActive(work)
    }
}
