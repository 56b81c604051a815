@testable import LoomServe
import XCTest

/// The response cache's bounds and its keys: at most N answers and B bytes, the oldest going
/// first; a reload drops everything and refuses answers computed before it; keys of different
/// requests never collide by concatenation.
final class ResponseCacheTests: XCTestCase {
    func key(_ i: Int, body: String? = nil) -> ResponseCache.Key {
        ResponseCache.Key(route: "GET screen", target: "/v1/screens/home?profile=u\(i)", body: body.map { Array($0.utf8) })
    }

    func testKeepsAtMostTheEntriesBoundTheOldestGoingFirst() {
        let c = ResponseCache(maxEntries: 3, maxBytes: 1 << 20)
        let g = c.currentGeneration
        for i in 0..<10 { c.keep(key(i), body: "answer \(i)", contentType: "application/json", generation: g) }
        XCTAssertEqual(c.stats.entries, 3)
        for i in 0..<7 { XCTAssertNil(c.lookup(key(i)), "\(i) was evicted") }
        for i in 7..<10 { XCTAssertNotNil(c.lookup(key(i))) }
        XCTAssertEqual(c.stats.hits, 3)
        // A hostile client: every request a new key. Memory stays at the bound.
        for i in 10..<5_000 { c.keep(key(i), body: String(repeating: "x", count: i % 97), contentType: "application/json", generation: g) }
        XCTAssertEqual(c.stats.entries, 3)
    }

    func testKeepsAtMostTheBytesBoundAndNoAnswerLargerThanAnEighth() {
        let c = ResponseCache(maxEntries: 1_000, maxBytes: 8_000)
        let g = c.currentGeneration
        // Too large for one eighth of the bound: answered (its tag made) but not kept.
        let big = c.keep(key(0), body: String(repeating: "b", count: 1_000), contentType: "application/json", generation: g)
        XCTAssertEqual(big.body.readableBytes, 1_000)
        XCTAssertTrue(big.tag.hasPrefix("\"") && big.tag.hasSuffix("\""))
        XCTAssertNil(c.lookup(key(0)))
        for i in 1...100 { c.keep(key(i), body: String(repeating: "s", count: 500), contentType: "application/json", generation: g) }
        XCTAssertLessThanOrEqual(c.stats.bytes, 8_000)
        XCTAssertGreaterThan(c.stats.entries, 5)
        XCTAssertNotNil(c.lookup(key(100)), "the newest is kept")
    }

    func testClearDropsEverythingAndRefusesAnswersComputedBeforeIt() {
        let c = ResponseCache(maxEntries: 10, maxBytes: 1 << 20)
        let before = c.currentGeneration
        c.keep(key(1), body: "old", contentType: "application/json", generation: before)
        XCTAssertNotNil(c.lookup(key(1)))
        c.clear()
        XCTAssertNil(c.lookup(key(1)))
        XCTAssertEqual(c.stats.entries, 0)
        XCTAssertEqual(c.stats.bytes, 0)
        // Computed on the previous generation's workspace, finished after the reload: not kept.
        c.keep(key(2), body: "old", contentType: "application/json", generation: before)
        XCTAssertNil(c.lookup(key(2)))
        c.keep(key(2), body: "new", contentType: "application/json", generation: c.currentGeneration)
        XCTAssertNotNil(c.lookup(key(2)))
    }

    func testSameTagAsTheUncachedAnswerAndNothingKeptWhenOff() {
        let off = ResponseCache(maxEntries: 0, maxBytes: 1 << 20)
        XCTAssertFalse(off.enabled)
        let e = off.keep(key(1), body: "{}\n", contentType: "application/json", generation: 0)
        XCTAssertNil(off.lookup(key(1)))
        XCTAssertEqual(off.stats.entries, 0)
        let on = ResponseCache(maxEntries: 5, maxBytes: 1 << 20)
        XCTAssertEqual(on.keep(key(1), body: "{}\n", contentType: "application/json", generation: 0).tag, e.tag)
    }

    func testKeysOfDifferentRequestsDiffer() {
        typealias K = ResponseCache.Key
        let long = String(repeating: "q", count: 200)
        let distinct: [K] = [
            K(route: "GET screen", target: "/v1/screens/home?a=bc", body: nil),
            K(route: "GET screen", target: "/v1/screens/home?ab=c", body: nil),
            K(route: "GET screen", target: "/v1/screens/home", body: nil),
            K(route: "GET screen", target: "/v1/screens/home", body: []),
            K(route: "GET scree", target: "n/v1/screens/home", body: nil),
            K(route: "POST screen", target: "/v1/screens/home", body: Array("{}".utf8)),
            K(route: "POST screen", target: "/v1/screens/home", body: Array("{} ".utf8)),
            K(route: "POST screen", target: "/v1/screens/home" + long, body: Array("{}".utf8)),
            K(route: "POST screen", target: "/v1/screens/home" + long.dropLast(), body: Array("q{}".utf8)),
            K(route: "POST screen", target: "/v1/screens/home?", body: Array("{}".utf8)),
        ]
        XCTAssertEqual(Set(distinct).count, distinct.count)
        XCTAssertEqual(K(route: "r", target: "/x?a=1", body: [1, 2]), K(route: "r", target: "/x?a=1", body: [1, 2]))
        // Equal keys hash alike (the bytes hashed as one block): one dictionary entry for both.
        var seen: [K: Int] = [:]
        for (n, k) in (distinct + distinct).enumerated() { seen[K(route: "r" + String(n % distinct.count), target: "", body: k.bytes)] = n }
        XCTAssertEqual(seen.count, distinct.count)
    }

    /// A route's `{id}` segment: decoded when it holds a '%', as it is otherwise (and when it does
    /// not decode).
    func testPathIDsAreDecodedOnlyWhenEncoded() {
        XCTAssertEqual(ServeApp.pathID("home"), "home")
        XCTAssertEqual(ServeApp.pathID("caf%C3%A9"), "café")
        XCTAssertEqual(ServeApp.pathID("a%20b"), "a b")
        XCTAssertEqual(ServeApp.pathID("a%2"), "a%2")
        XCTAssertEqual(ServeApp.pathID("caf\u{E9}"), "café")
    }
}
