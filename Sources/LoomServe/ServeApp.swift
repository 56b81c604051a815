import Foundation
import HTTPTypes
import Hummingbird
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
    /// `--cache-entries` and `--cache-mb`: the response cache's bounds (0 entries: no cache).
    public var cacheEntries = 1024
    public var cacheBytes = 64 << 20
    public init() {}
}

/// The HTTP side of `host serve` (Hummingbird 2): routes, ETags, problem documents, metrics.
/// Resolution happens on the worker pool, through `handler`.
public enum ServeApp {
    public static func run(
        options: ServeOptions, pool: WorkerPool<Workspace>, metrics: ServeMetrics, reload: ReloadState,
        cache: ResponseCache, page: PreviewAssets,
        handler: @escaping @Sendable (Workspace, APIRequest) -> APIResponse,
        onRunning: @escaping @Sendable (String, Int) -> Void
    ) async throws {
        let router = Router()
        router.get("healthz") { _, _ -> Response in
            text("ok\n")
        }
        // The page runs no script but /preview.js (its CSP); data reaches its DOM as text only.
        router.get("/") { _, _ -> Response in
            var r = text(page.html, type: "text/html; charset=utf-8")
            r.headers[.contentSecurityPolicy] = page.contentSecurityPolicy
            r.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            return r
        }
        router.get("preview.js") { _, _ -> Response in
            text(page.script, type: "text/javascript; charset=utf-8")
        }
        router.get("preview.css") { _, _ -> Response in
            text(page.css, type: "text/css; charset=utf-8")
        }
        router.get("v1/status") { _, _ -> Response in
            let c = reload.current
            let body: JSONValue = .object(["version": .int(c.version), "errors": .array(c.errors.map { .string($0) })])
            return text(body.serialized(pretty: true) + "\n", type: "application/json")
        }
        // Server-sent events: `reload` each time the project was reloaded (or failed to).
        router.get("v1/events") { _, _ -> Response in
            let start = reload.current.version
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                var seen = start
                var ticks = 0
                while true {
                    try await Task.sleep(nanoseconds: 200_000_000)
                    let v = reload.current.version
                    if v != seen {
                        seen = v
                        try await writer.write(ByteBuffer(string: "event: reload\ndata: \(v)\n\n"))
                    }
                    ticks += 1
                    if ticks % 75 == 0 { try await writer.write(ByteBuffer(string: ": ping\n\n")) }
                }
            })
        }
        router.get("v1/profiles") { request, _ -> Response in
            await answer(request, route: "/v1/profiles", APIRequest(kind: .profiles, body: nil, query: query(request)), pool, metrics, options, handler)
        }
        router.get("metrics") { _, _ -> Response in
            text(metrics.text, type: "text/plain; version=0.0.4")
        }
        router.get("v1/screens") { request, _ -> Response in
            await answer(request, route: "/v1/screens", APIRequest(kind: .list, body: nil, query: query(request)), pool, metrics, options, handler)
        }
        router.get("v1/screens/:id") { request, context -> Response in
            let key = cache.enabled ? ResponseCache.Key(route: "GET screen", target: request.head.path ?? "", body: nil) : nil
            if let key, let hit = cache.lookup(key) { return answered(hit, request: request, route: "/v1/screens/{id}", metrics) }
            return await answer(request, route: "/v1/screens/{id}", APIRequest(kind: .screen(pathID(context)), body: nil, query: query(request)),
                                pool, metrics, options, handler, cache: key.map { (cache, $0) })
        }
        router.post("v1/screens/:id") { request, context -> Response in
            await post(request, route: "/v1/screens/{id}", kind: .screen(pathID(context)), pool, metrics, options, handler, cache: cache)
        }
        // The picture takes the same body: drawn with its data and state (docs/serve.md).
        router.post("v1/render/:id") { request, context -> Response in
            await post(request, route: "/v1/render/{id}", kind: .render(pathID(context)), pool, metrics, options, handler)
        }
        router.get("v1/graph/:id") { request, context -> Response in
            let id = pathID(context)
            return await answer(request, route: "/v1/graph/{id}", APIRequest(kind: .graph(id), body: nil, query: query(request)), pool, metrics, options, handler)
        }
        router.get("v1/render/:id") { request, context -> Response in
            let id = pathID(context)
            return await answer(request, route: "/v1/render/{id}", APIRequest(kind: .render(id), body: nil, query: query(request)), pool, metrics, options, handler)
        }
        previewRoutes(router, pool, metrics, options)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "loom"),
            onServerRunning: { channel in
                onRunning(options.host, channel.localAddress?.port ?? options.port)
            })
        try await app.runService()
    }

    /// The HTTP stack alone, for the bench's floor (`host-serve --bench-static FILE`, a hidden
    /// flag; scripts/bench-history/serve.md): the same Hummingbird application and server
    /// configuration answering `GET /v1/screens/{id}` with `body`, prebuilt once, and the headers
    /// a screen answer has (type, nosniff, ETag). No worker, no resolution, no JSON: what a
    /// request costs the server before Loom does anything.
    public static func runStatic(options: ServeOptions, body: [UInt8],
                                 onRunning: @escaping @Sendable (String, Int) -> Void) async throws {
        var hash = ContentHash()
        hash.add(String(decoding: body, as: UTF8.self))
        let tag = "\"\(hash.hex)\""
        let bytes = ByteBuffer(bytes: body)
        let router = Router()
        router.get("v1/screens/:id") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json", .xContentTypeOptions: "nosniff", .eTag: tag],
                     body: .init(byteBuffer: bytes))
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "loom"),
            onServerRunning: { channel in
                onRunning(options.host, channel.localAddress?.port ?? options.port)
            })
        try await app.runService()
    }

    /// The `{id}` of a route, percent-decoded (a screen id with spaces or other reserved
    /// characters arrives encoded, as the preview page sends it); the raw segment when it does
    /// not decode. Only a key to look the screen up by, never a path.
    static func pathID(_ context: some RequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    static func query(_ request: Request) -> [String: String] {
        var q: [String: String] = [:]
        for (k, v) in request.uri.queryParameters { q[String(k)] = String(v) }
        return q
    }

    static func text(_ s: String, type: String = "text/plain; charset=utf-8") -> Response {
        Response(status: .ok, headers: [.contentType: type, .xContentTypeOptions: "nosniff"], body: .init(byteBuffer: ByteBuffer(string: s)))
    }

    /// What an SVG answer (a wireframe, a graph) may do when a browser opens it as a document:
    /// nothing but draw (no script, no request, sandboxed). As an `<img>` it runs no script anyway.
    static let svgPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    /// `POST /v1/screens/{id}` and `POST /v1/render/{id}`: the body read (bounded by `--max-body`)
    /// and parsed (a refusal answered 413 or 422 here), then answered as a GET with that body.
    static func post(_ request: Request, route: String, kind: APIRequest.Kind, _ pool: WorkerPool<Workspace>,
                     _ metrics: ServeMetrics, _ options: ServeOptions,
                     _ handler: @escaping @Sendable (Workspace, APIRequest) -> APIResponse,
                     cache: ResponseCache? = nil) async -> Response {
        let started = Date()
        var req = request
        let bytes: ByteBuffer
        do {
            bytes = try await req.collectBody(upTo: options.maxBodyBytes)
        } catch {
            let r = APIResponse.problem(413, "Request body too large", detail: "the body is larger than \(options.maxBodyBytes) bytes (--max-body)")
            metrics.record(route: route, status: 413, seconds: Date().timeIntervalSince(started))
            return response(r, request: request)
        }
        let raw = Array(bytes.readableBytesView)
        // The body's bytes are part of the key: a kept answer is found before the body is parsed.
        var key: ResponseCache.Key?
        if let cache, cache.enabled, case .screen = kind {
            key = ResponseCache.Key(route: "POST screen", target: request.head.path ?? "", body: raw)
            if let hit = cache.lookup(key!) { return answered(hit, request: request, route: route, metrics, started: started) }
        }
        let body: ScreenRequestBody
        switch ScreenRequestBody.parse(bytes: raw) {
        case .success(let b): body = b
        case .failure(let refusal):
            let r = APIResponse.problem(422, refusal.malformed ? "Malformed JSON" : "Invalid request", detail: refusal.detail, diagnostics: refusal.diagnostics)
            metrics.record(route: route, status: 422, seconds: Date().timeIntervalSince(started))
            return response(r, request: request)
        }
        return await answer(request, route: route, APIRequest(kind: kind, body: body, query: query(request)), pool, metrics, options, handler,
                            cache: key.map { (cache!, $0) })
    }

    static func answer(_ request: Request, route: String, _ api: APIRequest, _ pool: WorkerPool<Workspace>,
                       _ metrics: ServeMetrics, _ options: ServeOptions,
                       _ handler: @escaping @Sendable (Workspace, APIRequest) -> APIResponse,
                       cache: (ResponseCache, ResponseCache.Key)? = nil) async -> Response {
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
        let resp: Response
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
    static func answered(_ e: ResponseCache.Entry, request: Request, route: String, _ metrics: ServeMetrics, started: Date = Date()) -> Response {
        let resp = cached(e, request: request)
        metrics.record(route: route, status: Int(resp.status.code), seconds: Date().timeIntervalSince(started))
        return resp
    }

    /// A 200 from a kept answer: the same headers as `response` gives it (and 304 for its tag).
    static func cached(_ e: ResponseCache.Entry, request: Request) -> Response {
        if let inm = request.headers[.ifNoneMatch], matches(inm, e.tag) {
            return Response(status: .notModified, headers: [.eTag: e.tag])
        }
        return Response(status: .ok, headers: e.headers, body: .init(byteBuffer: e.body))
    }

    /// Whether an `If-None-Match` value names `tag` (or is `*`).
    static func matches(_ inm: String, _ tag: String) -> Bool {
        let tags = inm.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return tags.contains(tag) || tags.contains("W/" + tag) || tags.contains("*")
    }

    /// JSON or a problem document; a 200 gets an ETag from its body's hash and `If-None-Match`
    /// with that tag (or `*`) gets 304.
    static func response(_ r: APIResponse, request: Request) -> Response {
        var headers: HTTPFields = [.contentType: r.contentType ?? (r.problem ? "application/problem+json" : "application/json"),
                                   .xContentTypeOptions: "nosniff"]
        if r.contentType == "image/svg+xml" { headers[.contentSecurityPolicy] = svgPolicy }
        if r.status == 200 {
            var h = ContentHash()
            h.add(r.body)
            let tag = "\"\(h.hex)\""
            headers[.eTag] = tag
            if let inm = request.headers[.ifNoneMatch], matches(inm, tag) {
                return Response(status: .notModified, headers: [.eTag: tag])
            }
        }
        return Response(status: .init(code: r.status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: r.body)))
    }
}

/// A request that cannot be answered with a screen: its problem document travels as an error.
extension APIResponse: Error {}
