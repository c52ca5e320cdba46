import AuthEmulator
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Everything `authemu serve` needs to build the daemon; flags, environment and the YAML file
/// are merged into this by the executable.
public struct AppConfig: Sendable {
    /// `localhost` (the default): 127.0.0.1 and ::1; any other value is bound as given.
    public var host = "localhost"
    public var port = 9099
    public var projectId = "demo-project"
    /// SQLite file; ignored when `ephemeral` or `storeURL`.
    public var dataPath = ".authemu/state.sqlite"
    public var ephemeral = false
    /// A PostgreSQL URL (`postgres://…`): the state lives there instead of SQLite.
    public var storeURL: String?
    public var adminToken = "owner"
    public var maxBodyBytes = 16 * 1024 * 1024
    /// Header, body and idle timeouts, and the connections a listener keeps open.
    public var connections = ConnectionLimits()
    /// Base of links in emails; defaults to `http://host:port`.
    public var publicURL: String?
    /// Per-project settings from the configuration file (v2 Config / Tenant shapes).
    public var projects: JSONValue?
    /// `rs256`: ID tokens and session cookies signed with the daemon's stored key.
    public var tokenSigning = TokenSigning.none
    /// PEM file of extra CA certificates trusted for `https://` blocking functions.
    public var functionsCAFile: String?
    /// What a request for another project gets (`single_project`, firebase.json `singleProjectMode`).
    public var singleProjectMode = SingleProjectMode.off
    /// Where `user.create` / `user.delete` events go (`functions_emulator`).
    public var functionsEmulator = FunctionsEmulatorSetting.discover

    public init() {}

    /// Where links point when no request says (its `Host` header is used when one does).
    public var resolvedPublicURL: String {
        if let publicURL { return publicURL }
        let shown = host.lowercased() == "localhost" ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)"
    }
}

/// Builds the router with every route and middleware; tests drive it with `app.test(.router)`.
public func buildRouter(emulator: Emulator, config: AppConfig) -> ExactPathRouter<AuthRequestContext> {
    buildRouter(emulator: emulator, config: config, open: OpenConnections(maximum: nil))
}

/// As the public one; `open` is the listener's tally of connections and unread answers, which
/// bulk answers wait on.
func buildRouter(emulator: Emulator, config: AppConfig, open: OpenConnections) -> ExactPathRouter<AuthRequestContext> {
    let router = Router(context: AuthRequestContext.self)
    // A loopback listener answers only requests that name it (the DNS-rebinding defence); CORS is
    // outside the envelope, so every answer carries it: errors are enveloped inside it.
    router.add(
        middleware: BrowserDefenceMiddleware(
            policy: OriginPolicy(publicURL: config.publicURL, routes: routeTable),
            names: isLoopbackAddress(config.host)
                ? DaemonNames(listenerHost: config.host, publicURL: config.publicURL) : nil))
    router.add(middleware: ErrorEnvelopeMiddleware())
    let settings = HTTPSettings(
        defaultProjectId: config.projectId, adminToken: config.adminToken, maxBodyBytes: config.maxBodyBytes,
        loopbackOnly: isLoopbackAddress(config.host))
    let exact = ExactPaths<AuthRequestContext>()
    let inspector = InspectorPages(
        emulator: emulator,
        access: InspectorAccess(adminToken: settings.adminToken, loopbackOnly: settings.loopbackOnly),
        maxBodyBytes: settings.maxBodyBytes)
    RouteRegistration(
        router: router, exact: exact,
        services: RouteServices(
            emulator: emulator, settings: settings, inspector: inspector,
            bulkAnswers: BulkAnswerGate(
                open: open, budget: config.connections.maxUnreadAnswerBytes))
    ).register(routeTable)
    return ExactPathRouter(router: router, exact: exact)
}

/// Builds the domain graph on a store.
/// `functions` replaces the HTTP client of blocking functions (route tests pass a fake one).
public func makeEmulator(
    config: AppConfig, store: any AuthStore, clock: any AuthClock = SystemClock(),
    random: any RandomSource = SystemRandomSource(), logger: Logger = Logger(label: "authemu"),
    functions: (any BlockingFunctionTransport)? = nil, passwordCheck: PasswordCheck = .pooled,
    functionsEmulator: (any FunctionsEmulatorLink)? = nil
) async throws -> Emulator {
    let link = functionsEmulator ?? config.functionsEmulator.link()
    logger.info(
        "\(link?.startupDescription ?? "auth events are not sent (functions_emulator: none)")",
        metadata: ["event": "functions"])
    let emulator = await Emulator(
        store: store, clock: clock, random: random,
        options: EmulatorOptions(
            defaultProjectId: config.projectId, publicURL: config.resolvedPublicURL,
            publicURLIsFixed: config.publicURL != nil, singleProjectMode: config.singleProjectMode),
        logger: logger,
        blockingFunctionTransport: try functions ?? BlockingFunctionHTTPClient(caFile: config.functionsCAFile),
        passwordCheck: passwordCheck, functionsEmulator: link)
    try await emulator.restoreClockSetting()
    try await emulator.loadTokenSecret()
    if let projects = config.projects { try await emulator.applyProjectSeeds(projects) }
    if config.tokenSigning == .rs256 { try await emulator.enableSignedTokens() }
    return emulator
}

/// The one function that builds the daemon, for `serve` and for tests.
public func buildApplication(
    config: AppConfig, emulator: Emulator, logger: Logger = Logger(label: "authemu"),
    connectionExecutor: ConnectionExecutor? = nil,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let open = OpenConnections(maximum: config.connections.maxConnections)
    let router = buildRouter(emulator: emulator, config: config, open: open)
    return Application(
        router: router,
        server: .http1ClosingHTTP10(
            executor: connectionExecutor, limits: config.connections, maxBodyBytes: config.maxBodyBytes, open: open),
        configuration: .init(
            address: .hostname(config.host, port: config.port), serverName: "authemu/\(BuildVersion.number)",
            availableConnectionsDelegate: ConnectionGate(open: open)),
        onServerRunning: onServerRunning,
        logger: logger)
}
