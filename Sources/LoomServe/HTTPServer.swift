import Foundation
import LoomCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request as `host serve`'s routes read it: read whole (its body up to `--max-body`) before
/// it is routed.
public struct ServeRequest: Sendable {
    public var method: HTTPMethod
    /// The request target as it arrived (path and query string, undecoded).
    public var target: String
    public var headers: HTTPHeaders
    /// The body's bytes; empty when it is larger than the bound (`bodyTooLarge`).
    public var body: [UInt8]
    /// The body was larger than `--max-body` (announced or read so far): the request is answered
    /// at once (the routes that take a body answer 413) and its connection closed after the answer.
    public var bodyTooLarge: Bool

    public init(method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [], bodyTooLarge: Bool = false) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    /// The path, before any `?`.
    public var path: Substring { QueryString.path(of: target) }

    /// The query's parameters (`QueryString`).
    public var query: [String: String] { QueryString.parameters(of: target) }

    /// A header's first value.
    public func header(_ name: String) -> String? { headers.first(name: name) }
}

/// What a route answers: a status, headers and a body, or a stream of server-sent events.
public struct ServeResponse: Sendable {
    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: ByteBuffer
    /// `text/event-stream`: the answer's body is `events` (and never ends).
    public var events: EventStream?

    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: ByteBuffer = ByteBuffer(), events: EventStream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.events = events
    }
}

/// A never-ending body: `first`, then what `next` gives (nil: nothing this time) every `every`.
public struct EventStream: Sendable {
    public var first: String
    public var every: TimeAmount
    public var next: @Sendable () -> String?
}

/// A route's answer: at once (on the connection's event loop: a kept answer, a page, the
/// metrics) or after work (a worker's resolution, awaited off the event loop).
public enum ServeReply: Sendable {
    case now(ServeResponse)
    case later(@Sendable () async -> ServeResponse)
}

/// `host serve`'s HTTP/1.1 server: SwiftNIO's HTTP/1 codec (its limits on request lines and
/// headers, its 400 for a malformed request, its ordering of pipelined requests), and one
/// handler that reads a request whole, routes it, and writes the answer with its length, `Date`
/// and `Server`. An answer that needs no worker is written from the event loop that read the
/// request: no task, no thread switch (scripts/bench-history/serve.md: Hummingbird's
/// async layer, which this replaces, answered prebuilt bytes at 0.35–0.38 of nginx's rate on
/// the bench machine, and this codec alone at 0.65–0.73).
public enum HTTPServer {
    /// Binds `host:port`, calls `onRunning` with the port bound, and serves until SIGINT or
    /// SIGTERM (then returns) or a failure to bind (thrown). A connection with nothing read or
    /// written for `idleTimeout`, and no request being answered, is closed (an open connection
    /// costs memory and a descriptor: a client that opens many and sends nothing cannot keep them).
    public static func run(host: String, port: Int, maxBodyBytes: Int, idleTimeout: TimeAmount,
                           route: @escaping @Sendable (ServeRequest) -> ServeReply,
                           onRunning: @escaping @Sendable (String, Int) -> Void) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        RequestHandler(maxBodyBytes: maxBodyBytes, idleTimeout: idleTimeout, route: route))
                }
            }
            .bind(host: host, port: port).get()
        let stop = StopSignals { channel.close(promise: nil) }
        onRunning(host, channel.localAddress?.port ?? port)
        try await channel.closeFuture.get()
        stop.cancel()
    }
}

/// SIGINT and SIGTERM close the server (a graceful stop: `run` returns).
final class StopSignals {
    private var sources: [DispatchSourceSignal] = []
    init(_ stop: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler(handler: stop)
            s.resume()
            sources.append(s)
        }
    }
    func cancel() { for s in sources { s.cancel() } }
}

/// The `Date` header's value (RFC 9110's IMF-fixdate), made again only when the second
/// changes: one per connection (no lock between event loops).
struct DateHeader {
    private var second = -1
    private var text = ""

    mutating func value() -> String {
        let now = time(nil)
        if now != second {
            second = now
            var t = now, parts = tm()
            gmtime_r(&t, &parts)
            let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
            text = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
                + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        }
        return text
    }
}

/// One connection's requests, in order (NIO's pipelining handler holds the next request until
/// this one is answered).
final class RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let maxBodyBytes: Int
    let idleTimeout: TimeAmount
    let route: @Sendable (ServeRequest) -> ServeReply
    /// When a request part was last read or an answer last written. (Checked by a timer of its
    /// own rather than NIO's IdleStateHandler: one handler less for every read and write.)
    private var lastActive = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    private var dates = DateHeader()
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    /// A refused body's answer is written: what still comes is dropped until the connection closes.
    private var lingering = false
    private var events: RepeatedTask?
    /// A request is being answered (its answer not yet written).
    private var answering = false

    init(maxBodyBytes: Int, idleTimeout: TimeAmount, route: @escaping @Sendable (ServeRequest) -> ServeReply) {
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.route = route
    }

    func handlerAdded(context: ChannelHandlerContext) {
        checkIdle(context: context, at: lastActive + idleTimeout)
    }

    /// At `deadline`: closes the connection when nothing was read or written for `idleTimeout`
    /// and no request is being answered (and no event stream runs); else looks again later.
    private func checkIdle(context: ChannelHandlerContext, at deadline: NIODeadline) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            let due = handler.lastActive + handler.idleTimeout
            if handler.answering || handler.events != nil || NIODeadline.now() < due {
                handler.checkIdle(context: context, at: max(due, NIODeadline.now() + .milliseconds(1)))
            } else {
                context.close(promise: nil)
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActive = .now()
        guard !lingering else { return }
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
            tooLarge = false
            // A body announced larger than the bound is refused before it is sent (a client
            // that waits for `100 Continue` never sends it).
            if let length = h.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBodyBytes {
                refuseBody(context: context)
            }
        case .body(let part):
            guard !tooLarge, head != nil else { return }
            if body.count + part.readableBytes > maxBodyBytes {
                refuseBody(context: context)
            } else {
                body.append(contentsOf: part.readableBytesView)
            }
        case .end:
            guard let h = head else { return }
            head = nil
            respond(context: context, to: h, closing: false)
        }
    }

    /// The body is past `maxBodyBytes`: the request is answered at once (413 from the routes
    /// that take a body) and the connection closed after the answer (a lingering close: `write`).
    private func refuseBody(context: ChannelHandlerContext) {
        guard let h = head else { return }
        tooLarge = true
        lingering = true
        body = []
        head = nil
        respond(context: context, to: h, closing: true)
    }

    private func respond(context: ChannelHandlerContext, to h: HTTPRequestHead, closing: Bool) {
        let request = ServeRequest(method: h.method == .HEAD ? .GET : h.method, target: h.uri, headers: h.headers,
                                   body: body, bodyTooLarge: tooLarge)
        body = []
        answering = true
        switch route(request) {
        case .now(let r):
            write(context: context, r, for: h, closing: closing)
        case .later(let work):
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            // Held for the answer: a connection closed meanwhile is seen closed on the channel
            // itself, and its handler's context is not touched.
            let channel = context.channel
            Task {
                let r = await work()
                loop.execute {
                    guard channel.isActive else { return }
                    bound.value.0.write(context: bound.value.1, r, for: h, closing: closing)
                }
            }
        }
    }

    private func write(context: ChannelHandlerContext, _ r: ServeResponse, for request: HTTPRequestHead, closing: Bool) {
        answering = false
        lastActive = .now()
        guard context.channel.isActive else { return }
        var headers = r.headers
        headers.add(name: "Date", value: dates.value())
        headers.add(name: "Server", value: "loom")
        let keepAlive = request.isKeepAlive && !closing
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let noBody = request.method == .HEAD || r.status == .notModified
        if r.events == nil, r.status != .notModified { headers.add(name: "Content-Length", value: String(r.body.readableBytes)) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: r.status, headers: headers))), promise: nil)
        if let stream = r.events, !noBody {
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: stream.first)))), promise: nil)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            events = context.eventLoop.scheduleRepeatedTask(initialDelay: stream.every, delay: stream.every) { _ in
                let (_, context) = bound.value
                if let text = stream.next() {
                    context.writeAndFlush(bound.value.0.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
                }
            }
            return
        }
        if !noBody && r.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(r.body))), promise: nil)
        }
        guard closing || !keepAlive else {
            // The common case: nothing waits for the write (no promise made).
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if closing {
            // The client may still be sending the body: closing now would reset the connection
            // and lose the answer. The write side is shut (the client reads the answer and its
            // end), what still comes is read and dropped, and the connection is closed when the
            // client closes it or 5 s later (nginx's "lingering close").
            let channel = context.channel
            done.whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
            }
        } else if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        events?.cancel()
        events = nil
        idleCheck?.cancel()
        idleCheck = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        events?.cancel()
        events = nil
        context.close(promise: nil)
    }
}
