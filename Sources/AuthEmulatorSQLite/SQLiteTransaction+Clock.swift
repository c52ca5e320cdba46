import AuthEmulator
import GRDB

extension SQLiteTransaction {
    func clockOffset() throws -> Double {
        try Double.fetchOne(cached: db, sql: "SELECT seconds FROM clock_offset WHERE id = 1", arguments: []) ?? 0
    }

    func saveClockOffset(_ seconds: Double) throws {
        try execute(sql: "INSERT OR REPLACE INTO clock_offset (id, seconds) VALUES (1, ?)", arguments: [seconds])
    }
}
