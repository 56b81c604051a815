import Foundation
import LoomCommands
import LoomCore
import XCTest

/// `SweepWindow` (the instants of `host diff --now FROM..TO --step S`) against Foundation's own
/// date arithmetic, and `SweepCounts` merged from parts against the whole.
final class SweepWindowTests: XCTestCase {
    func window(_ range: String, _ step: String) throws -> SweepWindow {
        try SweepWindow.parse(range: range, step: step).get()
    }

    func problem(_ range: String, _ step: String) -> String? {
        if case .failure(let p) = SweepWindow.parse(range: range, step: step) { return p.message }
        return nil
    }

    func testInstantsKeepFromsOffsetAndMatchFoundation() throws {
        // Across a month end, a leap day and a negative offset that moves the UTC date.
        let w = try window("2028-02-27T22:30:00-05:00..2028-03-02T01:00:00Z", "6h")
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(secondsFromGMT: -5 * 3600)
        let start = f.date(from: "2028-02-27T22:30:00-05:00")!, end = f.date(from: "2028-03-02T01:00:00Z")!
        var want: [String] = []
        var d = start
        while d <= end { want.append(f.string(from: d)); d += 6 * 3600 }
        XCTAssertEqual(w.count, want.count)
        XCTAssertEqual((0..<w.count).map(w.instant), want)
        XCTAssertTrue(want.contains("2028-02-29T10:30:00-05:00"))
    }

    func testDatesStayDatesForWholeDaysAndBecomeUTCForHours() throws {
        let days = try window("2027-12-30..2028-01-02", "1d")
        XCTAssertEqual((0..<days.count).map(days.instant), ["2027-12-30", "2027-12-31", "2028-01-01", "2028-01-02"])
        let hours = try window("2027-12-31..2028-01-01", "12h")
        XCTAssertEqual((0..<hours.count).map(hours.instant), ["2027-12-31T00:00:00Z", "2027-12-31T12:00:00Z", "2028-01-01T00:00:00Z"])
        // TO is inclusive only when an instant lands on it; its own offset is read.
        let w = try window("2027-01-01T00:00:00Z..2027-01-01T02:59:59+01:00", "1h")
        XCTAssertEqual((0..<w.count).map(w.instant), ["2027-01-01T00:00:00Z", "2027-01-01T01:00:00Z"])
        XCTAssertEqual(try window("2027-01-01T10:00+0200..2027-01-01T11:00+0200", "30m").instant(1), "2027-01-01T10:30:00+0200")
    }

    func testBadWindows() {
        XCTAssertEqual(problem("2027-01-02..2027-01-01", "1d"), "--now '2027-01-02..2027-01-01': TO (2027-01-01) is before FROM (2027-01-02)")
        for step in ["", "d", "0d", "1", "1.5h", "-1d", "1000000d", "1 d", "١d"] {
            XCTAssertEqual(problem("2027-01-01..2027-01-02", step)?.contains("--step"), true, step)
        }
        XCTAssertEqual(SweepWindow.maxInstants, 10_000)
        XCTAssertNil(problem("2027-01-01T00:00:00Z..2027-01-07T22:39:00Z", "1m"))  // 10,000 instants exactly
        XCTAssertEqual(problem("2027-01-01T00:00:00Z..2027-01-07T22:40:00Z", "1m")?.contains("10001 instants"), true)
        XCTAssertNotNil(problem("2027-01-01", "1d"))
        XCTAssertNotNil(problem("..2027-01-01", "1d"))
        XCTAssertNotNil(problem("2027-01-01T00:00:00.5Z..2027-01-02", "1d"))
        XCTAssertEqual(problem("2027-01-01\u{1B}[31m..2027-01-02", "1d").map { !$0.contains("\u{1B}") }, true, "control characters escaped")
    }

    func testCountsOfPartsAddUpToTheWhole() {
        func fact(_ id: String, _ c: PopulationDiffFact.Change) -> PopulationDiffFact { PopulationDiffFact(id: id, kind: .component, change: c) }
        let users: [(String, [(Int, Set<PopulationDiffFact>)])] = [
            ("gold", [(3, [fact("banner", .gained)]), (5, [fact("banner", .lost)])]),
            ("free", [(3, [fact("banner", .gained), fact("lunch", .gained)])]),
            ("gold", []),
            ("free", [(1, [fact("lunch", .lost)])]),
        ]
        var whole = SweepCounts(by: ["tier"]), a = SweepCounts(by: ["tier"]), b = SweepCounts(by: ["tier"])
        for (i, (tier, changes)) in users.enumerated() {
            let seg = [JSONValue.string(tier)]
            whole.add(segment: seg, changes: changes.map { (instant: $0.0, facts: $0.1) })
            if i % 2 == 0 { a.add(segment: seg, changes: changes.map { (instant: $0.0, facts: $0.1) }) } else { b.add(segment: seg, changes: changes.map { (instant: $0.0, facts: $0.1) }) }
        }
        b.merge(a)
        func text(_ c: SweepCounts) -> [String] { c.rows.map { "\($0.instant)|\($0.segment.map { $0.serialized(pretty: false) }.joined(separator: ","))|\($0.fact.id)|\($0.fact.change)|\($0.count)/\($0.segmentUsers)" } }
        XCTAssertEqual(text(b), text(whole))
        XCTAssertEqual(text(whole), ["1|\"free\"|lunch|lost|1/2", "3|\"free\"|banner|gained|1/2", "3|\"free\"|lunch|gained|1/2",
                                     "3|\"gold\"|banner|gained|1/2", "5|\"gold\"|banner|lost|1/2"])
        XCTAssertEqual(whole.users, 4)
    }
}
