import Foundation
import XCTest

/// `host diff`: changes per profile, classified as Spots' differ does; exit 0 unchanged, 1 changed, 2 errors.
final class DiffCommandTests: XCTestCase {
    /// A copy of the sample app to edit.
    private func sampleCopy() throws -> URL {
        let dir = try Host.temporaryFolder("diff")
        let dest = dir.appendingPathComponent("movies")
        try FileManager.default.copyItem(at: Host.repoRoot.appendingPathComponent(Host.moviesProject), to: dest)
        return dest
    }

    private func editHome(_ project: URL, _ edit: (inout [String: Any]) -> Void, to name: String = "home.json") throws {
        let src = project.appendingPathComponent("screens/home.json")
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: src)) as! [String: Any]
        edit(&doc)
        let data = try JSONSerialization.data(withJSONObject: doc, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: project.appendingPathComponent("screens/" + name))
    }

    /// root → tabs[0] (watched_tab) → watched_stack → watched (a list of movies).
    private func watchedList(_ doc: inout [String: Any], _ edit: (inout [String: Any]) -> Void) {
        var root = doc["root"] as! [String: Any]
        var tabs = root["children"] as! [[String: Any]]
        var stack = (tabs[0]["children"] as! [[String: Any]])[0]
        var lists = stack["children"] as! [[String: Any]]
        edit(&lists[0])
        stack["children"] = lists
        tabs[0]["children"] = [stack]
        root["children"] = tabs
        doc["root"] = root
    }

    func testIdenticalScreensExitZeroForEveryProfile() throws {
        let r = try Host.run(["diff", Host.homeScreen, Host.homeScreen, "--users", "all"])
        assertExit(r, 0)
        for p in ["gold", "free", "guest", "gold_at_risk"] { assertContains(r.stdout, "\(p): no changes", in: r) }
        assertContains(r.stdout, "profile", in: r, "impact table")
    }

    func testAppendTwoUpdateOneIsTwoInsertedAndOneSoftForEveryProfile() throws {
        let p = try sampleCopy()
        // The watched list comes from data/watched.json (through the movie_item template): the
        // new screen reads a new data file, one movie retitled and two appended.
        let watched = p.appendingPathComponent("data/watched.json")
        var movies = try JSONSerialization.jsonObject(with: Data(contentsOf: watched)) as! [[String: Any]]
        movies[1]["title"] = "Heat (director's cut)"
        movies.append(["id": 11645, "title": "Ran", "year": 1985, "available": true, "new_release": false])
        movies.append(["id": 3782, "title": "Ikiru", "year": 1952, "available": true, "new_release": false])
        try JSONSerialization.data(withJSONObject: movies, options: [.prettyPrinted, .sortedKeys])
            .write(to: p.appendingPathComponent("data/watched_new.json"))
        try editHome(p, { doc in
            var data = doc["data"] as! [String: Any]
            data["watched"] = ["file": "data/watched_new.json", "schema": "data/movies.schema.json"]
            doc["data"] = data
        }, to: "home_new.json")
        let old = p.appendingPathComponent("screens/home.json").path, new = p.appendingPathComponent("screens/home_new.json").path
        let r = try Host.run(["diff", old, new, "--users", "all", "--format", "json"])
        assertExit(r, 1)
        let users = try XCTUnwrap(try r.jsonObject()["users"] as? [String: Any])
        XCTAssertEqual(Set(users.keys), ["gold", "free", "guest", "gold_at_risk"])
        for (name, value) in users {
            let changes = try XCTUnwrap((value as? [String: Any])?["changes"] as? [[String: Any]], name)
            let items = changes.filter { ($0["node"] as? String) == "item" }
            XCTAssertEqual(items.map { $0["change"] as? String }, ["soft", "inserted", "inserted"], "\(name)\n\(r.transcript)")
            XCTAssertEqual(items.first?["fields"] as? [String], ["props.title"], name)
            // Paths are positions in what this user sees (a free user sees fewer movies).
            if name == "gold" {
                XCTAssertEqual(items.map { $0["path"] as? String }, [
                    "root/children[0]/children[0]/children[0]/items[1]",
                    "root/children[0]/children[0]/children[0]/items[3]",
                    "root/children[0]/children[0]/children[0]/items[4]",
                ], name)
            }
            // The list's item count (a prop) follows from the items: not an update of the list.
            XCTAssertFalse(changes.contains { ($0["id"] as? String) == "watched" }, "\(name)\n\(r.transcript)")
            let graph = try XCTUnwrap((value as? [String: Any])?["graph"] as? [String: Any])
            XCTAssertEqual(graph["gained"] as? [String], [], name)
            XCTAssertEqual(graph["lost"] as? [String], [], name)
        }
    }

    func testKindChangeIsHardAndReorderIsMoved() throws {
        let p = try sampleCopy()
        try editHome(p, { doc in
            var root = doc["root"] as! [String: Any]
            var tabs = root["children"] as! [[String: Any]]
            tabs.swapAt(1, 3)   // wishlist_tab and settings_tab trade places
            root["children"] = tabs
            doc["root"] = root
            watchedList(&doc) { list in list["type"] = "carousel" }
        }, to: "home_new.json")
        let r = try Host.run(["diff", p.appendingPathComponent("screens/home.json").path,
                              p.appendingPathComponent("screens/home_new.json").path, "--user", "free", "--format", "json"])
        assertExit(r, 1)
        let users = try XCTUnwrap(try r.jsonObject()["users"] as? [String: Any])
        let changes = try XCTUnwrap((users["free"] as? [String: Any])?["changes"] as? [[String: Any]])
        let byID = Dictionary(grouping: changes, by: { $0["id"] as? String ?? "-" })
        XCTAssertEqual(byID["watched"]?.map { $0["change"] as? String }, ["hard"], r.transcript)
        let moved = changes.filter { ($0["change"] as? String) == "moved" }
        XCTAssertEqual(moved.count, 1, r.transcript)
        XCTAssertTrue(["wishlist_tab", "settings_tab"].contains(moved.first?["id"] as? String ?? ""), r.transcript)
    }

    func testRevisionAgainstWorkingTreeNamesTheRuleThatNowHides() throws {
        guard Host.which("git") != nil else { throw XCTSkip("git is not installed") }
        let p = try sampleCopy()
        let git = { (args: [String]) throws -> HostResult in
            try Host.runExecutable(Host.which("git")!, ["-C", p.path] + args,
                                   environment: ["GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"])
        }
        XCTAssertEqual(try git(["init", "-q", "."]).status, 0)
        XCTAssertEqual(try git(["add", "-A"]).status, 0)
        XCTAssertEqual(try git(["commit", "-qm", "v1"]).status, 0)
        // The plugin now treats nobody as a gold member.
        let plugin = p.appendingPathComponent("plugins/movies/plugin.lua")
        let text = try String(contentsOf: plugin, encoding: .utf8)
        XCTAssertTrue(text.contains("user.tier == \"gold\""), "the sample plugin changed; update this test")
        try text.replacingOccurrences(of: "user.tier == \"gold\"", with: "user.tier == \"platinum\"").write(to: plugin, atomically: true, encoding: .utf8)
        let r = try Host.run(["diff", p.appendingPathComponent("screens/home.json").path, "--rev", "HEAD", "--users", "gold,free"])
        assertExit(r, 1)
        assertContains(r.stdout, "deleted  component 'premium_tab'", in: r)
        assertContains(r.stdout, "now hidden: rule AND(is_gold_member, NOT(is_churn_risk)) is false", in: r)
        assertContains(r.stdout, "graph - home --premium--> premium_lounge (flow)", in: r)
        assertContains(r.stdout, "free: no changes", in: r)
        // The revision is read, not checked out: the working tree is untouched.
        XCTAssertTrue(try String(contentsOf: plugin, encoding: .utf8).contains("platinum"))
        let bad = try Host.run(["diff", p.appendingPathComponent("screens/home.json").path, "--rev", "no-such-rev"])
        assertExit(bad, 2)
        assertContains(bad.stderr, "cannot find revision 'no-such-rev'", in: bad)
    }

    func testOldPluginsAgainstTheProjects() throws {
        let p = try sampleCopy()
        let oldPlugins = try Host.temporaryFolder("diff-plugins")
        try FileManager.default.copyItem(at: p.appendingPathComponent("plugins/movies"), to: oldPlugins.appendingPathComponent("movies"))
        let r0 = try Host.run(["diff", p.appendingPathComponent("screens/home.json").path, "--plugins-old", oldPlugins.path, "--users", "all"])
        assertExit(r0, 0)
        let plugin = oldPlugins.appendingPathComponent("movies/plugin.lua")
        let text = try String(contentsOf: plugin, encoding: .utf8)
        try text.replacingOccurrences(of: "user.tier == \"gold\"", with: "user.tier == \"free\"").write(to: plugin, atomically: true, encoding: .utf8)
        let r = try Host.run(["diff", p.appendingPathComponent("screens/home.json").path, "--plugins-old", oldPlugins.path, "--users", "all", "--format", "json"])
        assertExit(r, 1)
        let users = try XCTUnwrap(try r.jsonObject()["users"] as? [String: Any])
        let gold = try XCTUnwrap((users["gold"] as? [String: Any])?["changes"] as? [[String: Any]])
        XCTAssertTrue(gold.contains { ($0["id"] as? String) == "premium_tab" && ($0["change"] as? String) == "inserted" }, r.transcript)
    }

    func testErrorsExitTwoWithLocations() throws {
        let p = try sampleCopy()
        try Data("{\"screen\": \"home\", \"root\": {\"type\": }".utf8).write(to: p.appendingPathComponent("screens/broken.json"))
        let r = try Host.run(["diff", p.appendingPathComponent("screens/home.json").path, p.appendingPathComponent("screens/broken.json").path])
        assertExit(r, 2)
        assertContains(r.stderr, "broken.json:1:", in: r)
        let usage = try Host.run(["diff", Host.homeScreen])
        assertExit(usage, 64)
        assertContains(usage.stderr, "--rev", in: usage)
        let both = try Host.run(["diff", Host.homeScreen, Host.homeScreen, "--user", "gold", "--users", "all"])
        assertExit(both, 64)
        let unknown = try Host.run(["diff", Host.homeScreen, Host.homeScreen, "--users", "gold,platinum"])
        assertExit(unknown, 2)
        assertContains(unknown.stderr, "platinum", in: unknown)
    }
}
