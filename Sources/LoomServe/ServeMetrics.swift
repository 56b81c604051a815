import Foundation

/// Counters and latency histograms for `GET /metrics` (Prometheus text exposition format).
public final class ServeMetrics {
    private let lock = NSLock()
    private var requests: [String: Int] = [:]          // "route|status" → count
    private var latency: [String: [Int]] = [:]         // route → bucket counts
    private var latencySum: [String: Double] = [:]
    private var latencyCount: [String: Int] = [:]
    private var notModified = 0
    private var rejected = 0
    private var timeouts = 0
    private var resolveSeconds = 0.0
    private var resolutions = 0
    public static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    public init() {}

    public func record(route: String, status: Int, seconds: Double) {
        lock.withLock {
            requests["\(route)|\(status)", default: 0] += 1
            var b = latency[route] ?? [Int](repeating: 0, count: Self.buckets.count)
            for (i, le) in Self.buckets.enumerated() where seconds <= le { b[i] += 1 }
            latency[route] = b
            latencySum[route, default: 0] += seconds
            latencyCount[route, default: 0] += 1
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
            for k in requests.keys.sorted() {
                let parts = k.split(separator: "|", maxSplits: 1)
                out += "loom_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(requests[k]!)\n"
            }
            out += "# HELP loom_request_duration_seconds Request latency by route.\n# TYPE loom_request_duration_seconds histogram\n"
            for route in latency.keys.sorted() {
                for (i, le) in Self.buckets.enumerated() {
                    out += "loom_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(le)\"} \(latency[route]![i])\n"
                }
                out += "loom_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(latencyCount[route]!)\n"
                out += "loom_request_duration_seconds_sum{route=\"\(route)\"} \(latencySum[route]!)\n"
                out += "loom_request_duration_seconds_count{route=\"\(route)\"} \(latencyCount[route]!)\n"
            }
            out += "# HELP loom_resolve_seconds_total Time spent resolving screens on the workers (Lua included).\n# TYPE loom_resolve_seconds_total counter\nloom_resolve_seconds_total \(resolveSeconds)\n"
            out += "# HELP loom_resolutions_total Screens resolved.\n# TYPE loom_resolutions_total counter\nloom_resolutions_total \(resolutions)\n"
            out += "# HELP loom_not_modified_total Requests answered 304 from their ETag (the client's cache hit).\n# TYPE loom_not_modified_total counter\nloom_not_modified_total \(notModified)\n"
            out += "# HELP loom_rejected_total Requests answered 503: the queue was full, or the request ran past --request-timeout.\n# TYPE loom_rejected_total counter\nloom_rejected_total \(rejected)\n"
            out += "# HELP loom_timed_out_total Requests answered 503 because they ran past --request-timeout.\n# TYPE loom_timed_out_total counter\nloom_timed_out_total \(timeouts)\n"
            return out
        }
    }
}
