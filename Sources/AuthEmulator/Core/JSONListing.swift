import Foundation

/// A listing answer built from entries kept ready as they were written (`{"key":[e1,e2,…]}`):
/// a read of the code log costs the bytes it returns, not a parse and an encoding of every
/// stored record. Its bytes equal `JSONValue.object([key: .array(entries)]).serialized()`. An
/// element of `entries` may be a run of entries the store already joined with commas.
public struct JSONListing: Sendable, Equatable {
    public let key: String
    public let entries: [Data]

    public init(_ key: String, _ entries: [Data]) {
        self.key = key
        self.entries = entries
    }

    /// `{"key":[`
    public var opening: [UInt8] { Array("{".utf8) + JSONValue.string(key).serialized() + Array(":[".utf8) }
    public static let closing = Array("]}".utf8)

    /// How many bytes the answer has.
    public var count: Int { opening.count + entries.reduce(max(entries.count - 1, 0)) { $0 + $1.count } + 2 }

    /// The answer in one array (the HTTP layer writes the parts into its buffer instead).
    public var bytes: [UInt8] {
        var output = opening
        output.reserveCapacity(count)
        for (index, entry) in entries.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            entry.withUnsafeBytes { output.append(contentsOf: $0) }
        }
        return output + Self.closing
    }

    public static func body(_ key: String, _ entries: [Data]) -> [UInt8] { JSONListing(key, entries).bytes }
}

extension SmsMessage {
    /// Its entry in `GET …/smsMessages`, serialized (kept in the store beside the record).
    public var listingEntry: Data { Data(wireValue.serialized()) }

    /// Its entry in `GET …/verificationCodes` (firebase-tools' shape), serialized.
    public var codeEntry: Data {
        Data(
            JSONValue.object([
                "code": .string(code), "phoneNumber": .string(phoneNumber), "sessionInfo": .string(sessionInfo),
            ]).serialized())
    }
}

extension OobCode {
    /// Its entry in `GET …/oobCodes` (firebase-tools' shape). `email` is where the mail went: for
    /// a verify-and-change it is the new address, as production sends it there (the JS SDK's
    /// `verifyBeforeUpdateEmail` test looks the code up by that address).
    public var listingValue: JSONValue {
        let recipient = requestType == .verifyAndChangeEmail ? newEmail ?? email : email
        var entry: [String: JSONValue] = [
            "email": .string(recipient), "requestType": .string(requestType.rawValue), "oobCode": .string(oobCode),
            "oobLink": .string(oobLink),
        ]
        if let newEmail { entry["newEmail"] = .string(newEmail) }
        return .object(entry)
    }

    /// That entry, serialized (kept in the store beside the record).
    public var listingEntry: Data { Data(listingValue.serialized()) }
}
