import CSystemd
import Foundation

/// The parts of libsystemd the daemon uses. Outside systemd (no `NOTIFY_SOCKET`, no
/// `LISTEN_FDS`) every call is a no-op.
enum Systemd {
    /// Sends a state string (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`, `RELOADING=1`).
    static func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    /// Whether the service manager is listening for notifications.
    static var isSupervised: Bool { ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] != nil }

    /// The watchdog interval the manager asked for, if any.
    static var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds))
    }

    /// Sockets passed by socket activation (`LISTEN_FDS`), as file descriptors.
    static func listenFileDescriptors() -> [Int32] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }

    /// Whether stdout/stderr go to the journal (systemd sets `JOURNAL_STREAM`).
    static var loggingToJournal: Bool { ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil }

    /// Sends one structured journal entry (`FIELD=value` strings).
    static func journal(_ fields: [String]) {
        let buffers: [UnsafeMutableBufferPointer<UInt8>] = fields.map { field in
            let bytes = Array(field.utf8)
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            _ = buffer.initialize(from: bytes)
            return UnsafeMutableBufferPointer(rebasing: buffer[0..<bytes.count])
        }
        defer { for buffer in buffers { buffer.baseAddress.map { $0.deallocate() } } }
        let vectors = buffers.map { iovec(iov_base: UnsafeMutableRawPointer($0.baseAddress), iov_len: $0.count) }
        _ = sd_journal_sendv(vectors, Int32(vectors.count))
    }
}
