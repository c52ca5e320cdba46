import AuthEmulator
import HummingbirdCore
import NIOCore
import NIOHTTP1
import Synchronization

/// What one connection may hold: how long for a request's head, its body and an idle keep-alive,
/// the largest body, and how many connections a listener keeps open (`AppConfig.connections`).
public struct ConnectionLimits: Sendable {
    /// From a connection's first byte (or its opening) to the end of a request's head.
    public var headerTimeout: TimeAmount = .seconds(10)
    /// From a request's head to the end of its body.
    public var bodyTimeout: TimeAmount = .seconds(60)
    /// A keep-alive connection with no request in progress; also an answer its client does not
    /// read (the connection cannot take more of it) for this long.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// Connections a listener keeps open; at this many it stops accepting and closes idle ones,
    /// so a flood of idle connections never reaches the open-files limit. nil: no limit.
    public var maxConnections: Int?
    /// Bytes of answers waiting in connections whose clients do not read them (the socket has
    /// taken none for a second), over every connection: past it those connections are closed.
    public var maxUnreadAnswerBytes = 64 << 20
    /// Bytes of request bodies under way (received, their end not yet), over every connection:
    /// past it a body over `smallBodyBytes` is refused and, for five seconds, bodies under way for
    /// over a second are cut off, so clients that send big bodies and never finish them cannot fill the memory.
    public var maxPendingBodyBytes = 64 << 20

    public init() {}

    /// How often a connection looks at its deadline: a quarter of the shortest timeout, at most
    /// half a second (a full listener frees its idle connections within it, and its trickles
    /// within a second), with no timer set or cancelled per request.
    var tick: TimeAmount {
        .nanoseconds(min(max(min(headerTimeout, bodyTimeout, idleTimeout).nanoseconds / 4, 50_000_000), 500_000_000))
    }

    /// How long a head may take while the listener is full before its connection makes room.
    static let headGraceWhenFull = TimeAmount.milliseconds(500)
    /// How long a keep-alive connection may rest between requests while the listener is full
    /// before it makes room: a client at work sends its next request sooner, and closing it at
    /// once would race that request (the client would see its connection reset).
    static let idleGraceWhenFull = TimeAmount.milliseconds(250)
    /// A body this small is never refused for the pending-bodies budget: every API call's body is
    /// smaller, and all connections' small bodies together stay under `maxConnections` × 64 KiB.
    static let smallBodyBytes = 64 << 10
    /// How long a body may be under way while the pending bodies exceed their budget, or within
    /// `bodyRoomWindow` after one was refused for it.
    static let bodyGraceOverBudget = TimeAmount.seconds(1)
    static let bodyRoomWindow = TimeAmount.seconds(5)
}

/// The connections one listener has open, and the bytes of answers their clients have not read;
/// shared by its accept gate and its connections.
final class OpenConnections: Sendable {
    private let count = Atomic<Int>(0)
    private let unread = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    private let bodyRefused = Atomic<UInt64>(0)
    let maximum: Int?

    init(maximum: Int?) { self.maximum = maximum }

    /// Bytes buffered in connections that have taken none for a second
    /// (`ConnectionGuard.recountUnread`).
    var unreadAnswerBytes: Int { unread.load(ordering: .relaxed) }
    func unreadChanged(by delta: Int) { unread.add(delta, ordering: .relaxed) }
    /// Bytes buffered in connections that cannot take more now: what `BulkAnswerGate` waits on.
    var waitingAnswerBytes: Int { waiting.load(ordering: .relaxed) }
    func waitingChanged(by delta: Int) { waiting.add(delta, ordering: .relaxed) }
    /// Bytes of request bodies received whose end has not come (`ConnectionGuard.countBody`).
    var pendingBodyBytes: Int { pending.load(ordering: .relaxed) }
    func pendingChanged(by delta: Int) { pending.add(delta, ordering: .relaxed) }
    /// A body was refused for the budget (now): bodies long under way make room for the next.
    func bodyWasRefused(at now: NIODeadline) { bodyRefused.store(now.uptimeNanoseconds, ordering: .relaxed) }
    /// Whether the pending bodies' budget was wanted by a refused body in the `window` before `now`.
    func bodyRoomWanted(at now: NIODeadline, within window: TimeAmount) -> Bool {
        let refused = bodyRefused.load(ordering: .relaxed)
        return refused > 0 && now.uptimeNanoseconds &- refused <= UInt64(window.nanoseconds)
    }

    var current: Int { count.load(ordering: .relaxed) }
    /// At the maximum: idle connections close to make room.
    var isFull: Bool { maximum.map { current >= $0 } ?? false }
    func opened() { count.add(1, ordering: .relaxed) }
    func closed() { count.subtract(1, ordering: .relaxed) }
}

/// Hummingbird's accept gate, counting into `OpenConnections`: at the maximum the listener stops
/// accepting (connections wait in the backlog, nothing spins on EMFILE) until one closes.
struct ConnectionGate: AvailableConnectionsDelegate {
    let open: OpenConnections

    mutating func connectionOpened() { open.opened() }
    mutating func connectionClosed() { open.closed() }
    func isAcceptingNewConnections() -> Bool { !open.isFull }
}

/// Guards one HTTP/1 connection, between NIO's decoder and Hummingbird's codec:
/// - closes it when a request's head or body, or an idle keep-alive, outlasts its timeout (and
///   idle connections at once while the listener is full);
/// - answers `Expect: 100-continue`, and refuses an over-limit `Content-Length` with an enveloped
///   413 before the body is read;
/// - answers a request the parser refused with an enveloped 400 (431 for an oversized head), and
///   so an HTTP/1.1 request without exactly one `Host`;
/// - tells a long-poll that its client left (`departure`);
/// - marks a non-keep-alive HTTP/1.0 request `Connection: close`.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    enum Phase {
        /// Waiting for a request (the first one for at most the header timeout, later ones for the
        /// idle timeout): `bytesArrived` starts its head.
        case idle
        case head
        case body
        /// The request is in; the answer is not finished.
        case responding
        /// An over-limit body is read and dropped until its end; then the connection closes.
        case discarding
    }

    private let limits: ConnectionLimits
    private let maxBodyBytes: Int
    private let open: OpenConnections
    private var phase = Phase.idle
    private var since = NIODeadline.now()
    /// How long `idle` may last: the header timeout until a first answer, then the idle timeout.
    private var idleLimit: TimeAmount
    private var responseEnded = false
    /// Since when the socket has refused more of an answer (its client does not read), if it does.
    private var unwritableSince: NIODeadline?
    /// The bytes of this connection counted in `open.unreadAnswerBytes`.
    private var countedUnread = 0
    /// The bytes of this connection counted in `open.waitingAnswerBytes`.
    private var countedWaiting = 0
    /// The bytes of this request's body received so far, counted in `open.pendingBodyBytes`.
    private var countedBody = 0
    private var ticker: RepeatedTask?
    /// Completed when the client is gone (the connection closed, or its input ended mid-request).
    private(set) var departure: EventLoopPromise<Void>?

    init(limits: ConnectionLimits, maxBodyBytes: Int, open: OpenConnections) {
        self.limits = limits
        self.maxBodyBytes = maxBodyBytes
        self.open = open
        self.idleLimit = limits.headerTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        departure = context.eventLoop.makePromise()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ticker = context.eventLoop.scheduleRepeatedTask(initialDelay: limits.tick, delay: limits.tick) { _ in
            let (handler, context) = bound.value
            handler.check(context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ticker?.cancel()
        departure?.succeed()
        uncountUnread()
        uncountBody()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ticker?.cancel()
        departure?.succeed()
        uncountUnread()
        uncountBody()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent, phase == .responding { departure?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    /// A byte arrived (from `ByteArrival`, at the head of the pipeline). A first request's head
    /// is timed from the connection's opening, so a client that trickles cannot restart its
    /// deadline with its first byte.
    func bytesArrived() {
        guard phase == .idle else { return }
        phase = .head
        if answeredOnce { since = .now() }
    }

    /// Whether an answer was sent on this connection (its next head is timed from its first byte).
    private var answeredOnce = false

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        unwritableSince = context.channel.isWritable ? nil : .now()
        if unwritableSince == nil { uncountUnread() } else { recountWaiting(context) }
        context.fireChannelWritabilityChanged()
    }

    /// Counts what this connection's client has left unread into the listener's totals: its
    /// buffered bytes while the socket takes no more (`waitingAnswerBytes`), and once it has
    /// taken none of them for a second (`unreadAnswerBytes`).
    private func recountUnread(_ context: ChannelHandlerContext, now: NIODeadline) {
        guard let since = unwritableSince else { return uncountUnread() }
        let buffered = recountWaiting(context)
        guard now - since > .seconds(1) else { return }
        open.unreadChanged(by: buffered - countedUnread)
        countedUnread = buffered
    }

    @discardableResult
    private func recountWaiting(_ context: ChannelHandlerContext) -> Int {
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        open.waitingChanged(by: buffered - countedWaiting)
        countedWaiting = buffered
        return buffered
    }

    private func uncountUnread() {
        open.unreadChanged(by: -countedUnread)
        countedUnread = 0
        open.waitingChanged(by: -countedWaiting)
        countedWaiting = 0
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            phase = .body
            responseEnded = false
            since = .now()
            if let problem = Self.hostProblem(head) {
                phase = .discarding
                return send(
                    context, version: head.version, status: .badRequest, error: .malformedHTTP(problem), closing: false)
            }
            if head.method != .GET, head.method != .HEAD {
                if let refusal = refusal(head) { return refuse(context, head: head, expectsContinue: refusal) }
                if head.headers.contains(name: "expect") { answerContinue(context, head: head) }
            }
            // An HTTP/1.0 request without keep-alive gets `Connection: close`, so the connection
            // closes after the answer (ApacheBench and some health checkers wait for that; a bare
            // Hummingbird server leaves it open).
            if head.version.major == 1, head.version.minor == 0, !head.isKeepAlive {
                head.headers.replaceOrAdd(name: "connection", value: "close")
                return context.fireChannelRead(wrapInboundOut(.head(head)))
            }
        case .body(let part):
            if phase == .discarding { return }
            if !countBody(part.readableBytes) { return refuseOverBudget(context) }
        case .end:
            uncountBody()
            if phase == .discarding { return close(context) }
            phase = responseEnded ? .idle : .responding
            since = .now()
        }
        context.fireChannelRead(data)
    }

    /// An answer is flushed: the request is answered (Hummingbird flushes each part of an answer
    /// as it writes it, and writes an answer only once it is ready). Flushes, not writes, are
    /// watched: unwrapping each outbound part cost ~1,500 instructions (a dynamic cast).
    func flush(context: ChannelHandlerContext) {
        responseEnded = true
        answeredOnce = true
        idleLimit = limits.idleTimeout
        if phase == .responding {
            phase = .idle
            since = .now()
        }
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        // A body that breaks its framing (a malformed chunk) is answered too, before anything
        // else was (the handler waits for the body's end): the 400 is flushed and the connection
        // closed at once, so nothing the handler might write later reaches the client.
        guard phase == .idle || phase == .head || (phase == .body && !responseEnded) else { return close(context) }
        phase = .discarding
        if parserError == .headerOverflow {
            send(
                context, version: .http1_1, status: .requestHeaderFieldsTooLarge,
                error: .malformedHTTP("The request line and headers exceed 80 KB."))
        } else {
            send(
                context, version: .http1_1, status: .badRequest,
                error: .malformedHTTP("The request is not valid HTTP/1.1: \(Self.fault(parserError))."))
        }
    }

    /// What the parser found, in words.
    static func fault(_ error: HTTPParserError) -> String {
        switch error {
        case .invalidMethod: "an unknown method"
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
            "an invalid request target"
        case .invalidVersion: "an unknown HTTP version"
        case .invalidHeaderToken, .invalidCharactersUsed, .lfExpected, .invalidConstant:
            "a malformed request line or header"
        case .invalidContentLength, .unexpectedContentLength: "an invalid Content-Length"
        case .invalidChunkSize: "an invalid chunk size"
        default: "its framing (Content-Length with Transfer-Encoding, or a malformed chunk)"
        }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request has exactly one `Host`; an HTTP/1.0 one at most one.
    static func hostProblem(_ head: HTTPRequestHead) -> String? {
        var count = 0
        for header in head.headers where header.name.utf8.count == 4 && header.name.lowercased() == "host" {
            count += 1
        }
        if count > 1 { return "The request has \(count) Host headers; HTTP/1.1 allows one." }
        if count == 0, head.version.major == 1, head.version.minor >= 1 {
            return "The request has no Host header; HTTP/1.1 requires one."
        }
        return nil
    }

    // MARK: Deadlines

    /// Closes the connection past its phase's deadline. While the listener is full, those that
    /// have sent the least make room: one idle for a quarter of a second, and one still sending its
    /// head after half a second (a client sends a head in milliseconds; a trickle would hold its slot for the whole
    /// header timeout). An answer its client has not read for the idle timeout ends it too, with
    /// the buffered answer, and at once while the unread answers of all connections exceed
    /// `maxUnreadAnswerBytes`. For five seconds after a body was refused for `maxPendingBodyBytes`,
    /// those under way for over a second are cut off (clients that send most of a body and stop).
    private func check(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        recountUnread(context, now: now)
        if countedUnread > 0, open.unreadAnswerBytes > limits.maxUnreadAnswerBytes { return close(context) }
        let elapsed = now - since
        let bodyRoomWanted =
            open.pendingBodyBytes > limits.maxPendingBodyBytes
            || open.bodyRoomWanted(at: now, within: ConnectionLimits.bodyRoomWindow)
        let expired =
            switch phase {
            case .idle: elapsed > idleLimit || (open.isFull && elapsed > ConnectionLimits.idleGraceWhenFull)
            case .head: elapsed > limits.headerTimeout || (open.isFull && elapsed > ConnectionLimits.headGraceWhenFull)
            case .body:
                elapsed > limits.bodyTimeout || (bodyRoomWanted && elapsed > ConnectionLimits.bodyGraceOverBudget)
            case .discarding:
                elapsed > limits.bodyTimeout
                    || (countedBody > 0 && bodyRoomWanted && elapsed > ConnectionLimits.bodyGraceOverBudget)
            case .responding: false
            }
        let unread = unwritableSince.map { now - $0 > limits.idleTimeout } ?? false
        if expired || unread { close(context) }
    }

    private func close(_ context: ChannelHandlerContext) {
        ticker?.cancel()
        context.close(promise: nil)
    }

    // MARK: Bodies

    /// Counts a part of a body under way; false when the body is over `smallBodyBytes` and the
    /// bodies under way exceed `maxPendingBodyBytes` (counting it).
    private func countBody(_ bytes: Int) -> Bool {
        countedBody += bytes
        open.pendingChanged(by: bytes)
        return countedBody <= ConnectionLimits.smallBodyBytes || open.pendingBodyBytes <= limits.maxPendingBodyBytes
    }

    private func uncountBody() {
        open.pendingChanged(by: -countedBody)
        countedBody = 0
    }

    /// 503 while bodies under way fill their budget (before anything else was answered: the
    /// handler waits for the body's end); the rest of the body is dropped, not kept, and the
    /// connection closes at its end. What the handler already holds stays counted until then.
    private func refuseOverBudget(_ context: ChannelHandlerContext) {
        open.bodyWasRefused(at: .now())
        guard !responseEnded else { return close(context) }
        phase = .discarding
        send(
            context, version: .http1_1, status: .serviceUnavailable,
            error: AuthError(
                "UNAVAILABLE",
                "Too many request bodies are under way (max_pending_body_bytes); send this one again.",
                kind: .unavailable), closing: false)
    }

    /// Why a head is refused before its body: a `Content-Length` over the limit (true when the
    /// client waits for `100 Continue`, so no body follows).
    private func refusal(_ head: HTTPRequestHead) -> Bool? {
        guard let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maxBodyBytes
        else { return nil }
        return Self.expectsContinue(head)
    }

    private func refuse(_ context: ChannelHandlerContext, head: HTTPRequestHead, expectsContinue: Bool) {
        phase = .discarding
        send(context, version: head.version, status: .payloadTooLarge, error: .bodyTooLarge, closing: expectsContinue)
    }

    private func answerContinue(_ context: ChannelHandlerContext, head: HTTPRequestHead) {
        guard Self.expectsContinue(head) else { return }
        context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
    }

    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        head.headers["expect"].contains { $0.lowercased() == "100-continue" }
    }

    /// An enveloped error with `Connection: close`; the connection closes after it when `closing`,
    /// else once the rest of the request has been read and dropped (a client still sending would
    /// otherwise get a reset instead of the answer).
    private func send(
        _ context: ChannelHandlerContext, version: HTTPVersion, status: HTTPResponseStatus, error: AuthError,
        closing: Bool = true
    ) {
        var envelope = ErrorEnvelope.envelope(for: error).1
        // The envelope's code is the status this answer carries (a 431 is not the error's 400).
        if case .object(var outer) = envelope, case .object(var inner)? = outer["error"] {
            inner["code"] = .number(Double(status.code))
            outer["error"] = .object(inner)
            envelope = .object(outer)
        }
        let body = ByteBuffer(bytes: envelope.serialized())
        var head = HTTPResponseHead(version: version, status: status)
        head.headers.add(name: "content-type", value: "application/json; charset=utf-8")
        head.headers.add(name: "content-length", value: String(body.readableBytes))
        head.headers.add(name: "connection", value: "close")
        head.headers.add(name: "server", value: "authemu")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let sent = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        if closing { sent.whenComplete { _ in bound.value.close(promise: nil) } }
    }

    /// The departure future of a connection's guard, for a long-poll to end with its client.
    static func departure(of channel: any Channel) async -> EventLoopFuture<Void>? {
        try? await channel.pipeline.handler(type: ConnectionGuard.self).flatMapThrowing { handler in
            guard let future = handler.departure?.futureResult else { throw ChannelError.ioOnClosedChannel }
            return future
        }.get()
    }
}

/// First in the pipeline: tells the guard when bytes arrive, so a request's head is timed from
/// its first byte and an idle connection from its last answer.
final class ByteArrival: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let connectionGuard: ConnectionGuard

    init(_ connectionGuard: ConnectionGuard) { self.connectionGuard = connectionGuard }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connectionGuard.bytesArrived()
        context.fireChannelRead(data)
    }
}
