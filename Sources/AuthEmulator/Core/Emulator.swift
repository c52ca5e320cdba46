import Foundation
import Logging

/// Settings of the emulator that the domain needs (the rest is daemon configuration).
public struct EmulatorOptions: Sendable {
    /// The project every API key maps to.
    public var defaultProjectId: String
    /// Base URL written into email action links, e.g. `http://127.0.0.1:9099`.
    public var publicURL: String
    /// Whether `publicURL` was configured (`public_url`); if not, links follow the request's `Host`.
    public var publicURLIsFixed: Bool
    /// What a request for another project gets (firebase-tools' `singleProjectMode`).
    public var singleProjectMode: SingleProjectMode

    public init(
        defaultProjectId: String = "demo-project", publicURL: String = "http://127.0.0.1:9099",
        publicURLIsFixed: Bool = false, singleProjectMode: SingleProjectMode = .off
    ) {
        self.defaultProjectId = defaultProjectId
        self.publicURL = publicURL
        self.publicURLIsFixed = publicURLIsFixed
        self.singleProjectMode = singleProjectMode
    }

    /// The base of the emulator's own links for this caller: the configured `public_url`, else
    /// the address the client used (`http://` + its `Host`), so a page opened as `localhost` never
    /// sends the browser to `127.0.0.1` (their web storage differs).
    public func linkBase(for caller: Caller) -> String {
        publicURLIsFixed ? publicURL : caller.requestOrigin ?? publicURL
    }
}

/// Who is calling: which scope the request resolved to, and whether it carried the admin
/// credential (`Authorization: Bearer owner`).
public struct Caller: Sendable {
    public var scope: Scope
    public var isAdmin: Bool
    /// The client's address, for per-address SMS quotas (nil when unknown).
    public var clientIP: String?
    /// `http://` + the request's `Host`, when it is a plain host[:port] (nil otherwise).
    public var requestOrigin: String?

    public init(scope: Scope, isAdmin: Bool, clientIP: String? = nil, requestOrigin: String? = nil) {
        self.scope = scope
        self.isAdmin = isAdmin
        self.clientIP = clientIP
        self.requestOrigin = requestOrigin
    }
}

extension Caller {
    /// Admin-only operations check this themselves too, so no route that reaches them without the
    /// admin credential (a mistake in the route table) can widen what a client may do.
    public func requireAdmin() throws(AuthError) {
        guard isAdmin else { throw AuthError.adminCredentialRequired }
    }
}

/// The whole domain graph: store, clock, randomness, tokens and options. Services are thin
/// extensions over it, one file per capability.
public final class Emulator: Sendable {
    public let store: any AuthStore
    /// The emulator's time: `movableClock`, read everywhere in the domain.
    public let clock: any AuthClock
    /// The given clock plus the offset tests move (`/emulator/v1/clock`).
    public let movableClock: MovableClock
    public let random: any RandomSource
    public let tokens: TokenService
    public let options: EmulatorOptions
    public let logger: Logger
    /// Reaches the project's blocking functions (nil: every call fails as unreachable).
    public let blockingFunctionTransport: (any BlockingFunctionTransport)?
    /// Checks a password against an imported hash, outside every transaction.
    public let passwordCheck: PasswordCheck
    /// Sends committed `user.create` / `user.delete` events to the Functions emulator (nil: none sent).
    public let authEvents: AuthEventDelivery?
    /// Wakes long-polling outbox readers.
    public let outboxSignal = OutboxSignal()
    /// Wakes long-polling APNs outbox readers.
    public let pushSignal = OutboxSignal()
    /// Redirect IdP results on their way from the sign-in page to the helper iframe.
    public let redirectEvents = IdpRedirectEvents()
    let settingsCache = SettingsCache()
    let storeReadiness = StoreReadiness()
    let codeListings = CodeListingCache()
    let warnedProjects = WarnedProjects()

    public init(
        store: any AuthStore, clock: any AuthClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        options: EmulatorOptions = EmulatorOptions(), logger: Logger = Logger(label: "authemu"),
        blockingFunctionTransport: (any BlockingFunctionTransport)? = nil, passwordCheck: PasswordCheck = .pooled,
        functionsEmulator: (any FunctionsEmulatorLink)? = nil,
        eventLimits: AuthEventDelivery.Limits = AuthEventDelivery.Limits(),
        eventTiming: AuthEventDelivery.Timing = .real
    ) async {
        self.blockingFunctionTransport = blockingFunctionTransport
        let delivery = functionsEmulator.map {
            AuthEventDelivery(link: $0, limits: eventLimits, timing: eventTiming, logger: logger)
        }
        self.authEvents = delivery
        if let delivery { store.committedEvents.connect { events in delivery.enqueue(events) } }
        self.passwordCheck = passwordCheck
        self.store = store
        let movable = MovableClock(base: clock)
        self.movableClock = movable
        self.clock = movable
        self.random = random
        self.options = options
        self.logger = logger
        self.tokens = await TokenService(clock: movable)
        store.observeChanges { [weak self] change in self?.changedElsewhere(change) }
    }

    /// A write committed by another daemon on the same database: caches and long-polls follow it.
    private func changedElsewhere(_ change: StoreChange) {
        switch change {
        case .settings: settingsChanged()
        case .sms: Task { await outboxSignal.notify() }
        case .apns: Task { await pushSignal.notify() }
        case .clock: Task { try? await restoreClockSetting() }
        }
    }

    var nowMillisString: String { String(clock.now().epochMillis) }
}

extension Emulator {
    /// The project config with defaults filled in.
    static func projectConfig(_ tx: any StoreTransaction, projectId: String) async throws -> JSONValue {
        let defaults = ResourceDefaults.projectConfig(projectId: projectId)
        guard let stored = try await tx.projectConfig(projectId: projectId) else { return defaults }
        return defaults.merged(with: stored)
    }

    /// The tenant resource, created with everything enabled when it is referenced before being
    /// created (firebase-tools does the same); a tenant deleted through the API is not found
    /// (`TENANT_NOT_FOUND`, as production) until it is created again.
    static func tenantResource(_ tx: any StoreTransaction, projectId: String, tenantId: String, create: Bool)
        async throws
        -> JSONValue?
    {
        if let tenant = try await tx.tenant(projectId: projectId, tenantId: tenantId) { return tenant }
        if try await tx.tenantWasDeleted(projectId: projectId, tenantId: tenantId) { throw AuthError.tenantNotFound }
        guard create else { return nil }
        let tenant = ResourceDefaults.implicitTenant(projectId: projectId, tenantId: tenantId)
        try await tx.saveTenant(projectId: projectId, tenantId: tenantId, tenant)
        return tenant
    }

    /// Settings of a scope, from the cache or the store. In a write transaction a tenant that does
    /// not exist yet is created (implicitly, everything enabled); in a read it reads as that default.
    func settings(_ tx: any StoreTransaction, _ scope: Scope, create: Bool = true) async throws -> ScopeSettings {
        let (cached, generation) = settingsCache.lookup(scope)
        if let cached { return cached }
        let settings = create ? try await Emulator.settings(tx, scope) : try await Emulator.readSettings(tx, scope)
        if !create, scope.tenantId != nil,
            try await tx.tenant(projectId: scope.projectId, tenantId: scope.tenantId!) == nil
        {
            return settings
        }
        settingsCache.store(settings, for: scope, generation: generation)
        return settings
    }

    /// Settings of a scope whose authentication is not disabled (`disableAuth`): the guard every
    /// account operation passes first (`PROJECT_DISABLED` otherwise).
    @discardableResult
    func enabledSettings(_ tx: any StoreTransaction, _ scope: Scope, create: Bool = true) async throws -> ScopeSettings
    {
        let settings = try await settings(tx, scope, create: create)
        try settings.requireAuthEnabled()
        return settings
    }

    /// Called after any write to a project config or tenant has committed.
    func settingsChanged() { settingsCache.invalidate() }

    static func settings(_ tx: any StoreTransaction, _ scope: Scope) async throws -> ScopeSettings {
        let config = try await projectConfig(tx, projectId: scope.projectId)
        guard let tenantId = scope.tenantId else { return ScopeSettings(projectConfig: config) }
        let tenant = try await tenantResource(tx, projectId: scope.projectId, tenantId: tenantId, create: true)!
        return ScopeSettings(tenant: tenant, projectConfig: config)
    }

    /// Read-only variant: a tenant that does not exist yet reads as the implicit default.
    static func readSettings(_ tx: any StoreTransaction, _ scope: Scope) async throws -> ScopeSettings {
        let config = try await projectConfig(tx, projectId: scope.projectId)
        guard let tenantId = scope.tenantId else { return ScopeSettings(projectConfig: config) }
        let tenant =
            try await tenantResource(tx, projectId: scope.projectId, tenantId: tenantId, create: false)
            ?? ResourceDefaults.implicitTenant(projectId: scope.projectId, tenantId: tenantId)
        return ScopeSettings(tenant: tenant, projectConfig: config)
    }

    /// `PROJECT_DISABLED` before any other check, for operations whose first checks come before
    /// their transaction (firebase-tools asserts `!disableAuth` first in every account handler).
    func requireAuthEnabled(_ scope: Scope) async throws {
        try await store.read { tx in try await Emulator.readSettings(tx, scope).requireAuthEnabled() }
    }

    /// Resolves the user behind a presented ID token (firebase-tools' checks, in its order).
    static func userForIdToken(
        _ tx: any StoreTransaction, _ claims: IdTokenClaims, scope: Scope
    ) async throws -> UserRecord {
        if let tokenTenant = claims.tenantId, tokenTenant != scope.tenantId { throw AuthError.tenantIdMismatch }
        if claims.tenantId == nil, scope.tenantId != nil { throw AuthError.tenantIdMismatch }
        if let audience = claims.projectId, audience != scope.projectId { throw AuthError.invalidIdToken }
        guard let user = try await tx.user(scope, localId: claims.localId) else { throw AuthError.userNotFound }
        if let validSince = user.validSinceSeconds, claims.issuedAt < validSince { throw AuthError.tokenExpired }
        if let factor = claims.secondFactor, !user.hasEnrollment(factor.identifier) { throw AuthError.tokenExpired }
        if user.isDisabled { throw AuthError.userDisabled }
        return user
    }
}

/// The result of a successful sign-in step that should mint tokens.
public struct SessionGrant: Sendable {
    public var user: UserRecord
    public var scope: Scope
    public var provider: String
    public var secondFactor: SecondFactorClaim?
    public var extraClaims: [String: JSONValue] = [:]
    /// A SAML assertion's attribute statements, shown in the ID token as `firebase.sign_in_attributes`.
    public var signInAttributes: JSONValue?
    /// `auth_time` of a session that goes on (a refresh, a profile or factor change); nil for a
    /// sign-in or re-authentication, which authenticates now.
    public var authTime: Int64?

    public init(user: UserRecord, scope: Scope, provider: String, secondFactor: SecondFactorClaim? = nil) {
        self.user = user
        self.scope = scope
        self.provider = provider
        self.secondFactor = secondFactor
    }
}

extension Emulator {
    /// Mints `idToken`, `refreshToken` and `expiresIn` for a grant.
    public func issueTokens(_ grant: SessionGrant) async throws -> [String: JSONValue] {
        let now = clock.now().epochSeconds
        let authTime = grant.authTime ?? now
        let idToken = try await tokens.idToken(
            for: grant.user, scope: grant.scope, signInProvider: grant.provider, secondFactor: grant.secondFactor,
            extraClaims: grant.extraClaims, signInAttributes: grant.signInAttributes, authTime: authTime)
        var refresh = RefreshToken(
            localId: grant.user.localId, provider: grant.provider, extraClaims: grant.extraClaims, scope: grant.scope,
            secondFactor: grant.secondFactor, issuedAt: now)
        refresh.authTime = authTime
        return [
            "idToken": .string(idToken),
            "refreshToken": .string(refresh.encoded(sealedBy: tokens.seal)),
            "expiresIn": .string(String(TokenService.idTokenLifetime)),
        ]
    }
}
