import Foundation

/// Comparisons of secrets (SMS and TOTP codes, password hashes, the admin token, session values)
/// whose time depends only on the lengths compared, never on where the first difference is.
public enum ConstantTime {
    public static func equal(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0 && left.count == right.count
    }

    public static func equal(_ left: String, _ right: String) -> Bool { equal(Array(left.utf8), Array(right.utf8)) }

    public static func equal(_ left: Data, _ right: Data) -> Bool { equal(Array(left), Array(right)) }
}
