import Foundation
import XCTest

/// Located diagnostics (`host run` / `host check` on a broken project), `host plugins` on the standard
/// plugins and on the hostile corpus, and the published Matrioska files.
final class CheckAndPluginsTests: XCTestCase {
    // MARK: a project with three problems in one screen

    static let brokenScreen = """
        {
          "screen": "home",
          "root": {
            "type": "stack", "id": "root",
            "children": [
              {"type": "label", "id": "welcome", "meta": {"text": "Hello"}},
              {"type": "stack", "id": "secret_lounge", "rule": "is_gold_membr",
               "children": [{"type": "label", "id": "lounge_text", "meta": {"text": "Gold only"}}]},
              {"type": "labell", "id": "typo_type", "meta": {"text": "typo"}},
              {"type": "label", "id": "welcome", "meta": {"text": "again"}}
            ]
          }
        }

        """

    static let premiumPlugin = """
        return {
          name = "premium", version = "1.0.0", api = 1,
          register = function(host)
            host.rule("is_gold_member", function(user) return user.tier == "gold" end)
          end,
        }

        """

    /// A temporary project: loom.json, users.json, plugins/premium, screens/home.json (broken).
    func makeBrokenProject() throws -> URL {
        let root = try Host.temporaryFolder("typo")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "typo"}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}, "free": {"id": "2", "tier": "free"}}"#,
            "plugins/premium/plugin.lua": Self.premiumPlugin,
            "screens/home.json": Self.brokenScreen,
        ], under: root)
        return root
    }

    /// 1-based line and column of the first occurrence of `needle` in the broken screen.
    func location(of needle: String) -> (line: Int, column: Int) {
        for (i, l) in Self.brokenScreen.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let r = l.range(of: needle) { return (i + 1, l.distance(from: l.startIndex, to: r.lowerBound) + 1) }
        }
        XCTFail("\(needle) not in the fixture")
        return (0, 0)
    }

    func testRunReportsAnUnknownRuleWithItsLocationAndFailsClosed() throws {
        let root = try makeBrokenProject()
        let screen = root.appendingPathComponent("screens/home.json").path
        let r = try Host.run(["run", screen, "--user", "gold"])
        assertExit(r, 1)
        let rule = lines(of: r.stderr, matching: #"^\S*screens/home\.json:\d+:\d+: error: unknown rule 'is_gold_membr'.*did you mean 'is_gold_member'\?"#)
        XCTAssertEqual(rule.count, 1, "one located unknown-rule error with a did-you-mean\n\(r.transcript)")
        if let line = rule.first {
            let parts = line.components(separatedBy: ": error:")[0].split(separator: ":")
            let (l, c) = (Int(parts[parts.count - 2]), Int(parts[parts.count - 1]))
            let key = location(of: #""rule""#), value = location(of: #""is_gold_membr""#)
            XCTAssertEqual(l, value.line, "wrong line: \(line)")
            XCTAssertTrue(c == value.column || c == key.column, "column \(String(describing: c)) is neither the rule key (\(key.column)) nor its value (\(value.column))")
            XCTAssertTrue(line.hasPrefix(screen) || screen.hasSuffix(String(line.prefix { $0 != ":" })), "the path is not the screen's: \(line)")
        }
        // Fail closed: the guarded component and its child are not shown.
        assertLacks(r.stdout, "secret_lounge", in: r, "stdout")
        assertLacks(r.stdout, "lounge_text", in: r, "stdout")
        assertLacks(r.stdout, "Gold only", in: r, "stdout")
        assertLacks(r.stdout, "typo_type", in: r, "stdout")

        // The JSON output carries the same diagnostics and no guarded component either.
        let j = try Host.run(["run", screen, "--user", "gold", "--format", "json"])
        assertExit(j, 1)
        let o = try j.jsonObject()
        XCTAssertFalse(TreeJSON.ids(o["tree"]).contains("secret_lounge"))
        let messages = (o["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        XCTAssertTrue(messages.contains { $0.contains("is_gold_membr") }, "\(messages)")
        let first = (o["diagnostics"] as? [[String: Any]])?.first { ($0["message"] as? String)?.contains("is_gold_membr") == true }
        XCTAssertEqual(first?["severity"] as? String, "error")
        XCTAssertEqual(first?["line"] as? Int, location(of: #""is_gold_membr""#).line)
    }

    func testCheckReportsEveryProblemAtOnce() throws {
        let root = try makeBrokenProject()
        for args in [["check", "--project", root.path], ["check", root.appendingPathComponent("screens/home.json").path]] {
            let r = try Host.run(args)
            assertExit(r, 1)
            let errors = lines(of: r.stderr, matching: #"^\S*screens/home\.json:\d+:\d+: error: "#)
            XCTAssertEqual(errors.count, 3, "three located errors\n\(r.transcript)")
            assertMatches(r.stderr, "home\\.json:\(location(of: #""is_gold_membr""#).line):\\d+: error: unknown rule 'is_gold_membr'.*did you mean 'is_gold_member'", in: r, "stderr")
            assertMatches(r.stderr, "home\\.json:\(location(of: #""labell""#).line):\\d+: error: .*'labell'.*did you mean 'label'", in: r, "stderr")
            assertMatches(r.stderr, "home\\.json:\(location(of: #""text": "again""#).line):\\d+: error: .*duplicate id 'welcome'", in: r, "stderr")
            assertContains(r.stdout, "3 errors", in: r, "the summary")
        }
        // The same from inside the project, without --project.
        let inside = try Host.run(["check"], directory: root)
        assertExit(inside, 1)
        XCTAssertEqual(lines(of: inside.stderr, matching: #"^screens/home\.json:\d+:\d+: error: "#).count, 3, inside.transcript)

        let j = try Host.run(["check", "--project", root.path, "--format", "json"])
        assertExit(j, 1)
        let o = try j.jsonObject()
        XCTAssertEqual(o["errors"] as? Int, 3, j.transcript)
        XCTAssertEqual((o["diagnostics"] as? [Any])?.count, 3, j.transcript)
    }

    func testCheckPassesOnTheSampleApp() throws {
        let r = try Host.run(["check", "--project", Host.moviesProject])
        assertExit(r, 0)
        assertLacks(r.stderr, "error:", in: r, "stderr")
        // One layout warning is left on purpose: the upsell banner's title is cut on an iPhone SE
        // (scenarios/layout.lua shows it); every other layout finding of the sample was fixed
        // (issue 39: 51 warnings before the layout defaults).
        assertMatches(r.stdout, #"^checked 7 screens × 5 profiles × 3 devices: 0 errors, 1 warning$"#, in: r, "stdout")
        assertContains(r.stderr, "warning: truncated: the text of #upsell_banner", in: r, "stderr")
        for kind in ["ambiguous", "unsatisfiable", "outside_screen", "outside_safe_area", "small_tap_target"] {
            assertLacks(r.stderr, kind, in: r, "stderr")
        }
    }

    /// loom.json keys are all optional: without "plugins", the default `plugins` folder may be absent
    /// (as it may when there is no loom.json at all).
    func testManifestWithoutPluginsKeyNeedsNoPluginsFolder() throws {
        let root = try Host.temporaryFolder("noplugins")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "minimal"}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}}"#,
            "screens/home.json": #"{"screen": "home", "root": {"type": "label", "id": "hello", "meta": {"text": "Hi"}}}"#,
        ], under: root)
        let r = try Host.run(["run", root.appendingPathComponent("screens/home.json").path, "--user", "gold"])
        assertExit(r, 0)
        assertLacks(r.stderr, "error:", in: r, "stderr")
        assertContains(r.stdout, "hello", in: r, "stdout")
        let c = try Host.run(["check", "--project", root.path])
        assertExit(c, 0)
        // A folder that loom.json names must exist, though.
        try Host.write(["loom.json": #"{"plugins": ["team_plugins"]}"#], under: root)
        let named = try Host.run(["check", "--project", root.path])
        assertExit(named, 1)
        assertContains(named.stderr, "team_plugins", in: named, "stderr")
    }

    // MARK: host plugins

    /// The rows of `host plugins`' table: kind, name, plugin@version, location.
    func tableRows(_ stdout: String) -> [[String]] {
        stdout.split(separator: "\n").map { line in
            line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }.filter { $0.count == 4 && $0[0] != "KIND" }
    }

    /// The row registering `name` (the name column may add "(alias …)").
    func row(_ rows: [[String]], _ name: String) -> [String]? {
        rows.first { $0[1] == name || $0[1].hasPrefix(name + " (") }
    }

    /// `location` is `path:N` and line N of that file registers `name`.
    func assertRegisteredAt(_ location: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let parts = location.split(separator: ":")
        guard parts.count == 2, let n = Int(parts[1]), n > 0 else {
            return XCTFail("not path:line: \(location)", file: file, line: line)
        }
        let url = Host.repoRoot.appendingPathComponent(String(parts[0]))
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            return XCTFail("cannot read \(url.path)", file: file, line: line)
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(n <= lines.count && lines[n - 1].contains("\"\(name)\""),
                      "\(location) does not register \(name): \(n <= lines.count ? String(lines[n - 1]) : "past the end")", file: file, line: line)
    }

    func testPluginsListsTheStandardRegistrationsWithLocations() throws {
        let r = try Host.run(["plugins"])
        assertExit(r, 0)
        let rows = tableRows(r.stdout)
        for (name, plugin) in [("label", "basic"), ("tab_bar", "matrioska"), ("rollout", "targeting"),
                               ("stack", "matrioska"), ("list", "spots"), ("navigation", "matrioska")] {
            guard let row = row(rows, name) else {
                XCTFail("\(name) is not listed\n\(r.transcript)")
                continue
            }
            XCTAssertTrue(row[2].hasPrefix(plugin + "@"), "\(name) registered by \(row[2])")
            XCTAssertNotNil(row[3].range(of: "^Plugins/\(plugin)/plugin\\.lua:\\d+$", options: .regularExpression), "\(name): \(row[3])")
            assertRegisteredAt(row[3], name)
        }
        XCTAssertEqual(row(rows, "rollout")?[0], "rule")
        XCTAssertEqual(row(rows, "label")?[0], "single")
        XCTAssertTrue(row(rows, "tab_bar")?[1].contains("tabbar") == true, "the alias is not shown")
        assertMatches(r.stdout, #"^5 plugins loaded \(basic, matrioska, mortar, spots, targeting\), 0 failed$"#, in: r, "stdout")
        XCTAssertEqual(r.stderr, "", r.transcript)
    }

    func testPluginsJSON() throws {
        let r = try Host.run(["plugins", "--format", "json", "--project", Host.moviesProject])
        assertExit(r, 0)
        let o = try r.jsonObject()
        let regs = try XCTUnwrap(o["registrations"] as? [[String: Any]], r.transcript)
        let names = Set(regs.compactMap { $0["name"] as? String })
        for n in ["label", "rollout", "is_gold_member", "movie"] { XCTAssertTrue(names.contains(n), "\(n) missing: \(names.sorted())") }
        let flows = regs.filter { $0["kind"] as? String == "flow" }.compactMap { $0["name"] as? String }
        XCTAssertEqual(flows, ["premium"], "the movies plugin's Lua flow")
        let plugins = (o["plugins"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(Array(plugins.prefix(5)), ["basic", "matrioska", "mortar", "spots", "targeting"], "standard plugins load first")
        XCTAssertTrue(plugins.contains("movies"), "\(plugins)")
    }

    func testPluginsSurvivesTheHostileCorpus() throws {
        let r = try Host.run(["plugins", "--plugins", "Tests/Fixtures/hostile"], timeout: 60)
        XCTAssertLessThan(r.seconds, 30, "loading the hostile corpus took \(r.seconds) s")
        assertExit(r, 1)
        // Located load errors for broken plugins, one line each.
        let located = lines(of: r.stderr, matching: #"^Tests/Fixtures/hostile/[a-z_]+/plugin\.lua:\d+: error: "#)
        XCTAssertGreaterThanOrEqual(located.count, 15, "too few path:line: error: lines\n\(r.transcript)")
        for broken in ["syntax_error", "loop_at_load", "io_popen", "wrong_api", "recursion", "binary_chunk"] {
            assertMatches(r.stderr, "^Tests/Fixtures/hostile/\(broken)/plugin\\.lua(:\\d+)?: error: .*\(broken)", in: r, "stderr")
        }
        assertMatches(r.stderr, #"^Tests/Fixtures/hostile/syntax_error/plugin\.lua:3: error: "#, in: r, "stderr")
        assertMatches(r.stderr, #"wrong_api.*API 2"#, in: r, "stderr")
        assertMatches(r.stderr, #"loop_at_load.*time limit"#, in: r, "stderr")
        assertMatches(r.stderr, #"duplicate_b.*'contested'.*duplicate_a"#, in: r, "stderr")
        XCTAssertTrue(lines(of: r.stderr, matching: "hostile/good/").isEmpty, "the good plugin is reported\n\(r.transcript)")
        // The good plugin's registrations are still listed, with their locations.
        let rows = tableRows(r.stdout)
        for name in ["good_tier", "good_badge"] {
            guard let row = row(rows, name) else {
                XCTFail("\(name) is not listed\n\(r.transcript)")
                continue
            }
            XCTAssertEqual(row[2], "good@1.0.0")
            XCTAssertTrue(row[3].hasPrefix("Tests/Fixtures/hostile/good/plugin.lua:"), row[3])
            assertRegisteredAt(row[3], name)
        }
        XCTAssertNotNil(row(rows, "label"), "the standard plugins are gone")
        assertMatches(r.stdout, #"plugins loaded \(.*\bgood\b.*\), [1-9]\d* failed$"#, in: r, "stdout")
    }

    // MARK: compat (../shared/compat)

    func compat(_ path: String) throws -> String {
        guard let root = Host.compatFolder else { throw XCTSkip("../shared/compat is not present") }
        let url = root.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw XCTSkip("\(path) is not in the compat folder") }
        return url.path
    }

    func testMatrioskaAppStructureWithTheCompatPlugin() throws {
        let file = try compat("matrioska/app_structure.json")
        let r = try Host.run(["run", file, "--plugins", "Tests/Fixtures/compat-plugin"])
        assertExit(r, 0)
        assertMatches(r.stderr, #"app_structure\.json:\d+:\d+: warning: .*'axis'.*did you mean"#, in: r, "stderr")
        assertLacks(r.stderr, "error:", in: r, "stderr")
        assertContains(r.stdout, "TileView", in: r, "stdout")
        let again = try Host.run(["run", file, "--plugins", "Tests/Fixtures/compat-plugin"])
        XCTAssertEqual(r.stdoutData, again.stdoutData, "not deterministic")
    }

    func testMatrioskaInvalidJSONIsASyntaxErrorAtLine3() throws {
        let file = try compat("matrioska/invalid.json")
        let r = try Host.run(["run", file, "--plugins", "Tests/Fixtures/compat-plugin"])
        assertExit(r, 1)
        assertMatches(r.stderr, #"invalid\.json:3:\d+: error: "#, in: r, "stderr")
    }

    func testMatrioskaCustomTypeNeedsAPlugin() throws {
        let file = try compat("matrioska/app_structure.json")
        let r = try Host.run(["run", file])
        assertExit(r, 1)
        assertMatches(r.stderr, #"app_structure\.json:\d+:\d+: error: .*'tile'"#, in: r, "stderr")
        assertLacks(r.stdout, "TileView", in: r, "stdout")
    }
}
