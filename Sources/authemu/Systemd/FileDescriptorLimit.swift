#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The soft limit of open files, raised to the hard one at start: the default soft limit (1,024)
/// let about a thousand idle connections, or long-polls, exhaust the daemon. The hard limit is the
/// administrator's (the unit's `LimitNOFILE=`, a container's `--ulimit nofile=`).
enum FileDescriptorLimit {
    /// Raises the soft limit to the hard one (to 1,048,576 when unlimited); returns the soft limit
    /// in force afterwards, and the one before.
    @discardableResult
    static func raiseToHard() -> (before: UInt64, after: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        let before = UInt64(limit.rlim_cur)
        let target = limit.rlim_max == rlim_t.max ? rlim_t(1 << 20) : limit.rlim_max  // rlim_t.max: RLIM_INFINITY
        guard limit.rlim_cur < target else { return (before, before) }
        limit.rlim_cur = target
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (before, before) }
        return (before, UInt64(target))
    }

    /// The connections each listener keeps open (`max_connections`'s default): the open-files
    /// limit less a reserve for the database, logs and outgoing calls (an eighth, 64 to 1,024),
    /// shared by the listeners. At that many a listener stops accepting and closes idle
    /// connections, so the daemon never runs out of descriptors and `/readyz` is answered again.
    static func connectionsPerListener(limit: UInt64, listeners: Int) -> Int {
        let files = Int(min(limit, 1 << 24))
        let reserve = min(1024, max(64, files / 8))
        return max(16, (files - reserve) / max(1, listeners))
    }
}
