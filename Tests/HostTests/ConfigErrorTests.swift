import Foundation
import XCTest

/// Configuration errors (issue 10, item 5): located, fatal for every command, root causes first.
final class ConfigErrorTests: XCTestCase {
    /// A small project: one plugin (a rule and a flow), one screen using the rule, flows.json
    /// entering the flow, an entry.
    func project(_ name: String, loom: String = #"{"name": "news", "entry": "main"}"#, plugin: String? = nil) throws -> URL {
        let dir = try Host.temporaryFolder(name)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "loom.json": loom,
            "plugins/news/plugin.lua": plugin ?? """
                return { name = "news", version = "1.0.0", api = 1, register = function(host)
                  host.rule("is_subscriber", function(user) return user.subscriber == true end)
                  host.flow("paywall", { start = "front", navigate = function(step, nav) return nav.finish() end })
                end }
                """,
            "screens/front.json": #"""
                {"screen": "front", "root": {"type": "stack", "children": [
                  {"type": "label", "id": "article", "meta": {"text": "News"}, "rule": "is_subscriber"},
                  {"type": "button", "id": "more", "meta": {"title": "More"}, "action": "pay"}]}}
                """#,
            "flows.json": #"{"flows": {"main": {"start": "front", "steps": {"pay": {"flow": "paywall"}}}}}"#,
            "users.json": #"{"reader": {"subscriber": true}}"#,
            "scenarios/front.lua": #"scenario("front", function(t) t:open("front", { user = "reader" }):expect_visible("article") end)"#,
        ], under: dir)
        return dir
    }

    let commands: [[String]] = [
        ["run", "front", "--user", "reader"], ["check"], ["graph"], ["navigate", "--steps", "more"], ["test"],
    ]

    func testTheProjectIsValid() throws {
        let dir = try project("valid")
        for c in commands where c[0] != "navigate" {
            let r = try Host.run(c + ["--project", dir.path])
            assertExit(r, 0)
        }
    }

    func testABadEntryIsALocatedErrorForEveryCommand() throws {
        let dir = try project("entry", loom: "{\"name\": \"news\",\n \"entry\": \"mian\"}")
        for c in commands {
            let r = try Host.run(c + ["--project", dir.path])
            assertExit(r, 1)
            let out = c[0] == "test" ? r.stdout + r.stderr : r.stderr
            assertMatches(out, #"loom\.json:2:11: error: entry 'mian' is neither a flow nor a screen; did you mean 'main'\?"#, in: r, "diagnostics of \(c[0])")
        }
    }

    func testAMissingFileNamedInLoomJSONIsAnError() throws {
        let dir = try project("missing", loom: "{\"name\": \"news\",\n \"flows\": \"flowz.json\", \"users\": \"people.json\"}")
        for c in commands where c[0] != "navigate" {
            let r = try Host.run(c + ["--project", dir.path])
            assertExit(r, 1)
            let out = c[0] == "test" ? r.stdout + r.stderr : r.stderr
            assertContains(out, #"loom.json:2:11: error: "flows" names the file 'flowz.json', which does not exist"#, in: r, "diagnostics of \(c[0])")
        }
        let check = try Host.run(["check", "--project", dir.path])
        assertContains(check.stderr, #"error: "users" names the file 'people.json', which does not exist"#, in: check)
    }

    func testTestFailsOnAConfigurationErrorEvenWithoutScenarios() throws {
        let dir = try project("no-scenarios", loom: "{\"name\": \"news\",\n \"entry\": \"mian\"}")
        try FileManager.default.removeItem(at: dir.appendingPathComponent("scenarios"))
        let r = try Host.run(["test", "--project", dir.path], directory: dir)
        assertExit(r, 1)
        assertMatches(r.stderr, #"loom\.json:2:11: error: entry 'mian' is neither a flow nor a screen"#, in: r)
    }

    func testAMissingPluginFolderIsLocatedAtItsName() throws {
        let dir = try project("plugins", loom: "{\"name\": \"news\",\n \"plugins\": [\"plugins\", \"extra\"]}")
        let r = try Host.run(["check", "--project", dir.path])
        assertExit(r, 1)
        assertMatches(r.stderr, #"loom\.json:2:25: error: plugin folder '[^']*extra' does not exist"#, in: r)
    }

    let broken = """
        return { name = "news", version = "1.0.0", api = 1, register = function(host)
          host.rule("is_subscriber", function(user) return user.subscriber == true end)
          host.flow("paywall", { start = "front" }) )
        end }
        """

    func testAPluginSyntaxErrorIsTheFirstDiagnosticOfEveryCommand() throws {
        let dir = try project("syntax", plugin: broken)
        for c in commands {
            let r = try Host.run(c + ["--project", dir.path])
            assertExit(r, 1)
            if c[0] == "test" {
                let lines = r.stdoutLines
                let at = lines.firstIndex { $0.contains("does not load:") }
                XCTAssertNotNil(at, r.transcript)
                if let at, at + 1 < lines.count {
                    XCTAssertTrue(lines[at + 1].contains("plugins/news/plugin.lua:3: error: plugin news"), "test: the first error is not the syntax error\n\(r.transcript)")
                }
                continue
            }
            let first = r.stderrLines.first ?? ""
            XCTAssertTrue(first.contains("plugins/news/plugin.lua:3: error: plugin news"), "\(c[0]): the first diagnostic is not the syntax error\n\(r.transcript)")
        }
        let check = try Host.run(["check", "--project", dir.path])
        let lines = check.stderrLines
        XCTAssertGreaterThanOrEqual(lines.count, 4, check.transcript)
        XCTAssertEqual(lines[1], "note: 2 more errors follow from plugin 'news' failing to load", check.transcript)
        // The consequences, right under the note: the flow flows.json enters, the rule the screen uses.
        XCTAssertTrue(lines[2].contains("enters unknown flow 'paywall'"), check.transcript)
        XCTAssertTrue(lines[3].contains("unknown rule 'is_subscriber'"), check.transcript)
    }

    func testJSONDiagnosticsPutTheRootCauseFirst() throws {
        let dir = try project("json", plugin: broken)
        let r = try Host.run(["check", "--project", dir.path, "--format", "json"])
        assertExit(r, 1)
        let o = try r.jsonObject()
        let list = o["diagnostics"] as? [[String: Any]] ?? []
        XCTAssertTrue((list.first?["message"] as? String ?? "").hasPrefix("plugin news"), r.transcript)
        XCTAssertEqual(list.dropFirst().first?["severity"] as? String, "note", r.transcript)
    }
}
