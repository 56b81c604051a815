@testable import LoomServe
import XCTest

/// `/metrics` text: requests by route and status in the order of their "route|status" keys,
/// a histogram per route, and the counters.
final class ServeMetricsTests: XCTestCase {
    func testTheExpositionListsEveryRouteAndStatusInKeyOrder() {
        let m = ServeMetrics()
        m.record(route: "/v1/screens/{id}", status: 200, seconds: 0.002)
        m.record(route: "/v1/screens/{id}", status: 200, seconds: 0.02)
        m.record(route: "/v1/screens/{id}", status: 304, seconds: 0.0005)
        m.record(route: "/v1/screens", status: 200, seconds: 3)
        m.record(route: "/v1/screens/{id}", status: 503, seconds: 0.001)
        m.resolved(seconds: 0.5)
        let lines = m.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("loom_requests_total{") }, [
            // "/v1/screens/{id}|…" sorts before "/v1/screens|…" ("/" < "|").
            #"loom_requests_total{route="/v1/screens/{id}",status="200"} 2"#,
            #"loom_requests_total{route="/v1/screens/{id}",status="304"} 1"#,
            #"loom_requests_total{route="/v1/screens/{id}",status="503"} 1"#,
            #"loom_requests_total{route="/v1/screens",status="200"} 1"#,
        ])
        let id = lines.filter { $0.hasPrefix(#"loom_request_duration_seconds_bucket{route="/v1/screens/{id}""#) }
        XCTAssertEqual(id.count, ServeMetrics.buckets.count + 1)
        XCTAssertEqual(id.first, #"loom_request_duration_seconds_bucket{route="/v1/screens/{id}",le="0.001"} 2"#)
        XCTAssertEqual(id.last, #"loom_request_duration_seconds_bucket{route="/v1/screens/{id}",le="+Inf"} 4"#)
        XCTAssertTrue(lines.contains(#"loom_request_duration_seconds_bucket{route="/v1/screens",le="2.5"} 0"#))
        XCTAssertTrue(lines.contains(#"loom_request_duration_seconds_count{route="/v1/screens"} 1"#))
        XCTAssertTrue(lines.contains(#"loom_request_duration_seconds_sum{route="/v1/screens"} 3.0"#))
        let routes = lines.filter { $0.hasPrefix("loom_request_duration_seconds_count") }
        XCTAssertEqual(routes, [#"loom_request_duration_seconds_count{route="/v1/screens"} 1"#,
                                #"loom_request_duration_seconds_count{route="/v1/screens/{id}"} 4"#])
        XCTAssertTrue(lines.contains("loom_not_modified_total 1"))
        XCTAssertTrue(lines.contains("loom_rejected_total 1"))
        XCTAssertTrue(lines.contains("loom_resolutions_total 1"))
    }
}
