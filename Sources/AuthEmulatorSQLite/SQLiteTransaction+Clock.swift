import AuthEmulator
import Foundation
import GRDB

extension SQLiteTransaction {
    func clockSetting() throws -> ClockSetting {
        guard let row = try Row.fetchOne(db, sql: "SELECT seconds, frozen_at FROM clock_offset WHERE id = 1") else {
            return .real
        }
        let frozenAt: Double? = row["frozen_at"]
        return ClockSetting(offsetSeconds: row["seconds"], frozenAt: frozenAt.map(Date.init(timeIntervalSince1970:)))
    }

    func saveClockSetting(_ setting: ClockSetting) throws {
        try execute(
            sql: "INSERT OR REPLACE INTO clock_offset (id, seconds, frozen_at) VALUES (1, ?, ?)",
            arguments: [setting.offsetSeconds, setting.frozenAt?.timeIntervalSince1970])
    }
}
