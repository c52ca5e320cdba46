import Foundation
import Synchronization

/// The results of redirect IdP sign-ins, handed from the emulator's sign-in page to its helper
/// iframe through the daemon. The two pages share an origin, but a browser gives the iframe, which
/// is embedded in the app's page, its own partitioned sessionStorage (an app on `localhost` with
/// the emulator on `127.0.0.1` never saw its result: firebase-tools#6341). A result is kept per
/// app (`apiKey:appName`) and the app's origin, with the SDK's `eventId` and the page's
/// `sessionId`; the iframe takes the newest one, once. Results live in memory for ten minutes:
/// a redirect comes back in seconds, and a restart in between only loses that one sign-in.
///
/// The endpoint takes no credential, so what it keeps is bounded: an event of at most 16 KiB
/// (`maxEventBytes`), the newest 10 per app and origin, 1,000 in all (the oldest go first), on the
/// emulator's clock. At most ~17 MB, however it is called.
public final class IdpRedirectEvents: Sendable {
    public struct Event: Sendable, Equatable {
        public var storageKey: String
        public var appOrigin: String
        public var eventId: String?
        public var sessionId: String?
        public var authEvent: JSONValue
        var storedAt: Double
    }

    static let lifetimeSeconds: Double = 600
    /// The most bytes an event's fields may take (an SDK's auth event is under 4 KiB).
    public static let maxEventBytes = 16 * 1024
    static let maxPerApp = 10
    static let maxEvents = 1000
    private let events = Mutex<[Event]>([])

    public init() {}

    func put(_ event: Event) {
        events.withLock { list in
            list.removeAll { $0.storedAt + Self.lifetimeSeconds < event.storedAt }
            let sameApp = list.indices.filter {
                list[$0].storageKey == event.storageKey && list[$0].appOrigin == event.appOrigin
            }
            if sameApp.count >= Self.maxPerApp { list.remove(at: sameApp[0]) }
            if list.count >= Self.maxEvents { list.removeFirst(list.count - Self.maxEvents + 1) }
            list.append(event)
        }
    }

    var count: Int { events.withLock { $0.count } }

    func take(storageKey: String, appOrigin: String, now: Double) -> Event? {
        events.withLock { list in
            list.removeAll { $0.storedAt + Self.lifetimeSeconds < now }
            guard let index = list.lastIndex(where: { $0.storageKey == storageKey && $0.appOrigin == appOrigin })
            else { return nil }
            return list.remove(at: index)
        }
    }
}

/// `POST /emulator/auth/redirectEvents`: what the sign-in page stores.
public struct StoreRedirectEventRequest: Decodable, Sendable {
    public var apiKey: String?
    public var appName: String?
    public var appOrigin: String?
    public var eventId: String?
    public var sessionId: String?
    public var authEvent: JSONValue?
}

/// `POST /emulator/auth/redirectEvents:take`: what the helper iframe asks for.
public struct TakeRedirectEventRequest: Decodable, Sendable {
    public var apiKey: String?
    public var appName: String?
    public var appOrigin: String?
}

extension Emulator {
    public func storeRedirectEvent(_ request: StoreRedirectEventRequest) throws -> JSONValue {
        let storageKey = try Self.redirectStorageKey(apiKey: request.apiKey, appName: request.appName)
        let origin = try Self.redirectAppOrigin(request.appOrigin)
        guard let authEvent = request.authEvent, case .object = authEvent else {
            throw AuthError("MISSING_AUTH_EVENT", "authEvent must be an object.")
        }
        let size =
            authEvent.serialized().count + storageKey.utf8.count + origin.utf8.count
            + (request.eventId?.utf8.count ?? 0) + (request.sessionId?.utf8.count ?? 0)
        guard size <= IdpRedirectEvents.maxEventBytes else {
            throw AuthError(
                "AUTH_EVENT_TOO_LARGE", "A redirect event may take at most \(IdpRedirectEvents.maxEventBytes) bytes.")
        }
        redirectEvents.put(
            .init(
                storageKey: storageKey, appOrigin: origin, eventId: request.eventId, sessionId: request.sessionId,
                authEvent: authEvent, storedAt: clock.now().timeIntervalSince1970))
        logger.info("IdP redirect result stored for \(storageKey) at \(origin)")
        return .object([:])
    }

    public func takeRedirectEvent(_ request: TakeRedirectEventRequest) throws -> JSONValue {
        let storageKey = try Self.redirectStorageKey(apiKey: request.apiKey, appName: request.appName)
        let origin = try Self.redirectAppOrigin(request.appOrigin)
        guard
            let event = redirectEvents.take(
                storageKey: storageKey, appOrigin: origin, now: clock.now().timeIntervalSince1970)
        else { return .object(["authEvent": .null]) }
        return .object(["authEvent": event.authEvent])
    }

    static func redirectStorageKey(apiKey: String?, appName: String?) throws(AuthError) -> String {
        guard let apiKey, !apiKey.isEmpty else { throw AuthError("MISSING_API_KEY", "apiKey is required.") }
        guard let appName, !appName.isEmpty else { throw AuthError("MISSING_APP_NAME", "appName is required.") }
        return "\(apiKey):\(appName)"
    }

    /// `scheme://host[:port]` of the app, as `URL.origin` and `location.ancestorOrigins` give it.
    static func redirectAppOrigin(_ text: String?) throws(AuthError) -> String {
        guard let text, let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/"
        else { throw AuthError("INVALID_APP_ORIGIN", "appOrigin must be an http(s) origin.") }
        return url.port.map { "\(scheme)://\(host.lowercased()):\($0)" } ?? "\(scheme)://\(host.lowercased())"
    }
}
