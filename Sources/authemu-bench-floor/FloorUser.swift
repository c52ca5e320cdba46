import Foundation

/// A stored user's record: as long as a signed-up user's.
let floorRecord = Data(repeating: UInt8(ascii: "x"), count: 490)

/// A new user's random key.
func floorLocalId() -> String {
    String(UInt64.random(in: 0 ... .max), radix: 36) + String(UInt64.random(in: 0 ... .max), radix: 36)
}
