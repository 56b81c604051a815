import Foundation
import Synchronization
import XCTest
@testable import LoomPopulation

/// `PublishedLog`, the append-only log the workers share their rule answers through: entries
/// read without a lock while others are appended are whole and in order, nothing past the
/// capacity is kept, and the entries are released with the log.
final class PublishedLogTests: XCTestCase {
    final class Tracked: Sendable {
        static let live = Atomic<Int>(0)
        let value: Int
        let text: String
        init(_ v: Int) { value = v; text = "entry \(v)"; Tracked.live.add(1, ordering: .relaxed) }
        deinit { Tracked.live.subtract(1, ordering: .relaxed) }
    }

    func testReadersSeeWholeEntriesInOrderWhileWritersAppend() {
        let log = PublishedLog<[Int]>(capacity: 30_000)
        let lock = NSLock()
        let group = DispatchGroup()
        // Two writers append 10,000 entries each (entry k of writer w is [w, k, k * k]).
        for w in 0..<2 {
            DispatchQueue.global().async(group: group) {
                for k in 0..<10_000 {
                    lock.lock(); log.append([w, k, k * k]); lock.unlock()
                }
            }
        }
        // A reader follows the log as it grows, as a worker does on each miss.
        var seen = 0, next = [0, 0]
        let deadline = Date().addingTimeInterval(30)
        while seen < 20_000, Date() < deadline {
            let upTo = log.count
            log.forEach(from: seen, upTo: upTo) { e in
                XCTAssertEqual(e.count, 3)
                XCTAssertEqual(e[1], next[e[0]], "writer \(e[0])'s entries in order")
                XCTAssertEqual(e[2], e[1] * e[1])
                next[e[0]] = e[1] + 1
            }
            seen = upTo
        }
        group.wait()
        XCTAssertEqual(seen, 20_000)
        XCTAssertEqual(next, [10_000, 10_000])
    }

    func testNothingPastTheCapacityAndEntriesReleasedWithTheLog() {
        let before = Tracked.live.load(ordering: .relaxed)
        do {
            let log = PublishedLog<Tracked>(capacity: 5)
            XCTAssertEqual(log.count, 0)
            XCTAssertFalse(log.isFull)
            for v in 0..<8 {
                XCTAssertEqual(log.append(Tracked(v)), v < 5)
                XCTAssertEqual(log.isFull, v >= 4, "full once the fifth entry is in")
            }
            XCTAssertEqual(log.count, 5)
            var values: [Int] = []
            log.forEach(from: 2, upTo: log.count) { values.append($0.value) }
            XCTAssertEqual(values, [2, 3, 4])
            XCTAssertEqual(Tracked.live.load(ordering: .relaxed), before + 5)
            // An empty range and an empty log read nothing.
            log.forEach(from: 5, upTo: 5) { _ in XCTFail("read past the end") }
            PublishedLog<Tracked>(capacity: 4).forEach(from: 0, upTo: 0) { _ in XCTFail("empty") }
        }
        XCTAssertEqual(Tracked.live.load(ordering: .relaxed), before, "the log released its entries")
        // Across chunks (1,024 entries each), partly filled.
        do {
            let log = PublishedLog<Tracked>(capacity: 3_000)
            for v in 0..<2_500 { log.append(Tracked(v)) }
            var sum = 0, n = 0
            log.forEach(from: 1_000, upTo: log.count) { sum += $0.value; n += 1 }
            XCTAssertEqual(n, 1_500)
            XCTAssertEqual(sum, (1_000..<2_500).reduce(0, +))
        }
        XCTAssertEqual(Tracked.live.load(ordering: .relaxed), before, "every chunk released")
    }
}
