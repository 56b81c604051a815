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
                if row["kind"] as? String == "edge" { continue }
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
        XCTAssertEqual(csv.stdoutLines.first, "user,segment_users,kind,id,users,percent")
        XCTAssertFalse(csv.stdout.contains(",edge,"), "--no-graph counts no edges")
        assertContains(csv.stdout, "free,1,component,upsell_banner,1,100.0", in: csv)
        assertContains(csv.stdout, "gold,1,component,upsell_banner,0,0.0", in: csv)
        let file = try population(500)
        let one = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", file.path, "--by", "tier,country", "--jobs", "1", "--format", "csv"])
        let two = try Host.run(["matrix", "home", "--project", Host.moviesProject, "--users", file.path, "--by", "tier,country", "--jobs", "2", "--format", "csv"])
        assertExit(one, 0)
        XCTAssertEqual(one.stdout, two.stdout, "the same matrix at any --jobs")
        XCTAssertEqual(one.stdoutLines.first, "tier,country,segment_users,kind,id,users,percent")
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
}
