import Foundation
import XCTest

/// `host diff SCREEN --now FROM..TO --step 1d|1h [--user U | --users …]`: a campaign project (a
/// banner `between` two instants, a staged rollout — 30% from one date, everyone from a later
/// one — and a lunch offer by time of day in Oslo); the instants at which things change are
/// computed here independently (Foundation's ISO-8601 parser and time zones, each user's
/// bucket from one `host run` inside the staged window) and compared with every row.
final class CalendarSweepTests: XCTestCase {
    static let bannerFrom = "2027-01-10T06:00:00+01:00", bannerTo = "2027-01-14"
    static let stagedFrom = "2027-01-05", everyoneFrom = "2027-01-20"

    static func project() throws -> URL {
        let dir = try Host.temporaryFolder("sweep")
        try Host.write([
            "loom.json": #"{"name": "campaign", "entry": "main"}"#,
            "users.json": #"{"gold": {"id": "u1", "tier": "gold"}, "free": {"id": "u2", "tier": "free"}}"#,
            "flows.json": #"{"flows": {"main": {"presentation": "stack", "start": "home", "steps": {"sale": {"push": "sale"}}}}}"#,
            "screens/sale.json": #"{"screen": "sale", "root": {"type": "stack", "id": "sale_root", "children": [{"type": "label", "id": "sale_title", "meta": {"text": "Sale"}}]}}"#,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "title", "meta": {"text": "Home"}},
                  {"type": "button", "id": "promo_banner", "meta": {"title": "Winter sale"}, "action": "sale",
                   "rule": {"between": {"from": "\(bannerFrom)", "to": "\(bannerTo)"}}},
                  {"type": "label", "id": "new_home", "meta": {"text": "New home"},
                   "rule": {"OR": [{"AND": [{"rollout": {"percent": 30, "group": "new_home"}}, {"between": {"from": "\(stagedFrom)"}}]},
                                   {"between": {"from": "\(everyoneFrom)"}}]}},
                  {"type": "label", "id": "lunch", "meta": {"text": "Lunch deal"},
                   "rule": {"schedule": {"from": "11:00", "to": "14:00", "timezone": "Europe/Oslo"}}}
                ]}}
                """,
        ], under: dir)
        return dir
    }

    static let users: [[String: String]] = (0..<16).map { ["id": "user-\($0 * 7 + 3)", "tier": ["gold", "free", "guest"][$0 % 3]] }

    static func writeUsers(_ dir: URL) throws -> String {
        let f = dir.appendingPathComponent("population.jsonl")
        let lines = try users.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: .sortedKeys), as: UTF8.self) }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: f)
        return f.path
    }

    static func epoch(_ s: String) -> Date {
        let f = ISO8601DateFormatter()
        if s.count == 10 {
            f.formatOptions = [.withFullDate]
            f.timeZone = TimeZone(identifier: "UTC")
        }
        return f.date(from: s)!
    }

    static func days(_ from: String, _ to: String) -> [String] {
        var out: [String] = []
        var d = epoch(from)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withFullDate]
        f.timeZone = TimeZone(identifier: "UTC")
        while d <= epoch(to) {
            out.append(f.string(from: d))
            d += 86_400
        }
        return out
    }

    /// `at|segment|id|kind|change` → count, from a sweep's JSON.
    static func rows(_ o: [String: Any]) -> [String: Int] {
        var out: [String: Int] = [:]
        for r in o["changes"] as? [[String: Any]] ?? [] {
            let seg = String(decoding: try! JSONSerialization.data(withJSONObject: r["segment"]!, options: .sortedKeys), as: UTF8.self)
            out["\(r["at"]!)|\(seg)|\(r["id"]!)|\(r["kind"]!)|\(r["change"]!)"] = r["count"] as? Int
        }
        return out
    }

    func testPopulationSweepNamesTheExactDaysAndCountsPerSegment() throws {
        let dir = try Self.project()
        let screen = dir.appendingPathComponent("screens/home.json").path
        let pop = try Self.writeUsers(dir)
        // Each user's bucket: visible inside the staged window (before everyone's date) or not.
        var inBucket: [String: Bool] = [:]
        for u in Self.users {
            let r = try Host.run(["run", screen, "--now", "2027-01-06", "--context", "id=\(u["id"]!)", "--context", "tier=\(u["tier"]!)", "--format", "json"])
            assertExit(r, 0)
            inBucket[u["id"]!] = TreeJSON.ids(try r.jsonObject()["tree"]).contains("new_home")
        }
        XCTAssertTrue(inBucket.values.contains(true) && inBucket.values.contains(false), "the 30% rollout splits these users: \(inBucket)")
        // Expected, day by day: the banner's window read independently, every user's new_home.
        let days = Self.days("2027-01-01", "2027-01-31")
        let bannerOn = { (d: String) in Self.epoch(d) >= Self.epoch(Self.bannerFrom) && Self.epoch(d) < Self.epoch(Self.bannerTo) }
        var want: [String: Int] = [:]
        for u in Self.users {
            let seg = #"{"tier":"\#(u["tier"]!)"}"#
            func on(_ d: String) -> Bool {
                Self.epoch(d) >= Self.epoch(Self.everyoneFrom) || (inBucket[u["id"]!]! && Self.epoch(d) >= Self.epoch(Self.stagedFrom))
            }
            for (a, b) in zip(days, days.dropFirst()) {
                if bannerOn(a) != bannerOn(b) {
                    let c = bannerOn(b) ? "gained" : "lost"
                    want["\(b)|\(seg)|promo_banner|component|\(c)", default: 0] += 1
                    want["\(b)|\(seg)|home -sale-> sale|edge|\(c)", default: 0] += 1
                }
                if on(a) != on(b) { want["\(b)|\(seg)|new_home|component|\(on(b) ? "gained" : "lost")", default: 0] += 1 }
            }
        }
        XCTAssertEqual(Set(want.keys.map { $0.prefix(10) }), ["2027-01-05", "2027-01-11", "2027-01-14", "2027-01-20"])
        var outputs: [Data] = []
        for jobs in ["1", "2"] {
            let r = try Host.run(["diff", screen, "--now", "2027-01-01..2027-01-31", "--step", "1d", "--users", pop, "--by", "tier", "--format", "json", "--jobs", jobs])
            assertExit(r, 1)
            outputs.append(r.stdoutData)
            let o = try r.jsonObject()
            XCTAssertEqual(o["from"] as? String, "2027-01-01")
            XCTAssertEqual(o["to"] as? String, "2027-01-31")
            XCTAssertEqual(o["step"] as? String, "1d")
            XCTAssertEqual(o["instants"] as? Int, 31)
            XCTAssertEqual(o["users"] as? Int, Self.users.count)
            XCTAssertEqual(Self.rows(o), want, r.transcript)
            let changes = try XCTUnwrap(o["changes"] as? [[String: Any]])
            for c in changes { XCTAssertEqual(c["users"] as? Int, Self.users.filter { $0["tier"] == (c["segment"] as? [String: Any])?["tier"] as? String }.count) }
            let order = changes.map { [$0["at"] as! String, ($0["segment"] as! [String: Any])["tier"] as! String, $0["id"] as! String, $0["change"] as! String] }
            for (a, b) in zip(order, order.dropFirst()) { XCTAssertTrue(a.lexicographicallyPrecedes(b), "\(a) before \(b)") }
        }
        XCTAssertEqual(outputs[0], outputs[1], "the same bytes at --jobs 1 and 2")
        // Text: one block per instant with a change, its segments and rows.
        let t = try Host.run(["diff", screen, "--now", "2027-01-01..2027-01-31", "--users", pop, "--by", "tier"])
        assertExit(t, 1)
        let blocks = t.stdout.split(separator: "\n").filter { $0.count == 10 && $0.hasPrefix("2027-") }
        XCTAssertEqual(blocks, ["2027-01-05", "2027-01-11", "2027-01-14", "2027-01-20"], t.transcript)
        assertContains(t.stdout, "lost    component promo_banner", in: t)
        // Markdown: one table with a row per change.
        let m = try Host.run(["diff", screen, "--now", "2027-01-01..2027-01-31", "--users", pop, "--by", "tier", "--format", "markdown"])
        assertExit(m, 1)
        XCTAssertEqual(m.stdout.split(separator: "\n").filter { $0.hasPrefix("| 2027") }.count, want.count, m.transcript)
    }

    /// A time-of-day rule swept hourly over the night Oslo's clocks go forward (2027-03-28): the
    /// lunch offer appears at 10:00Z and goes at 13:00Z on the 27th, at 09:00Z and 12:00Z on the
    /// 28th, as Foundation's own Europe/Oslo gives them; FROM's offset is kept in every instant.
    func testHourlySweepOfOneUserFollowsTheTimeOfDayRule() throws {
        let dir = try Self.project()
        let screen = dir.appendingPathComponent("screens/home.json").path
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "Europe/Oslo")!
        let start = Self.epoch("2027-03-27T00:00:00Z")
        var want: [String] = []
        let fmt = ISO8601DateFormatter()
        fmt.timeZone = TimeZone(secondsFromGMT: 3600)
        for h in 1...48 {
            let a = start + Double(h - 1) * 3600, b = start + Double(h) * 3600
            let on = { (d: Date) in (11..<14).contains(cal.component(.hour, from: d)) }
            if on(a) != on(b) { want.append("\(fmt.string(from: b))|\(on(b) ? "gained" : "lost")") }
        }
        XCTAssertEqual(want.count, 4)
        let r = try Host.run(["diff", screen, "--now", "2027-03-27T01:00:00+01:00..2027-03-29T01:00:00+01:00", "--step", "1h", "--user", "gold", "--format", "json"])
        assertExit(r, 1)
        let changes = try XCTUnwrap(try r.jsonObject()["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { "\($0["at"]!)|\($0["change"]!)" }, want, r.transcript)
        XCTAssertTrue(changes.allSatisfy { $0["id"] as? String == "lunch" && ($0["segment"] as? [String: String]) == ["profile": "gold"] && $0["count"] as? Int == 1 })
        // Every profile: the same rows for each (the rule reads no attribute), one segment each.
        let all = try Host.run(["diff", screen, "--now", "2027-03-27T01:00:00+01:00..2027-03-29T01:00:00+01:00", "--step", "1h", "--users", "all", "--format", "json"])
        assertExit(all, 1)
        let allChanges = try XCTUnwrap(try all.jsonObject()["changes"] as? [[String: Any]])
        XCTAssertEqual(allChanges.count, 2 * want.count, all.transcript)
        XCTAssertEqual(Set(allChanges.compactMap { ($0["segment"] as? [String: String])?["profile"] }), ["gold", "free"])
    }

    func testNothingChangesExitsZeroAndBadInputIsAUsageError() throws {
        let dir = try Self.project()
        let screen = dir.appendingPathComponent("screens/home.json").path
        let quiet = try Host.run(["diff", screen, "--now", "2026-06-01..2026-06-30", "--user", "free", "--format", "json"])
        assertExit(quiet, 0)
        XCTAssertEqual((try quiet.jsonObject()["changes"] as? [Any])?.count, 0, quiet.transcript)
        let text = try Host.run(["diff", screen, "--now", "2026-06-01..2026-06-30"])
        assertExit(text, 0)
        assertContains(text.stdout, "nothing changes within the window", in: text)
        let bad: [([String], String)] = [
            (["--now", "2027-01-31..2027-01-01"], "TO (2027-01-01) is before FROM (2027-01-31)"),
            (["--now", "2027-01-01..2027-01-31", "--step", "1w"], "--step '1w' is a whole number of days, hours or minutes"),
            (["--now", "2027-01-01..2027-01-31", "--step", "0h"], "--step '0h'"),
            (["--now", "2026-01-01..2027-12-31", "--step", "1h"], "is 17497 instants; a sweep resolves at most 10000"),
            (["--now", "2027-01-01"], "a calendar sweep needs a range, --now FROM..TO"),
            (["--step", "1d"], "--step 1d is for a calendar sweep"),
            (["--now", "2027-01-01.."], "give both ends of the range"),
            (["--now", "2027-02-30..2027-03-01"], "FROM '2027-02-30' is not an ISO-8601 date or date-time: day must be 01-28"),
            (["--now", "2027-01-01..2027-01-02", "--format", "html"], "--format html is for a population diff"),
            (["--now", "2027-01-01..2027-01-02", screen], "give one screen, not a second version"),
            (["--now", "2027-01-01..2027-01-02", "--by", "tier"], "--by is for a population"),
        ]
        for (args, message) in bad {
            let r = try Host.run(["diff", screen] + args)
            assertExit(r, 64)
            assertContains(r.stderr, message, in: r, "stderr")
            XCTAssertTrue(r.stdout.isEmpty, r.transcript)
        }
        // A profile that does not exist: an input error (exit 2), nothing printed.
        let unknown = try Host.run(["diff", screen, "--now", "2027-01-01..2027-01-02", "--user", "nobody"])
        assertExit(unknown, 2)
        assertContains(unknown.stderr, "unknown user 'nobody'", in: unknown, "stderr")
    }
}
