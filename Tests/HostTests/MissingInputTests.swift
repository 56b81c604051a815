import Foundation
import XCTest

/// Missing inputs (issue 10, item 4): traces name absent attributes, `host run` warns about
/// attributes the chosen user lacks and notes an anonymous user.
final class MissingInputTests: XCTestCase {
    func project(_ name: String) throws -> URL {
        let dir = try Host.temporaryFolder(name)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "loom.json": #"{"name": "sale"}"#,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "children": [
                  {"type": "label", "id": "sale", "meta": {"text": "Sale"},
                   "rule": {"between": {"from": "2026-11-27T00:00:00Z", "to": "2026-11-30T00:00:00Z"}}},
                  {"type": "label", "id": "sale2", "meta": {"text": "Sale"}, "rule": {"between": {"to": "2026-11-30T00:00:00Z"}}},
                  {"type": "label", "id": "staff", "meta": {"text": "Staff"}, "rule": {"equals": {"role": "staff"}}}]}}
                """,
            "users.json": #"{"plain": {"tier": "free"}, "staffer": {"role": "staff", "now": "2026-11-28T00:00:00Z"}}"#,
        ], under: dir)
        return dir
    }

    func testExplainSaysNowIsMissing() throws {
        let dir = try project("explain")
        let r = try Host.run(["run", "home", "--project", dir.path, "--user", "plain", "--explain", "--no-graph"])
        assertExit(r, 0)
        assertContains(r.stdout, #"between{"from":"2026-11-27T00:00:00Z","to":"2026-11-30T00:00:00Z"} (now is missing) = false"#, in: r)
        assertContains(r.stdout, #"equals{"role":"staff"} (role is missing) = false"#, in: r)
        let given = try Host.run(["run", "home", "--project", dir.path, "--user", "plain", "--now", "2026-11-28T10:00:00Z", "--explain", "--no-graph"])
        assertLacks(given.stdout, "now is missing", in: given)
    }

    func testRunWarnsOncePerMissingAttributeAtTheFirstRule() throws {
        let dir = try project("warn")
        let r = try Host.run(["run", "home", "--project", dir.path, "--user", "plain", "--no-graph"])
        assertExit(r, 0)
        let now = r.stderrLines.filter { $0.contains("attribute 'now'") }
        XCTAssertEqual(now.count, 1, r.transcript)
        XCTAssertTrue(now.first?.contains("screens/home.json:3:") ?? false, r.transcript)
        XCTAssertTrue(now.first?.contains("warning: rule 'between' reads attribute 'now', which user 'plain' lacks") ?? false, r.transcript)
        assertContains(r.stderr, "rule 'equals' reads attribute 'role'", in: r)
        let full = try Host.run(["run", "home", "--project", dir.path, "--user", "staffer", "--no-graph"])
        assertExit(full, 0)
        XCTAssertEqual(full.stderr, "", full.transcript)
    }

    func testNoUserIsNoted() throws {
        let dir = try project("anonymous")
        let r = try Host.run(["run", "home", "--project", dir.path, "--no-graph"])
        assertExit(r, 0)
        XCTAssertEqual(r.stderrLines.first, "note: resolved for an anonymous user (no --user)", r.transcript)
        let j = try Host.run(["run", "home", "--project", dir.path, "--no-graph", "--format", "json"])
        let list = try j.jsonObject()["diagnostics"] as? [[String: Any]] ?? []
        XCTAssertTrue(list.contains { $0["severity"] as? String == "note" && ($0["message"] as? String ?? "").contains("anonymous user") }, j.transcript)
    }
}
