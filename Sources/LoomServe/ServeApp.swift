import Foundation
import NIOCore
import NIOHTTP1
import LoomCache
import LoomCore
import LoomWorkspace

/// What a route asks the workers for.
public struct APIRequest: Sendable {
    public enum Kind: Sendable {
        case screen(String)
        case graph(String)
        /// The screen laid out and drawn as an SVG wireframe (`host render`).
        case render(String)
        case list
        case profiles
    }
    public var kind: Kind
    /// A POST body, read (`ScreenRequestBody`, with locations in "request body").
    public var body: ScreenRequestBody?
    public var query: [String: String]
}

/// A worker's answer: a status and a JSON text (a problem document, RFC 9457, when `problem`).
public struct APIResponse: Sendable {
    public var status: Int
    public var body: String
    public var problem: Bool
    /// Set for bodies that are not JSON (an SVG picture).
    public var contentType: String?
    /// The answer is a function of the project's generation and the request alone, and may be
    /// kept in the response cache (`ResponseCache`; the handler decides, `ServeHandler.screen`).
    public var cacheable: Bool

    public init(status: Int, body: String, problem: Bool = false, contentType: String? = nil, cacheable: Bool = false) {
        self.status = status
        self.body = body
        self.problem = problem
        self.contentType = contentType
        self.cacheable = cacheable
    }

    /// An RFC 9457 problem document with the diagnostics' locations.
    public static func problem(_ status: Int, _ title: String, detail: String, diagnostics: [Diagnostic] = []) -> APIResponse {
        var o: [(String, JSONValue)] = [
            ("type", .string("about:blank")),
            ("title", .string(title)), ("status", .int(status)), ("detail", .string(detail)),
        ]
        if !diagnostics.isEmpty {
            o.append(("diagnostics", .array(diagnostics.map { d in
                .object(["severity": .string(d.severity.rawValue), "message": .string(d.message),
                         "location": d.location.map { .string("\($0)") } ?? .null])
            })))
        }
        return APIResponse(status: status, body: JSONValue.object(.init(uniqueKeysWithValues: o)).serialized(pretty: true) + "\n", problem: true)
    }
}

/// The preview page (`GET /`), its script and style sheet, and the Content-Security-Policy the
/// page is served with.
public struct PreviewAssets: Sendable {
    public var html: String
    public var script: String
    public var css: String
    public var contentSecurityPolicy: String
    public init(html: String, script: String, css: String, contentSecurityPolicy: String) {
        self.html = html
        self.script = script
        self.css = css
        self.contentSecurityPolicy = contentSecurityPolicy
    }
}

public struct ServeOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var maxBodyBytes = 256 * 1024
    /// `--request-timeout`: seconds a request may take, queue wait included, before it is
    /// answered 503 and its work is stopped.
    public var requestTimeout: Double = 10
    /// `--idle-timeout`: seconds a connection may stay open with nothing read or written and no
    /// request being answered.
    public var idleTimeout = 60
    /// `--cache-entries` and `--cache-mb`: the response cache's bounds (0 entries: no cache).
    public var cacheEntries = 1024
    public var cacheBytes = 64 << 20
    public init() {}
}

/// The HTTP side of `host serve`: routes, ETags, problem documents, metrics, over `HTTPServer`.
/// Resolution happens on the worker pool, through `handler`; an answer that needs no worker (a
/// kept answer, the page, the metrics) is given at once.
public enum ServeApp {
    public static func run(
        options: ServeOptions, pool: WorkerPool<Workspace>, metrics: ServeMetrics, reload: ReloadState,
        cache: ResponseCache, page: PreviewAssets,
        handler: @escaping @Sendable (Workspace, APIRequest) -> APIResponse,
        onRunning: @escaping @Sendable (String, Int) -> Void
    ) async throws {
        let route = routes(options: options, pool: pool, metrics: metrics, reload: reload, cache: cache, page: page, handler: handler)
        try await HTTPServer.run(host: options.host, port: options.port, maxBodyBytes: options.maxBodyBytes,
                                 idleTimeout: .seconds(Int64(options.idleTimeout)), route: route, onRunning: onRunning)
    }

    /// The routes: a request's path (empty segments ignored, so `/v1/screens/home/` is
    /// `/v1/screens/home`) and method to its answer. A HEAD is answered as its GET, without the
    /// body. An unknown path is 404, a known one with another method 405 (with `Allow`).
    static func routes(
        options: ServeOptions, pool: WorkerPool<Workspace>, metrics: ServeMetrics, reload: ReloadState,
        cache: ResponseCache, page: PreviewAssets,
        handler: @escaping @Sendable (Workspace, APIRequest) -> APIResponse
    ) -> @Sendable (ServeRequest) -> ServeReply {
        return { request in
            let segments = QueryString.segments(of: request.path)
            let post = request.method == .POST
            // The route's answer when it takes the request's method (HEAD arrives as GET), else 405.
            func only(_ methods: RouteMethods, _ answer: () -> ServeReply) -> ServeReply {
                methods.take(request.method) ? answer() : .now(notAllowed(methods.allow))
            }
            switch segments.count {
            case 0:
                // The page runs no script but /preview.js (its CSP); data reaches its DOM as text only.
                return only(.get) {
                    var r = text(page.html, type: "text/html; charset=utf-8")
                    r.headers.add(name: "Content-Security-Policy", value: page.contentSecurityPolicy)
                    r.headers.add(name: "Referrer-Policy", value: "no-referrer")
                    return .now(r)
                }
            case 1:
                switch segments[0] {
                case "healthz": return only(.get) { .now(text("ok\n")) }
                case "preview.js": return only(.get) { .now(text(page.script, type: "text/javascript; charset=utf-8")) }
                case "preview.css": return only(.get) { .now(text(page.css, type: "text/css; charset=utf-8")) }
                case "metrics": return only(.get) { .now(text(metrics.text, type: "text/plain; version=0.0.4")) }
                default: break
                }
            case 2 where segments[0] == "v1":
                switch segments[1] {
                case "status":
                    return only(.get) {
                        let c = reload.current
                        let body: JSONValue = .object(["version": .int(c.version), "errors": .array(c.errors.map { .string($0) })])
                        return .now(text(body.serialized(pretty: true) + "\n", type: "application/json"))
                    }
                case "events": return only(.get) { .now(events(reload)) }
                case "profiles":
                    return only(.get) {
                        .later { await answer(request, route: "/v1/profiles", APIRequest(kind: .profiles, body: nil, query: request.query), pool, metrics, options, handler) }
                    }
                case "screens":
                    return only(.get) {
                        .later { await answer(request, route: "/v1/screens", APIRequest(kind: .list, body: nil, query: request.query), pool, metrics, options, handler) }
                    }
                default: break
                }
            case 3 where segments[0] == "v1":
                let id = pathID(segments[2])
                switch segments[1] {
                case "screens":
                    return only(.getAndPost) {
                        if post { return self.post(request, route: "/v1/screens/{id}", kind: .screen(id), pool, metrics, options, handler, cache: cache) }
                        let key = cache.enabled ? ResponseCache.Key(route: "GET screen", target: request.target, body: nil) : nil
                        if let key, let hit = cache.lookup(key) { return .now(answered(hit, request: request, route: "/v1/screens/{id}", metrics)) }
                        return .later {
                            await answer(request, route: "/v1/screens/{id}", APIRequest(kind: .screen(id), body: nil, query: request.query),
                                         pool, metrics, options, handler, cache: key.map { (cache, $0) })
                        }
                    }
                case "render":
                    // The picture takes the same body: drawn with its data and state (docs/serve.md).
                    return only(.getAndPost) {
                        if post { return self.post(request, route: "/v1/render/{id}", kind: .render(id), pool, metrics, options, handler) }
                        return .later {
                            await answer(request, route: "/v1/render/{id}", APIRequest(kind: .render(id), body: nil, query: request.query), pool, metrics, options, handler)
                        }
                    }
                case "graph":
                    return only(.get) {
                        .later { await answer(request, route: "/v1/graph/{id}", APIRequest(kind: .graph(id), body: nil, query: request.query), pool, metrics, options, handler) }
                    }
                case "preview":
                    return only(.getAndPost) { preview(request, id: id, pool, metrics, options) }
                default: break
                }
            default: break
            }
            return .now(response(.problem(404, "Not found", detail: "no route for \(TextEscape.escaped(String(request.path.prefix(200))))"), request: request))
        }
    }

    /// Server-sent events: `reload` each time the project was reloaded (or failed to), a comment
    /// every 15 s so that proxies keep the connection.
    static func events(_ reload: ReloadState) -> ServeResponse {
        let seen = EventCursor(reload.current.version)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-cache")
        return ServeResponse(status: .ok, headers: headers, events: EventStream(first: ": connected\n\n", every: .milliseconds(200)) {
            seen.lock.withLock {
                var out = ""
                let v = reload.current.version
                if v != seen.version {
                    seen.version = v
                    out += "event: reload\ndata: \(v)\n\n"
                }
                seen.ticks += 1
                if seen.ticks % 75 == 0 { out += ": ping\n\n" }
                return out.isEmpty ? nil : out
            }
        })
    }

    static func notAllowed(_ allow: String) -> ServeResponse {
        var r = response(.problem(405, "Method not allowed", detail: "this route takes \(allow)"), request: ServeRequest(method: .GET, target: "/"))
        r.headers.add(name: "Allow", value: allow)
        return r
    }

    /// The HTTP stack alone, for the bench's floor (`host-serve --bench-static FILE`, a hidden
    /// flag; scripts/bench-history/serve.md): the same server answering `GET /v1/screens/{id}`
    /// with `body`, prebuilt once, and the headers a screen answer has (type, nosniff, ETag). No
    /// worker, no resolution, no JSON: what a request costs the server before Loom does anything.
    public static func runStatic(options: ServeOptions, body: [UInt8],
                                 onRunning: @escaping @Sendable (String, Int) -> Void) async throws {
        var hash = ContentHash()
        hash.add(String(decoding: body, as: UTF8.self))
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "ETag", value: "\"\(hash.hex)\"")
        let answer = ServeResponse(status: .ok, headers: headers, body: ByteBuffer(bytes: body))
        let notFound = ServeResponse(status: .notFound)
        try await HTTPServer.run(host: options.host, port: options.port, maxBodyBytes: options.maxBodyBytes,
                                 idleTimeout: .seconds(Int64(options.idleTimeout)), route: { request in
            let s = QueryString.segments(of: request.path)
            return .now(request.method == .GET && s.count == 3 && s[0] == "v1" && s[1] == "screens" ? answer : notFound)
        }, onRunning: onRunning)
    }

    /// A route's `{id}` segment, percent-decoded (a screen id with spaces or other reserved
    /// characters arrives encoded, as the preview page sends it); the raw segment when it does
    /// not decode. Only a key to look the screen up by, never a path.
    static func pathID(_ raw: Substring) -> String {
        // Without a '%' there is nothing to decode (and no Foundation string made).
        guard raw.utf8.contains(UInt8(ascii: "%")) else { return String(raw) }
        return raw.removingPercentEncoding ?? String(raw)
    }

    static func text(_ s: String, type: String = "text/plain; charset=utf-8") -> ServeResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        return ServeResponse(status: .ok, headers: headers, body: ByteBuffer(string: s))
    }

    /// What an SVG answer (a wireframe, a graph) may do when a browser opens it as a document:
    /// nothing but draw (no script, no request, sandboxed). As an `<img>` it runs no script anyway.
    static let svgPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    /// `POST /v1/screens/{id}`, `/v1/render/{id}` and `/v1/preview/{id}`: the body (bounded by
    /// `--max-body`: a larger one is answered 413) parsed (a refusal answered 422 here), then
    /// answered by `handler` as a GET with that body.
    static func post(_ request: ServeRequest, route: String, kind: APIRequest.Kind, _ pool: WorkerPool<Workspace>,
                     _ metrics: ServeMetrics, _ options: ServeOptions,
                     _ handler: @escaping @Sendable (Workspace, APIRequest) -> APIResponse,
                     cache: ResponseCache? = nil) -> ServeReply {
        let started = Date()
        if request.bodyTooLarge {
            let r = APIResponse.problem(413, "Request body too large", detail: "the body is larger than \(options.maxBodyBytes) bytes (--max-body)")
            metrics.record(route: route, status: 413, seconds: Date().timeIntervalSince(started))
            return .now(response(r, request: request))
        }
        let raw = request.body
        // The body's bytes are part of the key: a kept answer is found before the body is parsed.
        var key: ResponseCache.Key?
        if let cache, cache.enabled, case .screen = kind {
            key = ResponseCache.Key(route: "POST screen", target: request.target, body: raw)
            if let hit = cache.lookup(key!) { return .now(answered(hit, request: request, route: route, metrics, started: started)) }
        }
        let body: ScreenRequestBody
        switch ScreenRequestBody.parse(bytes: raw) {
        case .success(let b): body = b
        case .failure(let refusal):
            let r = APIResponse.problem(422, refusal.malformed ? "Malformed JSON" : "Invalid request", detail: refusal.detail, diagnostics: refusal.diagnostics)
            metrics.record(route: route, status: 422, seconds: Date().timeIntervalSince(started))
            return .now(response(r, request: request))
        }
        let kept = key.map { (cache!, $0) }
        return .later {
            await answer(request, route: route, APIRequest(kind: kind, body: body, query: request.query), pool, metrics, options, handler, cache: kept)
        }
    }

    static func answer(_ request: ServeRequest, route: String, _ api: APIRequest, _ pool: WorkerPool<Workspace>,
                       _ metrics: ServeMetrics, _ options: ServeOptions,
                       _ handler: @escaping @Sendable (Workspace, APIRequest) -> APIResponse,
                       cache: (ResponseCache, ResponseCache.Key)? = nil) async -> ServeResponse {
        let started = Date()
        // (The caller looked the key up.) Taken before the work: an answer computed across a reload is not kept.
        let generation = cache?.0.currentGeneration ?? 0
        // The request's deadline runs from its arrival: time waiting for a worker counts.
        let deadline = Deadline(seconds: options.requestTimeout)
        let outcome = await pool.submit(deadline: deadline) { ws -> APIResponse in
            let t = Date()
            let r = handler(ws, api)
            metrics.resolved(seconds: Date().timeIntervalSince(t))
            return r
        }
        let r: APIResponse
        switch outcome {
        case .done(let answer): r = answer
        case .busy:
            r = .problem(503, "Busy", detail: "\(pool.maxPending) requests are already waiting for a worker (--queue); retry later")
        case .timedOut:
            metrics.timedOut()
            r = .problem(503, "Request timed out",
                         detail: "the request took longer than \(deadline.limitText) (--request-timeout); its work was stopped")
        }
        let resp: ServeResponse
        if let (c, key) = cache, r.cacheable, r.status == 200 {
            // Kept (when within the bounds) and answered from the entry: the ETag is hashed once.
            resp = cached(c.keep(key, body: r.body, contentType: r.contentType ?? "application/json", generation: generation), request: request)
        } else {
            resp = response(r, request: request)
        }
        metrics.record(route: route, status: Int(resp.status.code), seconds: Date().timeIntervalSince(started))
        return resp
    }

    /// A kept answer given again (no worker), counted as any other answer of its route.
    static func answered(_ e: ResponseCache.Entry, request: ServeRequest, route: String, _ metrics: ServeMetrics, started: Date = Date()) -> ServeResponse {
        let resp = cached(e, request: request)
        metrics.record(route: route, status: Int(resp.status.code), seconds: Date().timeIntervalSince(started))
        return resp
    }

    /// A 200 from a kept answer: the same headers as `response` gives it (and 304 for its tag).
    static func cached(_ e: ResponseCache.Entry, request: ServeRequest) -> ServeResponse {
        if let inm = request.header("If-None-Match"), matches(inm, e.tag) {
            return ServeResponse(status: .notModified, headers: ["ETag": e.tag])
        }
        return ServeResponse(status: .ok, headers: e.headers, body: e.body)
    }

    /// Whether an `If-None-Match` value names `tag` (or is `*`).
    static func matches(_ inm: String, _ tag: String) -> Bool {
        let tags = inm.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return tags.contains(tag) || tags.contains("W/" + tag) || tags.contains("*")
    }

    /// JSON or a problem document; a 200 gets an ETag from its body's hash and `If-None-Match`
    /// with that tag (or `*`) gets 304.
    static func response(_ r: APIResponse, request: ServeRequest) -> ServeResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: r.contentType ?? (r.problem ? "application/problem+json" : "application/json"))
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if r.contentType == "image/svg+xml" { headers.add(name: "Content-Security-Policy", value: svgPolicy) }
        if r.status == 200 {
            var h = ContentHash()
            h.add(r.body)
            let tag = "\"\(h.hex)\""
            headers.add(name: "ETag", value: tag)
            if let inm = request.header("If-None-Match"), matches(inm, tag) {
                return ServeResponse(status: .notModified, headers: ["ETag": tag])
            }
        }
        return ServeResponse(status: .init(statusCode: r.status), headers: headers, body: ByteBuffer(string: r.body))
    }
}

/// The methods a route takes.
enum RouteMethods {
    case get, getAndPost

    func take(_ m: HTTPMethod) -> Bool { m == .GET || (self == .getAndPost && m == .POST) }

    /// The `Allow` header of a 405 (HEAD is answered wherever GET is).
    var allow: String { self == .get ? "GET, HEAD" : "GET, HEAD, POST" }
}

/// What one `/v1/events` stream has sent: the last version it told, and the ticks since it began.
final class EventCursor {
    let lock = NSLock()
    var version: Int
    var ticks = 0
    init(_ version: Int) { self.version = version }
}

/// A request that cannot be answered with a screen: its problem document travels as an error.
extension APIResponse: Error {}
