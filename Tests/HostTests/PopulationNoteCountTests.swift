import Foundation
import XCTest

/// A problem a population run reports once says how many *users* met it. A population diff
/// resolves each user twice (old and new) and a calendar sweep once per instant: before
/// 2026-11-28 both counted resolutions, so 2 users with an unknown client read "4 users" in a
/// diff and "62 users" in a 31-day sweep (found trying issue 41 on a project of one's own).
/// The counts here are the users of the population file written below that have the problem.
final class PopulationNoteCountTests: XCTestCase {
    static func project() throws -> URL {
        let dir = try Host.temporaryFolder("note-counts")
        let home = """
            {"screen": "home", "root": {"type": "vstack", "id": "root", "children": [
              {"type": "label", "id": "title", "meta": {"text": "Shop"}},
              {"type": "label", "id": "sale", "meta": {"text": "Sale"},
               "rule": {"between": {"from": "2027-01-10T00:00:00Z", "to": "2027-01-20T00:00:00Z"}}},
              {"type": "grid", "id": "tiles", "fallback": "drop", "items": [{"id": "t1", "title": "T"}]}
            ]}}
            """
        try Host.write([
            "loom.json": #"{"name": "notes", "entry": "main"}"#,
            "users.json": #"{"a": {"id": "1", "tier": "gold", "app_version": "6.0.0"}}"#,
            "flows.json": #"{"flows": {"main": {"presentation": "stack", "start": "home", "steps": {}}}}"#,
            "clients.json": #"{"version_attribute": "app_version", "clients": [{"versions": ">=5.0.0", "components": ["vstack", "label"]}]}"#,
            "screens/home.json": home,
            // The new version: the title's text changed, nothing else.
            "v2/home.json": home.replacingOccurrences(of: #""text": "Shop""#, with: #""text": "Shop!""#),
            // 5 users: 2 with a version that is no version (unknown client), the other 3 with a
            // version in the one range; every user gets the grid dropped.
            "pop.jsonl": """
                {"name": "u1", "id": "1", "tier": "gold", "app_version": "6.1.0"}
                {"name": "u2", "id": "2", "tier": "free", "app_version": "garbage"}
                {"name": "u3", "id": "3", "tier": "free", "app_version": "5.0.0"}
                {"name": "u4", "id": "4", "tier": "gold", "app_version": "nope"}
                {"name": "u5", "id": "5", "tier": "free", "app_version": "7.0.0"}

                """,
        ], under: dir)
        return dir
    }

    func testPopulationDiffCountsEachUserOnceNotEachSide() throws {
        let dir = try Self.project()
        let r = try Host.run(["diff", dir.appendingPathComponent("screens/home.json").path,
                              dir.appendingPathComponent("v2/home.json").path,
                              "--users", dir.appendingPathComponent("pop.jsonl").path, "--format", "json", "--jobs", "2"])
        assertExit(r, 1)
        XCTAssertEqual(try r.jsonObject()["users"] as? Int, 5, r.transcript)
        assertContains(r.stderr, "'garbage' is not a version; only the 2 component types every client of clients.json renders are shown (1 user, first at line 2)", in: r, "stderr")
        assertContains(r.stderr, "'nope' is not a version; only the 2 component types every client of clients.json renders are shown (1 user, first at line 4)", in: r, "stderr")
        assertContains(r.stderr, #"cannot render 'grid' (tiles): it is dropped ("fallback": "drop") (3 users, first at line 1)"#, in: r, "stderr")
        assertContains(r.stderr, #"an unknown client cannot render 'grid' (tiles): it is dropped ("fallback": "drop") (2 users, first at line 2)"#, in: r, "stderr")
    }

    func testCalendarSweepCountsEachUserOnceNotEachInstant() throws {
        let dir = try Self.project()
        let r = try Host.run(["diff", dir.appendingPathComponent("screens/home.json").path,
                              "--now", "2027-01-01..2027-01-31", "--step", "1d",
                              "--users", dir.appendingPathComponent("pop.jsonl").path, "--by", "tier", "--format", "json"])
        assertExit(r, 1)
        assertContains(r.stderr, "'garbage' is not a version; only the 2 component types every client of clients.json renders are shown (1 user, first at line 2)", in: r, "stderr")
        assertContains(r.stderr, #"cannot render 'grid' (tiles): it is dropped ("fallback": "drop") (3 users, first at line 1)"#, in: r, "stderr")
        assertContains(r.stderr, #"an unknown client cannot render 'grid' (tiles): it is dropped ("fallback": "drop") (2 users, first at line 2)"#, in: r, "stderr")
        // The days themselves: the sale appears on the 10th and goes on the 20th, for all 5.
        let changes = try r.jsonObject()["changes"] as? [[String: Any]] ?? []
        let days = Set(changes.compactMap { ($0["at"] as? String).map { String($0.prefix(10)) } })
        XCTAssertEqual(days, ["2027-01-10", "2027-01-20"], r.transcript)
        XCTAssertEqual(changes.filter { $0["id"] as? String == "sale" }.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }, 10, r.transcript)
    }
}
