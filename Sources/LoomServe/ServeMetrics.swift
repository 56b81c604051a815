import Foundation

/// Counters and latency histograms for `GET /metrics` (Prometheus text exposition format).
public final class ServeMetrics {
    private let lock = NSLock()
    /// One route's counters, updated in place: a request costs one lookup by route and no
    /// allocation (no key string built, no bucket array copied).
    final class Route {
        var statuses: [Int: Int] = [:]
        var buckets = [Int](repeating: 0, count: ServeMetrics.buckets.count)
        var sum = 0.0
        var count = 0
    }
    private var routes: [String: Route] = [:]
    private var notModified = 0
    private var rejected = 0
    private var timeouts = 0
    private var resolveSeconds = 0.0
    private var resolutions = 0
    public static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// The response cache whose counters `/metrics` shows (set once, before serving).
    private var cache: ResponseCache?

    public init() {}

    public func show(_ cache: ResponseCache) { lock.withLock { self.cache = cache } }

    public func record(route: String, status: Int, seconds: Double) {
        lock.withLock {
            let r: Route
            if let known = routes[route] { r = known } else { r = Route(); routes[route] = r }
            r.statuses[status, default: 0] += 1
            for (i, le) in Self.buckets.enumerated() where seconds <= le { r.buckets[i] += 1 }
            r.sum += seconds
            r.count += 1
            if status == 304 { notModified += 1 }
            if status == 503 { rejected += 1 }
        }
    }

    /// A request answered 503 because it ran past `--request-timeout`.
    public func timedOut() { lock.withLock { timeouts += 1 } }

    /// Time spent resolving (plugins' Lua included) on the workers.
    public func resolved(seconds: Double) {
        lock.withLock {
            resolveSeconds += seconds
            resolutions += 1
        }
    }

    public var text: String {
        lock.withLock {
            var out = "# HELP loom_requests_total HTTP requests by route and status.\n# TYPE loom_requests_total counter\n"
            // In the order of the "route|status" keys, as before the counters were per route.
            var requests: [(key: String, route: String, status: Int, count: Int)] = []
            for (route, r) in routes {
                for (status, n) in r.statuses { requests.append(("\(route)|\(status)", route, status, n)) }
            }
            for q in requests.sorted(by: { $0.key < $1.key }) {
                out += "loom_requests_total{route=\"\(q.route)\",status=\"\(q.status)\"} \(q.count)\n"
            }
            out += "# HELP loom_request_duration_seconds Request latency by route.\n# TYPE loom_request_duration_seconds histogram\n"
            for route in routes.keys.sorted() {
                let r = routes[route]!
                for (i, le) in Self.buckets.enumerated() {
                    out += "loom_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(le)\"} \(r.buckets[i])\n"
                }
                out += "loom_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(r.count)\n"
                out += "loom_request_duration_seconds_sum{route=\"\(route)\"} \(r.sum)\n"
                out += "loom_request_duration_seconds_count{route=\"\(route)\"} \(r.count)\n"
            }
            out += "# HELP loom_resolve_seconds_total Time spent resolving screens on the workers (Lua included).\n# TYPE loom_resolve_seconds_total counter\nloom_resolve_seconds_total \(resolveSeconds)\n"
            out += "# HELP loom_resolutions_total Screens resolved.\n# TYPE loom_resolutions_total counter\nloom_resolutions_total \(resolutions)\n"
            out += "# HELP loom_not_modified_total Requests answered 304 from their ETag (the client's cache hit).\n# TYPE loom_not_modified_total counter\nloom_not_modified_total \(notModified)\n"
            out += "# HELP loom_rejected_total Requests answered 503: the queue was full, or the request ran past --request-timeout.\n# TYPE loom_rejected_total counter\nloom_rejected_total \(rejected)\n"
            out += "# HELP loom_timed_out_total Requests answered 503 because they ran past --request-timeout.\n# TYPE loom_timed_out_total counter\nloom_timed_out_total \(timeouts)\n"
            if let c = cache?.stats {
                out += "# HELP loom_response_cache_hits_total Screen requests answered from the response cache (--cache-entries).\n# TYPE loom_response_cache_hits_total counter\nloom_response_cache_hits_total \(c.hits)\n"
                out += "# HELP loom_response_cache_entries Answers in the response cache.\n# TYPE loom_response_cache_entries gauge\nloom_response_cache_entries \(c.entries)\n"
                out += "# HELP loom_response_cache_bytes Bytes the response cache's answers and keys take.\n# TYPE loom_response_cache_bytes gauge\nloom_response_cache_bytes \(c.bytes)\n"
            }
            return out
        }
    }
}
