import AuthEmulator
import Foundation

/// The values the inspector's templates show, made from domain records. Plain dictionaries:
/// the templates escape every one of them.
enum InspectorViews {
    /// `projects/{p}` or `projects/{p}/tenants/{t}`.
    static func scopePath(_ scope: Scope) -> String {
        var path = "/emulator/ui/projects/\(escapePath(scope.projectId))"
        if let tenant = scope.tenantId { path += "/tenants/\(escapePath(tenant))" }
        return path
    }

    static func scopeApi(_ scope: Scope) -> String {
        var path = "/emulator/v1/projects/\(escapePath(scope.projectId))"
        if let tenant = scope.tenantId { path += "/tenants/\(escapePath(tenant))" }
        return path
    }

    static func scopeLabel(_ scope: Scope) -> String {
        scope.tenantId.map { "\(scope.projectId) / \($0)" } ?? scope.projectId
    }

    static func escapePath(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? segment
    }

    static func query(_ items: [(String, String)]) -> String {
        var components = URLComponents()
        components.queryItems = items.filter { !$0.1.isEmpty }.map { URLQueryItem(name: $0.0, value: $0.1) }
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }

    /// `{iso, utc}` of epoch milliseconds as the store keeps them (nil when absent or garbled).
    static func time(millis: String?) -> [String: String]? {
        guard let millis, let value = Double(millis) else { return nil }
        return time(Date(timeIntervalSince1970: value / 1000))
    }

    static func time(seconds: String?) -> [String: String]? {
        guard let seconds, let value = Double(seconds) else { return nil }
        return time(Date(timeIntervalSince1970: value))
    }

    /// The header's note that the daemon's clock is not the real time (nil when it is).
    static func clockBadge(_ reading: ClockReading) -> [String: Any]? {
        guard !reading.isReal else { return nil }
        let offset = reading.offsetSeconds.formatted(.number.precision(.fractionLength(0...3)).grouping(.never))
        let state = reading.frozen ? "frozen at" : "moved to"
        return ["state": state, "time": time(reading.now), "offset": (reading.offsetSeconds >= 0 ? "+" : "") + offset]
    }

    static func time(_ date: Date) -> [String: String] {
        let iso = date.rfc3339Millis
        return ["iso": iso, "utc": iso.replacingOccurrences(of: "T", with: " ")]
    }

    static func userRow(_ user: UserRecord, scope: Scope) -> [String: Any] {
        var row: [String: Any] = [
            "localId": user.localId, "link": "\(scopePath(scope))/users/\(escapePath(user.localId))",
            "email": user.email ?? "", "phoneNumber": user.phoneNumber ?? "", "displayName": user.displayName ?? "",
            "providers": user.providers.map(\.providerId).joined(separator: ", "),
            "factors": user.enrollments.map { $0.totpInfo != nil ? "TOTP" : "SMS" }.joined(separator: ", "),
            "disabled": user.isDisabled,
        ]
        row["created"] = time(millis: user.createdAt)
        row["lastSignIn"] = time(millis: user.lastLoginAt)
        return row
    }

    static func smsRow(_ message: SmsMessage) -> [String: Any] {
        [
            "sentAt": message.sentAt.rfc3339Millis, "phoneNumber": message.phoneNumber, "code": message.code,
            "purpose": message.purpose.rawValue, "status": message.status.rawValue,
        ]
    }

    static func oobRows(_ listed: JSONValue, email: String?) -> [[String: Any]] {
        let codes = listed["oobCodes"]?.arrayValue ?? []
        return codes.reversed().compactMap { code in
            guard email == nil || code["email"]?.stringValue == email else { return nil }
            return [
                "email": code["email"]?.stringValue ?? "", "requestType": code["requestType"]?.stringValue ?? "",
                "oobLink": code["oobLink"]?.stringValue ?? "", "oobCode": code["oobCode"]?.stringValue ?? "",
            ]
        }
    }

    static func pushRow(_ push: ApnsPush) -> [String: Any] {
        ["sentAt": push.sentAt.rfc3339Millis, "payload": push.payload.prettyText]
    }

    static func claims(_ user: UserRecord) -> String {
        guard let text = user.customAttributes, let value = try? JSONValue.parse(Data(text.utf8)) else { return "{}" }
        return value.prettyText
    }
}

extension JSONValue {
    /// Indented JSON with sorted keys, for people to read.
    var prettyText: String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(serialized()), options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(
                withJSONObject: object,
                options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return String(decoding: serialized(), as: UTF8.self) }
        return String(decoding: data, as: UTF8.self)
    }
}
