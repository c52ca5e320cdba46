import Foundation

extension Int64 {
    /// The quotient rounded toward negative infinity (times before 1970 keep a positive fraction).
    fileprivate func quotient(dividingBy divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

/// A user created or deleted, as the Auth emulator of firebase-tools tells the Cloud Functions
/// emulator (`functions.auth.user().onCreate` / `onDelete`): the body of one `POST
/// /functions/projects/<project>/trigger_multicast`, written when the change is made and sent
/// after it commits (`AuthEventDelivery`).
public struct AuthEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case create, delete

        /// The event type a v1 auth trigger listens for.
        public var eventType: String { "providers/firebase.auth/eventTypes/user.\(rawValue)" }
    }

    public let kind: Kind
    /// The project the event belongs to: a tenant's parent project (the tenant is `data.tenantId`).
    public let projectId: String
    /// The JSON body, its keys in firebase-tools' order.
    public let body: Data

    public init(kind: Kind, projectId: String, body: Data) {
        self.kind = kind
        self.projectId = projectId
        self.body = body
    }

    /// The path the Functions emulator takes events on.
    public var path: String { "/functions/projects/\(projectId)/trigger_multicast" }

    /// The event for `user` of `scope`, as firebase-tools writes it (`cloudFunctions.ts`):
    /// `eventId`, `eventType`, `resource`, `params`, `timestamp`, `data`, in that order.
    public init(_ kind: Kind, user: UserRecord, scope: Scope, at time: Date, eventId: UUID = UUID()) {
        var event = OrderedJSONObject(capacity: 1024)
        event.member("eventId", .string(eventId.uuidString.lowercased()))
        event.member("eventType", .string(kind.eventType))
        var resource = OrderedJSONObject(capacity: 96)
        resource.member("name", .string("projects/\(scope.projectId)"))
        resource.member("service", .string("firebaseauth.googleapis.com"))
        event.member("resource", text: resource.closedBytes)
        event.member("params", text: Array("{}".utf8))
        event.member("timestamp", .string(time.rfc3339Millis))
        event.member("data", text: Self.data(of: user))
        self.init(kind: kind, projectId: scope.projectId, body: event.data())
    }

    /// The user in the v1 `UserRecord` shape functions receive: absent fields left out (never
    /// `null`), `metadata` and `customClaims` always there. Never the password hash, salt or a
    /// TOTP secret.
    static func data(of user: UserRecord) -> [UInt8] {
        var data = OrderedJSONObject(capacity: 768)
        data.member("uid", .string(user.localId))
        data.member("email", user.email.map(JSONValue.string))
        data.member("emailVerified", user.emailVerified.map(JSONValue.bool))
        data.member("displayName", user.displayName.map(JSONValue.string))
        data.member("photoURL", user.photoUrl.map(JSONValue.string))
        data.member("phoneNumber", user.phoneNumber.map(JSONValue.string))
        data.member("disabled", user.disabled.map(JSONValue.bool))
        var metadata = OrderedJSONObject(capacity: 96)
        metadata.member("creationTime", isoTime(millis: user.createdAt))
        metadata.member("lastSignInTime", isoTime(millis: user.lastLoginAt))
        data.member("metadata", text: metadata.closedBytes)
        data.member("customClaims", text: customClaims(user.customAttributes))
        if let providers = user.providerUserInfo {
            data.member("providerData", text: array(providers.map(providerData)))
        }
        data.member("tenantId", user.tenantId.map(JSONValue.string))
        if let factors = user.mfaInfo {
            data.member("mfaInfo", .array(factors.map(\.jsonValue)))
        }
        return data.closedBytes
    }

    private static func providerData(_ info: ProviderUserInfo) -> [UInt8] {
        var object = OrderedJSONObject(capacity: 256)
        object.member("rawId", info.rawId.map(JSONValue.string))
        object.member("providerId", .string(info.providerId))
        object.member("displayName", info.displayName.map(JSONValue.string))
        object.member("email", info.email.map(JSONValue.string))
        object.member("federatedId", info.federatedId.map(JSONValue.string))
        object.member("phoneNumber", info.phoneNumber.map(JSONValue.string))
        object.member("photoURL", info.photoUrl.map(JSONValue.string))
        object.member("screenName", info.screenName.map(JSONValue.string))
        return object.closedBytes
    }

    private static func array(_ elements: [[UInt8]]) -> [UInt8] {
        var text: [UInt8] = [UInt8(ascii: "[")]
        for (index, element) in elements.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ",")) }
            text.append(contentsOf: element)
        }
        text.append(UInt8(ascii: "]"))
        return text
    }

    /// `createdAt` / `lastLoginAt` (milliseconds as text) as ISO 8601 with milliseconds, exact
    /// (a `Double` of seconds would lose the last millisecond to rounding).
    private static func isoTime(millis: String?) -> JSONValue? {
        guard let millis, let value = Int64(millis) else { return nil }
        let seconds = value.quotient(dividingBy: 1000)
        let fraction = value - seconds * 1000
        let whole = Date(timeIntervalSince1970: Double(seconds)).rfc3339Millis.dropLast(".000Z".count)
        return .string(whole + "." + String(fraction + 1000).dropFirst() + "Z")
    }

    /// The custom attributes as the object they hold (written again, keys sorted); `{}` when none.
    private static func customClaims(_ attributes: String?) -> [UInt8] {
        guard let attributes, let parsed = try? JSONValue.parse(Data(attributes.utf8)), parsed.objectValue != nil
        else { return Array("{}".utf8) }
        return parsed.serialized()
    }
}
