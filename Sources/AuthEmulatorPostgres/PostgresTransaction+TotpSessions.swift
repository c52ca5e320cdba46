import AuthEmulator
import Foundation

/// TOTP enrollments between start and finalize.
extension PostgresTransaction {
    func saveTotpSession(_ enrollment: TotpEnrollmentSession) throws {
        try save(.totpSessions, enrollment.sessionInfo, enrollment)
    }

    func totpSession(_ sessionInfo: String) throws -> TotpEnrollmentSession? {
        try record(TotpEnrollmentSession.self, .totpSessions, sessionInfo)
    }

    func deleteTotpSession(_ sessionInfo: String) throws {
        try delete(.totpSessions, sessionInfo)
    }
}
