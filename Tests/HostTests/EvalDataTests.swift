import Foundation
import XCTest

/// `host eval` / `host matrix` records that bring their own data (a JSON line's `"data"`,
/// docs/populations.md "Data per user"), on the fixture project Tests/Fixtures/data-feed.
final class EvalDataTests: XCTestCase {
    static let project = DataTemplateTests.project
    static let other = "\(project)/bad/other-restaurants.json"

    func lines(_ r: HostResult) -> [[String: Any]] {
        r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// A population: the fixture's profiles with and without data of their own.
    func population(_ dir: URL) throws -> URL {
        let other = try String(contentsOf: Host.repoRoot.appendingPathComponent(Self.other), encoding: .utf8)
            .replacingOccurrences(of: "\n", with: " ")
        let text = [
            #"{"name": "gold", "tier": "gold", "country": "NO"}"#,
            #"{"name": "gold", "tier": "gold", "country": "NO", "data": {"restaurants": "# + other + "}}",
            #"{"name": "free", "tier": "free", "country": "SE", "data": {"restaurants": "# + other + "}}",
            #"{"name": "free", "tier": "free", "country": "SE"}"#,
            #"{"name": "gold", "tier": "gold", "country": "NO", "data": {"restaurants": []}}"#,
        ].joined(separator: "\n") + "\n"
        let file = dir.appendingPathComponent("users.jsonl")
        try Data(text.utf8).write(to: file)
        return file
    }

    /// A user's data gives the visible set `host run --data` gives for that user; users without
    /// data keep the declared file's; the same at any --jobs.
    func testDataFieldGivesTheVisibleSetOfHostRunData() throws {
        let dir = try Host.temporaryFolder("eval-data")
        let users = try population(dir)
        let screen = DataTemplateTests.screen("rail_template")
        func run(_ profile: String, _ data: [String]) throws -> [String] {
            let r = try Host.run(["run", screen, "--user", profile, "--format", "json", "--no-graph"] + data)
            XCTAssertEqual(r.status, 0, r.transcript)
            let doc = try XCTUnwrap(try r.jsonObject() as? [String: Any], r.transcript)
            return EvalCommandTests.visibleIDs(doc["tree"])
        }
        let empty = dir.appendingPathComponent("empty.json")
        try Data("[]".utf8).write(to: empty)
        let want = [
            try run("gold", []), try run("gold", ["--data", "restaurants=\(Self.other)"]),
            try run("free", ["--data", "restaurants=\(Self.other)"]), try run("free", []),
            try run("gold", ["--data", "restaurants=\(empty.path)"]),
        ]
        XCTAssertNotEqual(want[0], want[1], "the fixture's data must change what is seen")
        XCTAssertTrue(want[1].contains("restaurant-7"), "\(want[1])")
        var outputs: [String] = []
        for jobs in ["1", "2"] {
            let r = try Host.run(["eval", "rail_template", "--project", Self.project, "--users", users.path, "--jobs", jobs])
            XCTAssertEqual(r.status, 0, r.transcript)
            let got = lines(r).map { $0["visible"] as? [String] ?? [] }
            XCTAssertEqual(got, want, r.transcript)
            outputs.append(r.stdout)
        }
        XCTAssertEqual(outputs[0], outputs[1])
        // Hashes too: the fed users' trees are the ones `host run --data` resolves.
        let hashes = try Host.run(["eval", "rail_template", "--project", Self.project, "--users", users.path, "--select", "hash", "--format", "csv"])
        XCTAssertEqual(hashes.status, 0, hashes.transcript)
        let rows = hashes.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").last.map(String.init) ?? "" }
        XCTAssertEqual(rows.count, 5, hashes.transcript)
        XCTAssertNotEqual(rows[0], rows[1], hashes.transcript)
        XCTAssertNotEqual(rows[0], rows[4], hashes.transcript)
    }

    /// `host matrix` counts a fed user by what their own data shows.
    func testMatrixCountsWhatEachUsersDataShows() throws {
        let dir = try Host.temporaryFolder("matrix-data")
        let users = try population(dir)
        let r = try Host.run(["matrix", "rail_template", "--project", Self.project, "--users", users.path, "--by", "tier", "--format", "csv", "--no-graph"])
        XCTAssertEqual(r.status, 0, r.transcript)
        var seen: [String: String] = [:]
        for row in r.stdout.split(separator: "\n").dropFirst() {
            let f = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if f.count == 7 { seen["\(f[0]) \(f[3])"] = f[5] }
        }
        // restaurant-7 is only in the fed users' data (open, promoted: gold sees it, free does
        // not); restaurant-1 only in the declared file, seen by the users without data.
        XCTAssertEqual(seen["gold restaurant-7"], "1", r.transcript)
        XCTAssertEqual(seen["free restaurant-7"], "0", r.transcript)
        XCTAssertEqual(seen["gold restaurant-1"], "1", r.transcript)
        XCTAssertEqual(seen["free restaurant-1"], "1", r.transcript)
        XCTAssertEqual(seen["gold rail"], "3", r.transcript)
    }

    /// Bad data in a record: that user fails with one located error (in the population file, at
    /// the value), the others are still evaluated.
    func testBadDataIsALocatedErrorForThatUser() throws {
        let dir = try Host.temporaryFolder("eval-bad-data")
        let file = dir.appendingPathComponent("users.jsonl")
        let text = [
            #"{"name": "a", "tier": "gold"}"#,
            #"{"name": "b", "tier": "gold", "data": {"restaurants": [{"id": "x", "name": "X", "eta": 1, "rating": 1, "open": true}]}}"#,
            #"{"name": "c", "tier": "gold", "data": {"restaurant": []}}"#,
            #"{"name": "d", "tier": "gold", "data": {"rest-aurants": []}}"#,
            #"{"name": "e", "tier": "gold", "data": {"restaurants": {"not": "a list"}}}"#,
        ].joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: file)
        let r = try Host.run(["eval", "rail_template", "--project", Self.project, "--users", file.path, "--jobs", "1"])
        XCTAssertEqual(r.status, 1, r.transcript)
        XCTAssertEqual(lines(r).map { $0["user"] as? String }, ["a"], r.transcript)
        let errors = r.stderrLines.filter { $0.contains(": error: ") }
        XCTAssertEqual(errors.count, 4, r.transcript)
        XCTAssertTrue(errors.contains { $0.hasPrefix("\(file.path):2:") && $0.contains("restaurants[0].id: expected integer") }, r.transcript)
        XCTAssertTrue(errors.contains { $0.hasPrefix("\(file.path):3:") && $0.contains("data 'restaurant' was given, but no screen of this run declares a data source of that name; did you mean 'restaurants'?") }, r.transcript)
        XCTAssertTrue(errors.contains { $0.hasPrefix("\(file.path):4:") && $0.contains("\"data\" maps data source names") }, r.transcript)
        XCTAssertTrue(errors.contains { $0.hasPrefix("\(file.path):5:") && $0.contains("restaurants") }, r.transcript)
        XCTAssertTrue(r.stderr.contains("eval: 5 users, 4 failed"), r.transcript)
    }
}
