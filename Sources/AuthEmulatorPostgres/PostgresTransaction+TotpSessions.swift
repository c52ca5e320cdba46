import AuthEmulator
import Foundation

/// TOTP enrollments between start and finalize.
extension PostgresTransaction {
    func saveTotpSession(_ enrollment: TotpEnrollmentSession) throws {
        try session.execute(
            """
            INSERT INTO totp_sessions (session_info, data) VALUES ($1, $2)
            ON CONFLICT (session_info) DO UPDATE SET data = EXCLUDED.data
            """, [.text(enrollment.sessionInfo), encode(enrollment)])
    }

    func totpSession(_ sessionInfo: String) throws -> TotpEnrollmentSession? {
        try session.values(Data.self, "SELECT data FROM totp_sessions WHERE session_info = $1", [.text(sessionInfo)])
            .first.map { try decode(TotpEnrollmentSession.self, $0) }
    }

    func deleteTotpSession(_ sessionInfo: String) throws {
        try session.execute("DELETE FROM totp_sessions WHERE session_info = $1", [.text(sessionInfo)])
    }
}
