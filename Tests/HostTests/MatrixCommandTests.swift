import Foundation
import XCTest

/// `host matrix`: per segment, how many users see each component, item and edge.
final class MatrixCommandTests: XCTestCase {
    func population(_ n: Int) throws -> URL {
        let dir = try Host.temporaryFolder("matrix")
        let file = dir.appendingPathComponent("users.jsonl")
        try Data(try EvalCommandTests.jsonl(EvalCommandTests.generatedUsers(n)).utf8).write(to: file)
        return file
    }

    func testCountsByTierAddUpToThePopulation() throws {
        let file = try population(300)
        let r = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", file.path, "--by", "tier", "--format", "json"])
        assertExit(r, 0)
        let o = try r.jsonObject()
        XCTAssertEqual(o["population"] as? Int, 300)
        let segments = o["segments"] as? [[String: Any]] ?? []
        XCTAssertEqual(Set(segments.compactMap { ($0["segment"] as? [String: Any])?["tier"] as? String }), ["gold", "free", "guest"])
        XCTAssertEqual(segments.compactMap { $0["users"] as? Int }.reduce(0, +), 300, "segments add up to the population")
        // The same counts from host eval, user by user.
        let eval = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file.path])
        let users = EvalCommandTests.generatedUsers(300)
        var expected: [String: [String: Int]] = [:]
        for (i, line) in eval.stdout.split(separator: "\n").enumerated() {
            let v = (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["visible"] as? [String] ?? []
            let tier = users[i]["tier"] as! String
            for id in Set(v) { expected[tier, default: [:]][id, default: 0] += 1 }
        }
        for s in segments {
            let tier = (s["segment"] as? [String: Any])?["tier"] as? String ?? ""
            let n = s["users"] as? Int ?? 0
            for row in s["rows"] as? [[String: Any]] ?? [] {
                let count = row["users"] as? Int ?? -1
                XCTAssertLessThanOrEqual(count, n)
                // Items without an id are rows by collection and position (host eval names
                // them by action): compared below by their collection.
                if row["kind"] as? String != "component" { continue }
                XCTAssertEqual(count, expected[tier]?[row["id"] as? String ?? ""] ?? 0, "\(tier) \(row["id"] ?? "")")
                if row["id"] as? String == "tabs" { XCTAssertEqual(count, n, "the root is seen by everyone") }
                let pct = row["percent"] as? Double ?? -1
                XCTAssertEqual(pct, (Double(count) * 1000 / Double(n)).rounded() / 10, accuracy: 0.001)
            }
        }
        XCTAssertTrue(segments.contains { ($0["rows"] as? [[String: Any]] ?? []).contains { $0["kind"] as? String == "edge" } }, "graph edges are counted")
    }

    func testSampleProfilesTextCSVAndJobs() throws {
        let users = "docs/examples/movies/users.json"
        let text = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users, "--by", "tier"])
        assertExit(text, 0)
        assertContains(text.stdout, "screen home: 4 users, 3 segments by tier", in: text)
        assertContains(text.stdout, "tier=gold: 2 users", in: text)
        assertContains(text.stdout, "tier=free: 1 user\n", in: text)
        let csv = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users, "--format", "csv", "--no-graph"])
        assertExit(csv, 0)
        XCTAssertEqual(csv.stdoutLines.first, "user,segment_users,kind,id,flow,users,percent")
        XCTAssertFalse(csv.stdout.contains(",edge,"), "--no-graph counts no edges")
        assertContains(csv.stdout, "free,1,component,upsell_banner,,1,100.0", in: csv)
        assertContains(csv.stdout, "gold,1,component,upsell_banner,,0,0.0", in: csv)
        let file = try population(500)
        let one = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", file.path, "--by", "tier,country", "--jobs", "1", "--format", "csv"])
        let two = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", file.path, "--by", "tier,country", "--jobs", "2", "--format", "csv"])
        assertExit(one, 0)
        XCTAssertEqual(one.stdout, two.stdout, "the same matrix at any --jobs")
        XCTAssertEqual(one.stdoutLines.first, "tier,country,segment_users,kind,id,flow,users,percent")
    }

    /// A component or item no user sees is still a row, with 0 in every segment (after the
    /// keys users saw, in document order): "nobody sees it" is what a matrix is asked for.
    func testDeclaredNodesNobodySeesAreRowsOfZeros() throws {
        let dir = try Host.temporaryFolder("matrix-unseen")
        try Host.write([
            "loom.json": "{}",
            "plugins/g/plugin.lua": """
            return { name = "g", version = "1.0.0", api = 1, register = function(host)
              host.rule("gold", function(user) return user.tier == "gold" end)
              host.rule("nobody", function(user) return false end)
            end }
            """,
            "screens/s.json": """
            {"screen": "s", "root": {"type": "stack", "id": "root", "children": [
              {"type": "label", "id": "for_gold", "rule": "gold", "meta": {"text": "g"}},
              {"type": "label", "id": "never", "rule": "nobody", "meta": {"text": "n"}},
              {"type": "list", "id": "shelf", "items": [
                {"id": "open_item", "title": "o"},
                {"id": "closed_item", "title": "c", "rule": "nobody"}
              ]},
              {"type": "stack", "rule": "nobody", "children": [{"type": "label", "meta": {"text": "inner"}}]}
            ]}}
            """,
            "users.jsonl": #"{"name": "a", "tier": "gold"}"# + "\n" + #"{"name": "b", "tier": "free"}"# + "\n",
        ], under: dir)
        let users = dir.appendingPathComponent("users.jsonl").path
        let r = try Host.run(["matrix", "s", "--project", dir.path, "--users", users, "--by", "tier", "--format", "csv", "--no-graph"])
        assertExit(r, 0)
        let gold = r.stdoutLines.filter { $0.hasPrefix("gold,") }
        XCTAssertEqual(gold, [
            "gold,1,component,root,,1,100.0",
            "gold,1,component,for_gold,,1,100.0",
            "gold,1,component,shelf,,1,100.0",
            "gold,1,item,open_item,,1,100.0",
            "gold,1,component,never,,0,0.0",
            "gold,1,item,closed_item,,0,0.0",
            "gold,1,component,root/children[3],,0,0.0",
            "gold,1,component,root/children[3]/children[0],,0,0.0",
        ], r.transcript)
        assertContains(r.stdout, "free,1,component,for_gold,,0,0.0", in: r)
        assertContains(r.stdout, "free,1,component,never,,0,0.0", in: r)
        // The names are those host eval gives what it sees.
        let eval = try Host.run(["eval", "s", "--project", dir.path, "--users", users])
        assertContains(eval.stdout, #""visible":["root","for_gold","shelf","open_item"]"#, in: eval)
    }

    /// Records that cannot be read are reported at their line, not counted, and the summary
    /// counts users as `host eval` does (every record read), then those the matrix counted.
    func testBadRecordsAreReportedAndTheSummaryCountsThem() throws {
        let dir = try Host.temporaryFolder("matrix-bad")
        let users = dir.appendingPathComponent("users.jsonl")
        try Data((#"{"name": "a", "tier": "gold"}"# + "\nnot json\n" + #"{"name": 5}"# + "\n" + #"{"name": "b", "tier": "free"}"# + "\n").utf8).write(to: users)
        let r = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users.path, "--by", "tier", "--format", "csv", "--no-graph"])
        assertExit(r, 1)
        assertContains(r.stderr, "users.jsonl:2:1: error: ", in: r)
        assertContains(r.stderr, "users.jsonl:3:10: error: ", in: r)
        XCTAssertEqual(r.stderrLines.last, "matrix: 4 users, 2 counted in 2 segments, 2 failed", r.transcript)
        let counted = Set(r.stdoutLines.dropFirst().filter { !$0.isEmpty }.map { $0.split(separator: ",").prefix(2).joined(separator: ",") })
        XCTAssertEqual(counted, ["gold,1", "free,1"], r.transcript)
        let eval = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", users.path])
        XCTAssertEqual(eval.stderrLines.last, "eval: 4 users, 2 failed", eval.transcript)
        let stopped = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users.path, "--by", "tier", "--no-graph", "--fail-fast"])
        assertExit(stopped, 1)
        assertContains(stopped.stdout, "tier=gold: 1 user\n", in: stopped)
        XCTAssertFalse(stopped.stdout.contains("tier=free"), "a user after the first failure is not counted: " + stopped.transcript)
        XCTAssertEqual(stopped.stderrLines.last, "matrix: 2 users, 1 counted in 1 segment, 1 failed (stopped at the first failure: --fail-fast)", stopped.transcript)
        let good = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", "docs/examples/movies/users.json", "--by", "tier", "--no-graph"])
        XCTAssertEqual(good.stderrLines.last, "matrix: 4 users in 3 segments, none failed", good.transcript)
    }

    /// Segments whose values differ are told apart in every format: the string "3" and the
    /// number 3, the string "null" and a missing attribute, "a b" and a pair separated by a
    /// space. A string is written bare only when it cannot read as anything else.
    func testSegmentValuesThatReadAlikeAreWrittenApart() throws {
        let dir = try Host.temporaryFolder("matrix-values")
        let users = dir.appendingPathComponent("users.jsonl")
        try Data([#"{"tier": "null"}"#, "{}", #"{"tier": 3}"#, #"{"tier": "3"}"#, #"{"tier": "gold", "country": "NO"}"#,
                  #"{"tier": "gold country=NO"}"#, #"{"tier": ""}"#, #"{"tier": "[1]"}"#, #"{"tier": "0123"}"#, #"{"tier": "1e5"}"#]
            .joined(separator: "\n").utf8).write(to: users)
        let text = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users.path, "--by", "tier,country", "--no-graph"])
        assertExit(text, 0)
        let names = text.stdoutLines.filter { $0.hasPrefix("tier=") }
        XCTAssertEqual(names, [
            #"tier="null" country=null: 1 user"#, "tier=null country=null: 1 user",
            "tier=3 country=null: 1 user", #"tier="3" country=null: 1 user"#,
            "tier=gold country=NO: 1 user", #"tier="gold country=NO" country=null: 1 user"#,
            #"tier="" country=null: 1 user"#, #"tier="[1]" country=null: 1 user"#,
            "tier=0123 country=null: 1 user", #"tier="1e5" country=null: 1 user"#,
        ], text.transcript)
        let csv = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users.path, "--by", "tier", "--no-graph", "--format", "csv"])
        assertExit(csv, 0)
        let segments = csv.stdoutLines.dropFirst().filter { $0.contains(",component,tabs,") }.map { $0.components(separatedBy: ",component,")[0] }
        XCTAssertEqual(segments, [#""""null""",1"#, "null,1", "3,1", #""""3""",1"#, "gold,1", "gold country=NO,1", #""""""",1"#,
                                  #""""[1]""",1"#, "0123,1", #""""1e5""",1"#], csv.transcript)
        // Without --by each user is a segment, named by its name or its line: the name "2"
        // is not line 2.
        try Data((#"{"name": "2"}"# + "\n{}\n").utf8).write(to: users)
        let byUser = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users.path, "--no-graph"])
        XCTAssertEqual(byUser.stdoutLines.filter { $0.hasSuffix(": 1 user") }, [#""2": 1 user"#, "2: 1 user"], byUser.transcript)
    }

    /// `--by` names attributes: an empty name or one named twice is a usage error; one no user
    /// has (a typo, most likely) is counted as null for everyone and said in a warning, with
    /// the name meant when one is close, at any --jobs; one some user has is not warned about.
    func testByIsCheckedAndAnAttributeNobodyHasIsWarnedAbout() throws {
        let users = "docs/examples/movies/population.jsonl"
        for bad in ["", "tier,", "tier,,country", "tier,tier"] {
            let r = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users, "--by", bad, "--no-graph"])
            XCTAssertNotEqual(r.status, 0, r.transcript)
            XCTAssertEqual(r.stdout, "", r.transcript)
            assertContains(r.stderr, bad == "tier,tier" ? "names 'tier' twice" : "an attribute name is empty", in: r, "stderr")
        }
        for jobs in ["1", "2"] {
            let r = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users, "--by", "tier,cuntry", "--no-graph", "--jobs", jobs])
            assertExit(r, 0)
            XCTAssertEqual(r.stderrLines.filter { $0.hasPrefix("warning:") },
                           ["warning: --by cuntry: no user has the attribute 'cuntry', so every user's cuntry is null; did you mean 'country'?"], r.transcript)
            assertContains(r.stdout, "tier=gold cuntry=null: 217 users", in: r)
        }
        let named = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users, "--by", "name", "--no-graph"])
        assertContains(named.stderr, "a user's name is its label, not an attribute: leave out --by for one segment per user", in: named, "stderr")
        let fine = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", users, "--by", "tier, country", "--no-graph"])
        assertExit(fine, 0)
        XCTAssertFalse(fine.stderr.contains("warning"), fine.transcript)
        assertContains(fine.stdout, "segments by tier,country", in: fine)
    }

    /// The sample app's population (docs/examples/movies/README.md, "A whole population"): the
    /// figures its README gives, and those the file itself implies, from the real rules.
    func testSamplePopulationMatchesTheSampleREADME() throws {
        let file = "docs/examples/movies/population.jsonl"
        let users = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(users.count, 1000)
        let tiers = Dictionary(grouping: users, by: { $0["tier"] as? String ?? "" }).mapValues(\.count)
        XCTAssertEqual(tiers, ["gold": 217, "free": 494, "guest": 289])
        let goldNotAtRisk = users.filter { $0["tier"] as? String == "gold" && ($0["churn_score"] as? Double ?? 1) < 0.8 }.count
        let r = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", file, "--by", "tier", "--format", "csv"])
        assertExit(r, 0)
        func count(_ tier: String, _ key: String) -> Int? {
            r.stdoutLines.first { $0.hasPrefix("\(tier),") && $0.contains("," + key + ",") }.flatMap { Int($0.split(separator: ",", omittingEmptySubsequences: false)[5]) }
        }
        XCTAssertEqual(count("gold", "premium_tab"), goldNotAtRisk, r.transcript)
        XCTAssertEqual(count("gold", "premium_tab"), 171, "the README's figure")
        XCTAssertEqual(count("free", "premium_tab"), 0)
        XCTAssertEqual(count("guest", "premium_tab"), 0)
        XCTAssertEqual(count("free", "upsell_banner"), 494)
        XCTAssertEqual(count("guest", "upsell_banner"), 289)
        XCTAssertEqual(count("gold", "upsell_banner"), 0)
        XCTAssertEqual(count("gold", "new_recommendations"), 95, "the README's figure")
        XCTAssertEqual(count("free", "new_recommendations"), 235, "the README's figure")
        XCTAssertEqual(count("guest", "new_recommendations"), 0, "guests have no id")
        XCTAssertEqual(count("gold", "home -premium-> premium_lounge"), goldNotAtRisk)
        assertContains(r.stdout, "gold,217,edge,home -premium-> premium_lounge,premium,\(goldNotAtRisk),", in: r)
        let readme = try String(contentsOfFile: "docs/examples/movies/README.md", encoding: .utf8)
        for figure in ["gold 217, free 494, guest 289", "171 of the\n217 gold users (78.8 %", "95 gold users (43.8 %) and 235 free ones (47.6 %)"] {
            assertContains(readme, figure, in: r, "the sample README")
        }
        let eval = try Host.run(["eval", "home", "--project", Host.moviesProject, "--users", file])
        assertExit(eval, 0)
        XCTAssertEqual(eval.stdoutLines.filter { !$0.isEmpty }.count, 1000)
        XCTAssertEqual(eval.stderrLines.last, "eval: 1000 users, none failed")
    }

    func testHTMLIsSelfContainedAndSortable() throws {
        let r = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", "docs/examples/movies/users.json", "--by", "tier", "--format", "html"])
        assertExit(r, 0)
        assertContains(r.stdout, "<!DOCTYPE html>", in: r)
        assertContains(r.stdout, "<table id=\"matrix\">", in: r)
        assertContains(r.stdout, "addEventListener(\"click\"", in: r)
        for remote in ["http://", "https://", "<link", "src="] {
            XCTAssertFalse(r.stdout.contains(remote), "the page loads nothing (\(remote))")
        }
        let json = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", "docs/examples/movies/users.json", "--by", "tier", "--format", "json"])
        let rows = (try json.jsonObject()["segments"] as? [[String: Any]] ?? []).map { ($0["rows"] as? [Any] ?? []).count }.reduce(0, +)
        XCTAssertGreaterThan(rows, 0)
        XCTAssertEqual(r.stdout.components(separatedBy: "<tr>").count - 1, rows + 1, "a header row and one row per segment and key")
    }
    /// Edges are keyed by screen ids with the target's flow in a column of its own: one edge is
    /// one row whether a user's graph shows its screen in one flow (`tracking`) or in two
    /// (`tracking@main`, `tracking@order`). Items without an id are keyed by their collection
    /// and position: two carousels' items with the same action are two rows (issue 37).
    func testEdgesByScreenIdAndIdlessItemsByCollection() throws {
        let dir = try Host.temporaryFolder("matrix-keys")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "loom.json": #"{"entry": "main"}"#,
            "plugins/g/plugin.lua": """
            return { name = "g", version = "1.0.0", api = 1, register = function(host)
              host.rule("gold", function(user) return user.tier == "gold" end)
            end }
            """,
            "flows.json": """
            {"flows": {
              "main": {"start": "home", "steps": {"track": {"push": "tracking"}, "order": {"flow": "order"}}},
              "order": {"presentation": "modal", "start": "cart", "steps": {"track": {"push": "tracking"}, "close": {"finish": true}}}
            }}
            """,
            "screens/home.json": """
            {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "track_button", "action": "track", "meta": {"title": "Track"}},
              {"type": "button", "id": "order_button", "rule": "gold", "action": "order", "meta": {"title": "Order"}},
              {"type": "carousel", "id": "first", "items": [{"title": "A", "action": "movie:1"}, {"title": "B", "action": "movie:2"}]},
              {"type": "carousel", "id": "second", "items": [{"title": "C", "action": "movie:1"}]}
            ]}}
            """,
            "screens/cart.json": #"{"screen": "cart", "root": {"type": "stack", "children": [{"type": "button", "id": "t", "action": "track", "meta": {"title": "T"}}, {"type": "button", "id": "c", "action": "close", "meta": {"title": "C"}}]}}"#,
            "screens/tracking.json": #"{"screen": "tracking", "root": {"type": "stack", "children": []}}"#,
            "users.jsonl": #"{"name": "a", "tier": "gold"}"# + "\n" + #"{"name": "b", "tier": "free"}"# + "\n",
        ], under: dir)
        // gold's graph shows tracking in two flows, free's in one.
        let graph = try Host.run(["graph", "home", "--project", dir.path, "--context", "tier=gold", "--format", "json"])
        assertContains(graph.stdout, "tracking@order", in: graph)
        let r = try Host.run(["matrix", "home", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path,
                              "--format", "csv"])
        assertExit(r, 0)
        let edges = r.stdoutLines.filter { $0.contains(",edge,") }
        XCTAssertEqual(edges.filter { $0.hasPrefix("a,") }.sorted(), [
            "a,1,edge,cart -close-> home,main,1,100.0",
            "a,1,edge,cart -track-> tracking,order,1,100.0",
            "a,1,edge,home -order-> cart,order,1,100.0",
            "a,1,edge,home -track-> tracking,main,1,100.0",
        ], r.transcript)
        XCTAssertTrue(edges.contains("b,1,edge,home -track-> tracking,main,1,100.0"), r.transcript)
        XCTAssertFalse(r.stdout.contains("@"), "no node id of one user's graph: " + r.transcript)
        let items = r.stdoutLines.filter { $0.hasPrefix("a,") && $0.contains(",item,") }
        XCTAssertEqual(items, [
            "a,1,item,first/items[0],,1,100.0",
            "a,1,item,first/items[1],,1,100.0",
            "a,1,item,second/items[0],,1,100.0",
        ], r.transcript)
        let json = try Host.run(["matrix", "home", "--project", dir.path, "--users", dir.appendingPathComponent("users.jsonl").path, "--format", "json"])
        let rows = ((try json.jsonObject()["segments"] as? [[String: Any]])?.first?["rows"] as? [[String: Any]]) ?? []
        XCTAssertEqual(rows.first { $0["id"] as? String == "home -track-> tracking" }?["flow"] as? String, "main", json.transcript)
        XCTAssertTrue(rows.first { $0["id"] as? String == "root" }?["flow"] is NSNull, json.transcript)
    }
}
