import AuthEmulator
import Foundation
import GRDB

/// TOTP enrollments between start and finalize.
extension SQLiteTransaction {
    func saveTotpSession(_ session: TotpEnrollmentSession) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO totp_sessions (session_info, data) VALUES (?, ?)",
            arguments: [session.sessionInfo, JSONEncoder().encode(session)])
    }

    func totpSession(_ sessionInfo: String) throws -> TotpEnrollmentSession? {
        try Data.fetchOne(
            cached: db, sql: "SELECT data FROM totp_sessions WHERE session_info = ?", arguments: [sessionInfo]
        )
        .map { try JSONDecoder().decode(TotpEnrollmentSession.self, from: $0) }
    }

    func deleteTotpSession(_ sessionInfo: String) throws {
        try execute(sql: "DELETE FROM totp_sessions WHERE session_info = ?", arguments: [sessionInfo])
    }
}
