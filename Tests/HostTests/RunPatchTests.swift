import Foundation
import XCTest

/// `host run --patch`: Spots' mutations applied before resolving, changes reported, bad patches located and fatal.
final class RunPatchTests: XCTestCase {
    private func patch(_ text: String) throws -> String {
        let dir = try Host.temporaryFolder("patch")
        let url = dir.appendingPathComponent("patch.json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func testAppendTwoAndUpdateOneIsTwoInsertedAndOneSoft() throws {
        let p = try patch("""
            [{"component": "watched", "append": [{"title": "Ran", "subtitle": "1985", "kind": "movie", "action": "movie:11645"},
                                                {"title": "Ikiru", "subtitle": "1952", "kind": "movie", "action": "movie:3782"}]},
             {"component": "watched", "update": {"index": 0, "item": {"id": "movie-42", "title": "Alien (1979)", "subtitle": "1979", "kind": "movie", "action": "movie:42"}}}]
            """)
        let r = try Host.run(["run", Host.homeScreen, "--user", "gold", "--patch", p, "--format", "json", "--no-graph"])
        assertExit(r, 0)
        let json = try r.jsonObject()
        let changes = try XCTUnwrap(json["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { $0["change"] as? String }, ["soft", "inserted", "inserted"], r.transcript)
        XCTAssertEqual(changes.first?["fields"] as? [String], ["props.title"])
        // The patched tree is what is printed.
        let text = String(data: try JSONSerialization.data(withJSONObject: json["tree"] as Any), encoding: .utf8) ?? ""
        XCTAssertTrue(text.contains("Ikiru") && text.contains("Alien (1979)"), r.transcript)
        let t = try Host.run(["run", Host.homeScreen, "--user", "gold", "--patch", p, "--no-graph"])
        assertContains(t.stdout, "changes: 3", in: t)
        assertContains(t.stdout, "inserted item movie (root/children[0]/children[0]/children[0]/items[4])", in: t)
    }

    func testPatchesApplyInOrderAndDeleteByID() throws {
        let p1 = try patch(#"[{"component": "watched", "prepend": [{"id": "new", "title": "New", "kind": "movie", "action": "movie:1"}]}]"#)
        let p2 = try patch(#"[{"component": "watched", "delete": {"id": "new"}}]"#)
        let r = try Host.run(["run", Host.homeScreen, "--user", "gold", "--patch", p1, "--patch", p2, "--format", "json", "--no-graph"])
        assertExit(r, 0)
        XCTAssertEqual((try r.jsonObject()["changes"] as? [Any])?.count, 0, r.transcript)
    }

    func testOutOfRangeIsALocatedErrorAndNothingIsPrinted() throws {
        let p = try patch("""
            [{"component": "watched", "append": [{"title": "Ran", "kind": "movie"}]},
             {"component": "watched", "delete": {"index": 9}}]
            """)
        let r = try Host.run(["run", Host.homeScreen, "--user", "gold", "--patch", p])
        assertExit(r, 1)
        assertContains(r.stderr, "patch.json:2:47: error: delete index 9 is out of range: 'watched' has 4 items here (0…3)", in: r)
        XCTAssertEqual(r.stdout, "", "a failed patch changes nothing and prints no tree\n\(r.transcript)")
    }

    func testUnknownComponentAndBadItemAreReportedTogether() throws {
        let p = try patch("""
            [{"component": "wached", "append": []},
             {"component": "watched", "append": [{"title": 42, "kind": "movie"}]}]
            """)
        let r = try Host.run(["run", Host.homeScreen, "--user", "gold", "--patch", p])
        assertExit(r, 1)
        assertContains(r.stderr, "patch.json:1:16: error: no component 'wached'", in: r)
        assertContains(r.stderr, "did you mean 'watched'", in: r)
        assertContains(r.stderr, "patch.json:2:48: error: item 'title' must be a string", in: r)
    }

    func testMalformedPatchFile() throws {
        let p = try patch(#"{"component": "watched"}"#)
        let r = try Host.run(["run", Host.homeScreen, "--user", "gold", "--patch", p])
        assertExit(r, 1)
        assertContains(r.stderr, "patch.json:1:1: error: a patch is a list of operations", in: r)
        let missing = try Host.run(["run", Host.homeScreen, "--patch", "/nonexistent/patch.json"])
        assertExit(missing, 1)
        assertContains(missing.stderr, "/nonexistent/patch.json", in: missing)
    }
}
