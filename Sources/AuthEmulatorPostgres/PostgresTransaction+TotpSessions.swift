import AuthEmulator
import Foundation

/// TOTP enrollments between start and finalize.
extension PostgresTransaction {
    func saveTotpSession(_ enrollment: TotpEnrollmentSession) async throws {
        try await save(.totpSessions, enrollment.sessionInfo, enrollment)
    }

    func totpSession(_ sessionInfo: String) async throws -> TotpEnrollmentSession? {
        try await record(TotpEnrollmentSession.self, .totpSessions, sessionInfo)
    }

    func deleteTotpSession(_ sessionInfo: String) async throws {
        try await delete(.totpSessions, sessionInfo)
    }
}
