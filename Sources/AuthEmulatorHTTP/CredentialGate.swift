import AuthEmulator
import Foundation

/// Which credential a route takes (firebase-tools' security schemes, per operation). Every line
/// of `routeTable` declares one; `CredentialGate` enforces it before any handler runs.
enum Access: CaseIterable {
    /// Client APIs: an API key, or the admin credential (which adds powers).
    case client
    /// Admin APIs (`/projects/{p}/…`, the v3 batch calls): the admin credential.
    case admin
    /// API key only (securetoken).
    case apiKey
    /// Public endpoints (signing keys, health, the action and IdP pages): no credential.
    case open
    /// The emulator API (codes, links, config, reset, app-verification stubs): no credential on a
    /// loopback listener, nor off loopback with the default token, as firebase-tools; off loopback
    /// with an `admin_token` of one's own, that credential.
    case emulator
    /// Emulator endpoints that act on the whole daemon (the clock): no credential on a loopback
    /// listener, the admin credential on any other.
    case emulatorAdmin
    /// The inspector: its own login and CSRF checks (`InspectorAccess`); not in the API document.
    case ui
}

/// The one place a request's credential is judged against its route's `Access`, and the one place
/// a request may widen the scope it acts on. Whatever in a request can name another project or
/// tenant (`targetProjectId` in the body or the query, `tenantId` in the body or the query, the
/// path's `{project}` and `{tenant}`) is read here, in every JSON shape, before any handler runs:
/// - only the admin may name a project in the body or query: any `targetProjectId` member from
///   anyone else (a string, `""`, a number, `null`, an object, a list) is `INSUFFICIENT_PERMISSION`;
/// - the admin's `targetProjectId` is a string (`""` and `null` name none), else 400;
/// - a body or query `tenantId` is a string or `null`, else 400;
/// - ids are checked by `Scope.resolve` (the rule every adapter uses).
/// Handlers get the resolved `Caller`; they can narrow what it may do, never widen it.
struct CredentialGate {
    let settings: HTTPSettings

    /// Refuses a request whose credential the route's access does not take.
    func admit(_ access: Access, isAdmin: Bool, hasKey: Bool) throws(AuthError) {
        switch access {
        case .open, .ui: return
        case .emulator:
            if !isAdmin, !settings.loopbackOnly, settings.hasOwnAdminToken {
                throw AuthError.adminCredentialOffLoopback
            }
        case .emulatorAdmin:
            if !isAdmin, !settings.loopbackOnly { throw AuthError.adminCredentialOffLoopback }
        case .client:
            if !isAdmin, !hasKey { throw AuthError.missingAPIKey }
        case .apiKey:
            if !hasKey { throw AuthError.missingAPIKey }
        case .admin:
            if !isAdmin { throw hasKey ? AuthError.adminCredentialRequired : AuthError.missingAPIKey }
        }
    }

    /// The project a request acts on: the path's, else the admin's `targetProjectId`, else the
    /// daemon's default. Routes of the emulator API and public pages name theirs in the path only.
    func project(
        _ access: Access, isAdmin: Bool, path: String?, body: JSONValue, query: [String: [String]]
    ) throws(AuthError) -> String {
        let fallback = path ?? settings.defaultProjectId
        guard access == .client || access == .apiKey || access == .admin else { return fallback }
        let fromBody = body["targetProjectId"]
        let fromQuery = query["targetProjectId"]
        guard fromBody != nil || fromQuery != nil else { return fallback }
        guard isAdmin else { throw AuthError.adminCredentialRequired }
        let named: String?
        switch fromBody {
        case .string(let text)?: named = text
        case .null?, nil: named = fromQuery?.first
        default: throw Self.notAString("target_project_id")
        }
        guard let named, !named.isEmpty else { return fallback }
        return named
    }

    /// A body's or query's `tenantId`, which must be text when given.
    static func tenant(body: JSONValue, query: [String: [String]]) throws(AuthError) -> (body: String?, query: String?)
    {
        let fromBody: String?
        switch body["tenantId"] {
        case .string(let text)?: fromBody = text
        case .null?, nil: fromBody = nil
        default: throw notAString("tenant_id")
        }
        return (fromBody, query["tenantId"]?.first)
    }

    /// Production's answer to a member of the wrong JSON type (a proto string field).
    static func notAString(_ field: String) -> AuthError {
        .invalidJSON("Invalid value at '\(field)' (TYPE_STRING).")
    }
}
