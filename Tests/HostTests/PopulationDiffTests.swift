import Foundation
import XCTest

/// `host diff OLD NEW --users FILE [--by …]`: per segment and node, how many users gained, lost,
/// saw updated or moved it; every row checked against a per-user computation made here from
/// `host diff --context …` (one anonymous user with the same attributes) and `host run`.
final class PopulationDiffTests: XCTestCase {
    /// 14 users: tiers gold, free, guest and none (the null segment), four countries, churn risk
    /// for every third, ids for the rollout.
    static var users: [[String: Any]] { (0..<14).map { i in
        var u: [String: Any] = ["id": "u\(i + 1)", "country": ["NO", "SE", "DK", "US"][(i / 2) % 4],
                                "churn_score": i % 3 == 0 ? 0.9 : 0.1, "app_version": "5.3.0"]
        if let t = ["gold", "free", "guest", nil][i % 4] { u["tier"] = t }
        return u
    } }

    /// The sample app and a new home: an item retitled and one added to the watched list, the
    /// 50% rollout at 100% (the carousel and its items appear for the other half), the premium
    /// tab for every gold member (churn risk or not: a component with children appears), the
    /// Nordic offer for Norway only (lost in SE and DK), and the settings tab moved before the
    /// wishlist tab.
    static func project() throws -> (old: String, new: String, dir: URL) {
        let dir = try Host.temporaryFolder("popdiff")
        let p = dir.appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: p)
        let src = p.appendingPathComponent("screens/home.json")
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: src)) as! [String: Any]
        var root = doc["root"] as! [String: Any]
        var tabs = root["children"] as! [[String: Any]]
        var stack = (tabs[0]["children"] as! [[String: Any]])[0]
        var lists = stack["children"] as! [[String: Any]]
        // The watched list is fed by data/watched.json through a template (docs/data.md): the new
        // home reads a copy with one movie retitled and one added.
        let watchedURL = p.appendingPathComponent("data/watched.json")
        var watched = try JSONSerialization.jsonObject(with: Data(contentsOf: watchedURL)) as! [[String: Any]]
        watched[1]["title"] = "Heat (director's cut)"
        watched.append(["id": 11645, "title": "Ran", "year": 1985, "available": true, "new_release": false])
        try JSONSerialization.data(withJSONObject: watched, options: [.prettyPrinted, .sortedKeys])
            .write(to: p.appendingPathComponent("data/watched_new.json"))
        var sources = doc["data"] as! [String: Any]
        var watchedSource = sources["watched"] as! [String: Any]
        watchedSource["file"] = "data/watched_new.json"
        sources["watched"] = watchedSource
        doc["data"] = sources
        lists[1]["rule"] = ["rollout": ["percent": 100, "group": "new_recommendations"]]
        stack["children"] = lists
        tabs[0]["children"] = [stack]
        tabs[2]["rule"] = "is_gold_member"
        var settings = tabs[3]
        var sstack = (settings["children"] as! [[String: Any]])[0]
        var sc = sstack["children"] as! [[String: Any]]
        sc[1]["rule"] = ["in": ["country": ["NO"]]]
        sstack["children"] = sc
        settings["children"] = [sstack]
        tabs.remove(at: 3)
        tabs.insert(settings, at: 1)
        root["children"] = tabs
        doc["root"] = root
        let data = try JSONSerialization.data(withJSONObject: doc, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: p.appendingPathComponent("screens/home_new.json"))
        return (src.path, p.appendingPathComponent("screens/home_new.json").path, p)
    }

    static func jsonText(_ v: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: v, options: [.fragmentsAllowed, .sortedKeys]), as: UTF8.self)
    }

    /// `--context k=JSON` for every attribute: the same user as a record of the population.
    static func context(_ u: [String: Any]) throws -> [String] {
        try u.keys.sorted().flatMap { ["--context", "\($0)=\(try jsonText(u[$0]!))"] }
    }

    /// The node at a differ path (`root/children[0]/items[3]`).
    static func node(at path: String, in tree: Any?) -> [String: Any]? {
        var parts = path.split(separator: "/").map(String.init)
        guard parts.first == "root", var cur = tree as? [String: Any] else { return nil }
        parts.removeFirst()
        for p in parts {
            if p == "header" || p == "footer" { guard let h = cur[p] as? [String: Any] else { return nil }; cur = h; continue }
            let key = String(p.prefix { $0 != "[" })
            guard let i = Int(p.dropFirst(key.count + 1).dropLast()), let a = cur[key] as? [[String: Any]], a.indices.contains(i) else { return nil }
            cur = a[i]
        }
        return cur
    }

    static func collectionName(_ n: [String: Any]?) -> String {
        let t = (n?["type"] as? String) ?? (n?["kind"] as? String) ?? "collection"
        return t + ((n?["id"] as? String).map { " '\($0)'" } ?? "")
    }

    /// One user's facts, `kind|id|change`, from the single-user diff and the two trees.
    static func facts(diff: [String: Any], old: Any?, new: Any?) -> Set<String> {
        var out = Set<String>()
        func walk(_ n: [String: Any], name: String, kind: String, path: String, change: String) {
            out.insert("\(kind)|\(name)|\(change)")
            for slot in ["header", "footer"] {
                if let h = n[slot] as? [String: Any] {
                    walk(h, name: (h["id"] as? String) ?? "\(path)/\(slot)", kind: h["type"] == nil && h["kind"] != nil ? "item" : "component",
                         path: "\(path)/\(slot)", change: change)
                }
            }
            for (i, c) in (n["children"] as? [[String: Any]] ?? []).enumerated() {
                walk(c, name: (c["id"] as? String) ?? "\(path)/children[\(i)]", kind: c["type"] == nil && c["kind"] != nil ? "item" : "component",
                     path: "\(path)/children[\(i)]", change: change)
            }
            for (i, c) in (n["items"] as? [[String: Any]] ?? []).enumerated() {
                walk(c, name: (c["id"] as? String) ?? "item \(i) of \(collectionName(n))", kind: "item", path: "\(path)/items[\(i)]", change: change)
            }
        }
        func name(_ c: [String: Any], index: Int?, tree: Any?) -> String {
            if let id = c["id"] as? String { return id }
            let path = c["path"] as! String
            if c["node"] as? String == "item", let i = index, let r = path.range(of: "/items[", options: .backwards) {
                return "item \(i) of \(collectionName(node(at: String(path[..<r.lowerBound]), in: tree)))"
            }
            return path
        }
        for c in diff["changes"] as? [[String: Any]] ?? [] {
            let kind = c["node"] as! String, path = c["path"] as! String
            switch c["change"] as! String {
            case "inserted":
                if let n = node(at: path, in: new) { walk(n, name: name(c, index: c["new_index"] as? Int, tree: new), kind: kind, path: path, change: "gained") }
            case "deleted":
                if let n = node(at: path, in: old) { walk(n, name: name(c, index: c["old_index"] as? Int, tree: old), kind: kind, path: path, change: "lost") }
            case "hard", "soft": out.insert("\(kind)|\(name(c, index: c["new_index"] as? Int, tree: new))|updated")
            case "moved": out.insert("\(kind)|\(name(c, index: c["new_index"] as? Int, tree: new))|moved")
            default: break
            }
        }
        // `from --step--> to (how)`: as `FROM -STEP-> TO`, updated when only the presentation changed.
        let re = try! NSRegularExpression(pattern: "^(.*) --(.*)--> (.*) \\((.*)\\)$")
        func edge(_ s: String) -> String {
            let m = re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s))!
            let g = { (i: Int) in String(s[Range(m.range(at: i), in: s)!]) }
            return "\(g(1)) -\(g(2))-> \(g(3))"
        }
        let graph = diff["graph"] as? [String: Any] ?? [:]
        let gained = Set((graph["gained"] as? [String] ?? []).map(edge)), lost = Set((graph["lost"] as? [String] ?? []).map(edge))
        for e in gained.union(lost) {
            out.insert("edge|\(e)|" + (gained.contains(e) && lost.contains(e) ? "updated" : gained.contains(e) ? "gained" : "lost"))
        }
        return out
    }

    /// The rows every user's own diff gives, keyed `segment-json|id|kind|change` → count, and
    /// users per segment.
    static func expected(old: String, new: String, by: [String]) throws -> (rows: [String: Int], segments: [String: Int]) {
        var rows: [String: Int] = [:], segments: [String: Int] = [:]
        for u in users {
            let ctx = try context(u)
            let d = try Host.run(["diff", old, new, "--format", "json"] + ctx)
            guard d.status == 0 || d.status == 1 else { throw HostTestError(d.transcript) }
            let one = try XCTUnwrap((try d.jsonObject()["users"] as? [String: Any])?.values.first as? [String: Any])
            let ro = try Host.run(["run", old, "--format", "json"] + ctx), rn = try Host.run(["run", new, "--format", "json"] + ctx)
            let to = try ro.jsonObject()["tree"], tn = try rn.jsonObject()["tree"]
            var seg: [String: Any] = [:]
            for a in by { seg[a] = u[a] ?? NSNull() }
            let key = try jsonText(seg)
            segments[key, default: 0] += 1
            for f in facts(diff: one, old: to, new: tn) {
                let p = f.split(separator: "|", maxSplits: 2).map(String.init)
                rows["\(key)|\(p[1])|\(p[0])|\(p[2])", default: 0] += 1
            }
        }
        return (rows, segments)
    }

    func writeUsers(_ dir: URL) throws -> (jsonl: String, csv: String) {
        let jsonl = dir.appendingPathComponent("users.jsonl"), csv = dir.appendingPathComponent("users.csv")
        try Data(try Self.users.map { try Self.jsonText($0) }.joined(separator: "\n").appending("\n").utf8).write(to: jsonl)
        let cols = ["id", "tier", "country", "churn_score", "app_version"]
        var text = cols.joined(separator: ",") + "\n"
        for u in Self.users { text += cols.map { u[$0].map { "\($0)" } ?? "" }.joined(separator: ",") + "\n" }
        try Data(text.utf8).write(to: csv)
        return (jsonl.path, csv.path)
    }

    func testEveryRowMatchesEachUsersOwnDiffAtOneAndTwoJobs() throws {
        let (old, new, dir) = try Self.project()
        let files = try writeUsers(dir)
        let by = ["tier", "country"]
        let want = try Self.expected(old: old, new: new, by: by)
        var outputs: [Data] = []
        for (file, jobs) in [(files.jsonl, "1"), (files.jsonl, "2"), (files.csv, "1"), (files.csv, "2")] {
            let r = try Host.run(["diff", old, new, "--users", file, "--by", by.joined(separator: ","), "--format", "json", "--jobs", jobs])
            assertExit(r, 1)
            outputs.append(r.stdoutData)
            let o = try r.jsonObject()
            XCTAssertEqual(o["users"] as? Int, Self.users.count, r.transcript)
            XCTAssertEqual(o["by"] as? [String], by, r.transcript)
            let rows = try XCTUnwrap(o["rows"] as? [[String: Any]])
            var got: [String: Int] = [:]
            var order: [[String]] = []
            for row in rows {
                XCTAssertEqual(Set(row.keys), ["segment", "users", "id", "kind", "change", "count"], r.transcript)
                let seg = try Self.jsonText(row["segment"]!)
                XCTAssertEqual(row["users"] as? Int, want.segments[seg], "users of \(seg)")
                got["\(seg)|\(row["id"]!)|\(row["kind"]!)|\(row["change"]!)"] = row["count"] as? Int
                order.append([seg, row["id"] as! String, row["change"] as! String])
            }
            XCTAssertEqual(got, want.rows, "every row against the per-user diffs (\(file), --jobs \(jobs))")
            // Something of each change was counted (the edits make all four happen).
            for c in ["gained", "lost", "updated", "moved"] { XCTAssertTrue(rows.contains { $0["change"] as? String == c }, c) }
            // The carousel's items are the recommendations' movies (ids `movie-ID` from the template).
            let recommended = Set(try (JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("data/recommendations.json"))) as! [[String: Any]])
                .map { "movie-\($0["id"]!)" })
            XCTAssertTrue(rows.contains { $0["kind"] as? String == "item" && $0["change"] as? String == "gained" && recommended.contains($0["id"] as? String ?? "") },
                          "items inside the carousel that appears\n\(r.transcript)")
            XCTAssertTrue(rows.contains { $0["id"] as? String == "premium_greeting" && $0["change"] as? String == "gained" }, r.transcript)
            // Ordered by segment, then id, then change (segments as the host orders them: by
            // each value's compact JSON; here the segment objects' text keeps that order).
            for (a, b) in zip(order, order.dropFirst()) where a[0] == b[0] {
                XCTAssertTrue(a[1] < b[1] || (a[1] == b[1] && a[2] <= b[2]), "\(a) before \(b)")
            }
        }
        XCTAssertEqual(outputs[0], outputs[1], "the same bytes at --jobs 1 and 2")
        XCTAssertEqual(outputs[0], outputs[2], "JSON Lines and CSV of the same users give the same bytes")
        XCTAssertEqual(outputs[2], outputs[3])
    }

    func testWithoutByOneSegmentAndSameScreensExitZero() throws {
        let (old, new, dir) = try Self.project()
        let files = try writeUsers(dir)
        let same = try Host.run(["diff", old, old, "--users", files.jsonl, "--format", "json"])
        assertExit(same, 0)
        XCTAssertEqual((try same.jsonObject()["rows"] as? [[String: Any]])?.count, 0, same.transcript)
        XCTAssertEqual(try same.jsonObject()["by"] as? [String], [], same.transcript)
        let r = try Host.run(["diff", old, new, "--users", files.jsonl, "--format", "json", "--jobs", "2"])
        assertExit(r, 1)
        let rows = try XCTUnwrap(try r.jsonObject()["rows"] as? [[String: Any]])
        XCTAssertFalse(rows.isEmpty)
        for row in rows {
            XCTAssertEqual((row["segment"] as? [String: Any])?.count, 0)
            XCTAssertEqual(row["users"] as? Int, Self.users.count)
        }
        // The soft update of the retitled movie reaches every user.
        XCTAssertTrue(rows.contains { $0["id"] as? String == "movie-949" && $0["change"] as? String == "updated" && $0["count"] as? Int == Self.users.count },
                      r.transcript)
        let text = try Host.run(["diff", old, new, "--users", files.jsonl])
        assertExit(text, 1)
        assertContains(text.stdout, "all users: \(Self.users.count) users", in: text)
    }

    /// `--no-graph`: the same rows without the navigation graph's edges (none explored), at any
    /// `--jobs`; only with a population.
    func testNoGraphGivesTheSameRowsWithoutEdges() throws {
        let (old, new, dir) = try Self.project()
        let files = try writeUsers(dir)
        let full = try Host.run(["diff", old, new, "--users", files.jsonl, "--by", "tier", "--format", "json", "--jobs", "1"])
        assertExit(full, 1)
        let rows = try XCTUnwrap(try full.jsonObject()["rows"] as? [[String: Any]])
        XCTAssertTrue(rows.contains { $0["kind"] as? String == "edge" }, "the edits change some edge\n\(full.transcript)")
        let want = try rows.filter { $0["kind"] as? String != "edge" }.map { try Self.jsonText($0) }
        var outputs: [Data] = []
        for jobs in ["1", "2"] {
            let r = try Host.run(["diff", old, new, "--users", files.jsonl, "--by", "tier", "--format", "json", "--no-graph", "--jobs", jobs])
            assertExit(r, 1)
            outputs.append(r.stdoutData)
            let got = try XCTUnwrap(try r.jsonObject()["rows"] as? [[String: Any]]).map { try Self.jsonText($0) }
            XCTAssertEqual(got, want, r.transcript)
        }
        XCTAssertEqual(outputs[0], outputs[1])
        let bad = try Host.run(["diff", old, new, "--no-graph"])
        assertExit(bad, 64)
        assertContains(bad.stderr, "--no-graph is for a population", in: bad)
    }

    /// The PR comment: GitHub-flavoured tables (a header, a delimiter row, rows with as many
    /// cells), the summary first.
    func testMarkdownIsTables() throws {
        let (old, new, dir) = try Self.project()
        let files = try writeUsers(dir)
        let r = try Host.run(["diff", old, new, "--users", files.jsonl, "--by", "tier", "--format", "markdown"])
        assertExit(r, 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        /// Cells of a table row: split at `|` not escaped by a backslash.
        func cells(_ line: String) -> Int {
            var n = 0, escaped = false
            for ch in line {
                if escaped { escaped = false; continue }
                if ch == "\\" { escaped = true } else if ch == "|" { n += 1 }
            }
            return n - 1
        }
        var tables: [[String]] = [], current: [String] = []
        for l in lines + [""] {
            if l.hasPrefix("|") { current.append(l) } else if !current.isEmpty { tables.append(current); current = [] }
        }
        XCTAssertGreaterThanOrEqual(tables.count, 2, r.transcript)
        XCTAssertEqual(tables[0].first, "| Segment | Users | Gained | Lost | Updated | Moved |", r.transcript)
        for t in tables {
            XCTAssertGreaterThanOrEqual(t.count, 3, "header, delimiter and rows\n\(r.transcript)")
            XCTAssertTrue(t[1].allSatisfy { "|-: ".contains($0) }, "delimiter row: \(t[1])")
            for row in t { XCTAssertEqual(cells(row), cells(t[0]), "\(row)\n\(r.transcript)") }
        }
        // The summary has one row per segment: gold, free, guest and the users without a tier.
        XCTAssertEqual(tables[0].count, 2 + 4, r.transcript)
        assertContains(r.stdout, "tier\\=null", in: r)
        let html = try Host.run(["diff", old, new, "--users", files.jsonl, "--by", "tier", "--format", "html"])
        assertExit(html, 1)
        assertContains(html.stdout, "<!DOCTYPE html>", in: html)
        assertLacks(html.stdout, "src=", in: html, "no external script")
    }

    /// Parts of a population (`--users -` with `--first-line`, as scripts/spark-eval diff runs
    /// them) with `--segment-users` add up to the whole.
    func testPartsAddUpToTheWhole() throws {
        let (old, new, dir) = try Self.project()
        let files = try writeUsers(dir)
        let whole = try Host.run(["diff", old, new, "--users", files.jsonl, "--by", "tier", "--format", "json", "--segment-users"])
        assertExit(whole, 1)
        let lines = try String(contentsOfFile: files.jsonl, encoding: .utf8).split(separator: "\n").map(String.init)
        var rows: [String: Int] = [:], segs: [String: Int] = [:]
        for (start, end) in [(0, 5), (5, 14)] {
            let part = dir.appendingPathComponent("part\(start).jsonl")
            try Data((lines[start..<end].joined(separator: "\n") + "\n").utf8).write(to: part)
            let r = try Host.run(["diff", old, new, "--users", part.path, "--users-format", "jsonl", "--first-line", "\(start + 1)",
                                  "--by", "tier", "--format", "json", "--segment-users"])
            XCTAssertTrue(r.status == 0 || r.status == 1, r.transcript)
            let o = try r.jsonObject()
            for s in o["segments"] as? [[String: Any]] ?? [] { segs[try Self.jsonText(s["segment"]!), default: 0] += s["users"] as! Int }
            for row in o["rows"] as? [[String: Any]] ?? [] {
                rows["\(try Self.jsonText(row["segment"]!))|\(row["id"]!)|\(row["kind"]!)|\(row["change"]!)", default: 0] += row["count"] as! Int
            }
        }
        let o = try whole.jsonObject()
        var wholeRows: [String: Int] = [:], wholeSegs: [String: Int] = [:]
        for s in o["segments"] as? [[String: Any]] ?? [] { wholeSegs[try Self.jsonText(s["segment"]!)] = s["users"] as? Int }
        for row in o["rows"] as? [[String: Any]] ?? [] {
            wholeRows["\(try Self.jsonText(row["segment"]!))|\(row["id"]!)|\(row["kind"]!)|\(row["change"]!)"] = row["count"] as? Int
        }
        XCTAssertEqual(rows, wholeRows)
        XCTAssertEqual(segs, wholeSegs)
        XCTAssertEqual(o["seen_by"] as? [String], ["tier"])
    }

    func testBadInputIsOneLocatedErrorAndExitTwo() throws {
        let (old, new, dir) = try Self.project()
        let files = try writeUsers(dir)
        let missing = try Host.run(["diff", old, new, "--users", dir.appendingPathComponent("nobody.jsonl").path])
        assertExit(missing, 2)
        assertContains(missing.stderr, "nobody.jsonl", in: missing)
        XCTAssertEqual(missing.stdout, "", missing.transcript)

        let typo = try Host.run(["diff", old, new, "--users", files.jsonl, "--by", "teir"])
        assertExit(typo, 2)
        assertContains(typo.stderr, "--by teir: no user of", in: typo)
        assertContains(typo.stderr, "did you mean 'tier'?", in: typo)
        XCTAssertEqual(typo.stdout, "", typo.transcript)

        let bad = dir.appendingPathComponent("bad.jsonl")
        try Data("{\"tier\": \"gold\", \"id\": \"a\"}\n{\"tier\": \"free\", \"id\": }\n".utf8).write(to: bad)
        let r = try Host.run(["diff", old, new, "--users", bad.path, "--jobs", "2"])
        assertExit(r, 2)
        assertMatches(r.stderr, "bad\\.jsonl:2:[0-9]+: error: ", in: r, "stderr")
        XCTAssertEqual(r.stdout, "", "no partial counts\n\(r.transcript)")

        let flag = try Host.run(["diff", old, new, "--users", "all", "--by", "tier"])
        assertExit(flag, 64)
        assertContains(flag.stderr, "--by is for a population", in: flag)
        let md = try Host.run(["diff", old, new, "--users", "gold", "--format", "markdown"])
        assertExit(md, 64)
        // Profiles by name as before.
        let profiles = try Host.run(["diff", old, new, "--users", "gold,free", "--format", "json"])
        assertExit(profiles, 1)
        XCTAssertEqual(Set((try profiles.jsonObject()["users"] as? [String: Any] ?? [:]).keys), ["gold", "free"])
    }
}
