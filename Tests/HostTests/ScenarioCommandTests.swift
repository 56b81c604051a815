import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// `host test`: the sample app's scenarios pass (also under CI=true, where snapshots are never recorded),
/// and a failing scenario fails the run with a report.
final class ScenarioCommandTests: XCTestCase {
    /// The `N passed, M failed` summary: the last non-empty line of stdout.
    func summary(_ r: HostResult, file: StaticString = #filePath, line: UInt = #line) -> (passed: Int, failed: Int)? {
        guard let last = r.stdoutLines.last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            XCTFail("no output\n\(r.transcript)", file: file, line: line)
            return nil
        }
        let re = try! NSRegularExpression(pattern: #"^(\d+) passed, (\d+) failed"#)
        guard let m = re.firstMatch(in: last, range: NSRange(last.startIndex..., in: last)),
              let p = Range(m.range(at: 1), in: last), let f = Range(m.range(at: 2), in: last) else {
            XCTFail("the last line is not 'N passed, M failed': \(last.debugDescription)\n\(r.transcript)", file: file, line: line)
            return nil
        }
        return (Int(last[p])!, Int(last[f])!)
    }

    func testSampleAppScenariosPass() throws {
        // Under CI=true: a missing snapshot fails rather than being recorded. (Run once here;
        // scripts/test runs every shipped scenario again through `host test`.)
        for env in [["CI": "true"]] {
            let r = try Host.run(["test", "docs/examples/movies/scenarios"], environment: env)
            assertExit(r, 0)
            let s = summary(r)
            // Counted by hand from home.lua (8), navigation.lua, mutations.lua (3), styles.lua (9),
            // layout.lua (5), accessibility.lua (3), locales.lua (3) and schedule.lua (2): a
            // scenario added or removed there must change this number.
            XCTAssertEqual(s?.passed, 40, "every scenario of the sample app\n\(r.transcript)")
            XCTAssertEqual(s?.failed, 0, r.transcript)
            assertMatches(r.stdout, #"^✓ gold members see the premium tab"#, in: r, "stdout")
            assertLacks(r.stdout, "✗", in: r, "stdout")
            assertLacks(r.stdout, "unreferenced snapshots", in: r, "stdout")
        }
    }

    func testFilter() throws {
        let some = try Host.run(["test", "docs/examples/movies/scenarios", "--filter", "premium tab"], environment: ["CI": "true"])
        assertExit(some, 0)
        // Three scenario names of home.lua mention the premium tab (of the 11 the app has).
        XCTAssertEqual(summary(some)?.passed, 3, some.transcript)
        XCTAssertEqual(summary(some)?.failed, 0, some.transcript)
    }

    func testFailingScenarioFailsTheRunWithReports() throws {
        let root = try Host.temporaryFolder("scenarios")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "failing", "plugins": []}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}, "free": {"id": "2", "tier": "free"}}"#,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "for_gold", "rule": {"equals": {"tier": "gold"}}, "meta": {"text": "Gold"}},
                  {"type": "label", "id": "for_all", "meta": {"text": "Hello"}}
                ]}}
                """,
            "scenarios/home.lua": """
                scenario("gold sees for_gold", function(t)
                  local s = t:open("home", { user = "gold" })
                  s:expect_visible("for_gold")
                end)

                scenario("free sees for_gold (wrong on purpose)", function(t)
                  local s = t:open("home", { user = "free" })
                  s:expect_visible("for_gold")
                end)

                """,
        ], under: root)
        let junit = root.appendingPathComponent("junit.xml"), json = root.appendingPathComponent("report.json")
        let r = try Host.run(["test", root.appendingPathComponent("scenarios").path, "--junit", junit.path, "--json", json.path],
                             environment: ["CI": "true"])
        assertExit(r, 1)
        let s = summary(r)
        XCTAssertEqual(s?.passed, 1, r.transcript)
        XCTAssertEqual(s?.failed, 1, r.transcript)
        assertMatches(r.stdout, #"^✓ gold sees for_gold"#, in: r, "stdout")
        assertMatches(r.stdout, #"^✗ free sees for_gold"#, in: r, "stdout")
        assertContains(r.stdout, "for_gold", in: r, "the failure message")

        let xml = try String(contentsOf: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<testsuite"), xml)
        XCTAssertTrue(xml.contains("<failure"), xml)
        XCTAssertTrue(xml.contains("free sees for_gold"), xml)
        XCTAssertNoThrow(try XMLDocument(data: Data(xml.utf8)), "the JUnit report is not well-formed XML")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: json))
        XCTAssertTrue(report is [String: Any], "the JSON report is not an object")
    }

    /// `host test --verbose --jobs 1` on the scenarios under `root`, which must pass as one
    /// scenario: the lines of stderr (what rules printed and logged) that contain `text`.
    func verboseLinesOfOnePassingScenario(_ root: URL, containing text: String,
                                          file: StaticString = #filePath, line: UInt = #line) throws -> ([String], HostResult) {
        let r = try Host.run(["test", root.appendingPathComponent("scenarios").path, "--verbose", "--jobs", "1"], environment: ["CI": "true"])
        assertExit(r, 0, file: file, line: line)
        XCTAssertEqual(summary(r, file: file, line: line)?.passed, 1, r.transcript, file: file, line: line)
        return (r.stderr.split(separator: "\n").filter { $0.contains(text) }.map(String.init), r)
    }

    /// Opening a screen runs its rules every time (`host test` keeps each plugin's view of a
    /// user, never a rule's answer): a rule that prints or logs does so on every open, in order,
    /// and each user sees their own screen however often the two alternate.
    func testRulesRunOnEveryOpen() throws {
        let root = try Host.temporaryFolder("opens")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "opens", "plugins": ["plugins"]}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}, "free": {"id": "2", "tier": "free"}}"#,
            "plugins/talk/plugin.lua": """
                return { name = "talk", version = "1.0.0", api = 1, register = function(host)
                  host.rule("is_gold", function(user) print("is_gold for " .. user.id); return user.tier == "gold" end)
                  host.rule("logged", function(user) host.log("logged for " .. user.profile); return true end)
                end }
                """,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "for_gold", "rule": "is_gold", "meta": {"text": "Gold"}},
                  {"type": "label", "id": "for_all", "rule": "logged", "meta": {"text": "Hello"}}
                ]}}
                """,
            "scenarios/opens.lua": """
                scenario("alternating opens", function(t)
                  for i = 1, 4 do
                    local user = i % 2 == 1 and "gold" or "free"
                    local s = t:open("home", { user = user })
                    if user == "gold" then s:expect_visible("for_gold") else s:expect_hidden("for_gold") end
                    s:expect_visible("for_all")
                  end
                end)

                """,
        ], under: root)
        let (lines, r) = try verboseLinesOfOnePassingScenario(root, containing: " for ")
        XCTAssertEqual(lines, [
            "[talk] is_gold for 1", "[talk] logged for gold", "[talk] is_gold for 2", "[talk] logged for free",
            "[talk] is_gold for 1", "[talk] logged for gold", "[talk] is_gold for 2", "[talk] logged for free",
        ], r.transcript)
    }

    /// A session's navigation reads the opened screen's actions from the session's own
    /// resolution of it: tapping, going back and tapping again runs the opened screen's rules
    /// once (a rule that logs logs once), however the walk goes on.
    func testNavigatingDoesNotResolveTheOpenedScreenAgain() throws {
        let root = try Host.temporaryFolder("opens-nav")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "opens-nav", "plugins": ["plugins"]}"#,
            "users.json": #"{"gold": {"tier": "gold"}}"#,
            "plugins/talk/plugin.lua": """
                return { name = "talk", version = "1.0.0", api = 1, register = function(host)
                  host.rule("logged", function(user) host.log("home rule for " .. user.profile); return true end)
                  host.flow("main", {
                    presentation = "stack", start = "home",
                    navigate = function(step, nav)
                      if step.name == "detail" then return nav.push("detail") end
                      return nav.none()
                    end,
                  })
                end }
                """,
            "screens/home.json": """
                {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
                  {"type": "label", "id": "go", "rule": "logged", "meta": {"text": "Go"}, "action": "detail"}
                ]}}
                """,
            "screens/detail.json": #"{"screen": "detail", "root": {"type": "label", "id": "d", "meta": {"text": "Detail"}}}"#,
            "scenarios/walk.lua": """
                scenario("tap, back, tap", function(t)
                  local s = t:open("home", { user = "gold" })
                  s:tap("go")
                  expect_eq(s:screen(), "detail")
                  s:back()
                  expect_eq(s:screen(), "home")
                  s:tap("go")
                  expect_eq(s:stack(), { "home", "detail" })
                end)

                """,
        ], under: root)
        let (lines, r) = try verboseLinesOfOnePassingScenario(root, containing: "home rule for")
        XCTAssertEqual(lines, ["[talk] home rule for gold"], r.transcript)
    }

    /// The screen a `t:open` argument names is found once per scenario file: the same argument
    /// opens the same screen again, and one that names none fails each time it is opened.
    func testScreenArgumentsOpenTheSameScreenEachTime() throws {
        let root = try Host.temporaryFolder("arguments")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "arguments", "plugins": []}"#,
            "users.json": #"{"gold": {"tier": "gold"}}"#,
            "screens/home.json": #"{"screen": "home", "root": {"type": "label", "id": "hello", "meta": {"text": "Hi"}}}"#,
            "scenarios/args.lua": """
                scenario("arguments", function(t)
                  for _ = 1, 2 do
                    t:open("home", "gold"):expect_visible("hello")
                    t:open("screens/home.json", "gold"):expect_visible("hello")
                    local ok, err = pcall(function() t:open("homme", "gold") end)
                    assert(not ok and err:find("no screen 'homme'", 1, true) and err:find("did you mean 'home'", 1, true), err)
                  end
                end)

                """,
        ], under: root)
        let r = try Host.run(["test", "scenarios", "--jobs", "1"], environment: ["CI": "true"], directory: root)
        assertExit(r, 0)
        XCTAssertEqual(summary(r)?.passed, 1, r.transcript)
    }

    /// Sessions are found by their handle within their scenario: every session a scenario
    /// opened stays usable to its end (also across `t:each_user` runs), one kept from an earlier
    /// scenario is refused, and arguments reach the host as given (`nil`s included).
    func testSessionsAreFoundByHandleWithinTheirScenario() throws {
        let root = try Host.temporaryFolder("handles")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "handles", "plugins": []}"#,
            "users.json": #"{"gold": {"tier": "gold"}, "free": {"tier": "free"}}"#,
            "screens/home.json": #"{"screen": "home", "root": {"type": "label", "id": "hello", "meta": {"text": "Hi"}}}"#,
            "scenarios/handles.lua": """
                local kept
                scenario("first", function(t)
                  kept = t:open("home", "gold")
                end)
                scenario("second", function(t)
                  local all = {}
                  for i = 1, 40 do all[i] = t:open("home", i % 2 == 0 and "gold" or "free") end
                  t:each_user({ "gold", "free" }, function(t, user)
                    all[#all + 1] = t:open("home", user)
                  end)
                  for i, s in ipairs(all) do
                    local want = (i <= 40) and (i % 2 == 0 and "gold" or "free") or (i == 41 and "gold" or "free")
                    expect_eq(s:user().tier, want)
                  end
                  local ok, err = pcall(function() return kept:user() end)
                  assert(not ok and err:find("not a session", 1, true), tostring(err))
                  print("args", nil, 2, nil)
                end)

                """,
        ], under: root)
        let r = try Host.run(["test", "scenarios", "--jobs", "1", "--verbose"], environment: ["CI": "true"], directory: root)
        assertExit(r, 0)
        // "first", then "second" as its two profiles' runs.
        XCTAssertEqual(summary(r)?.passed, 3, r.transcript)
        XCTAssertTrue(r.stderr.contains("args\\tnil\\t2\\tnil"), r.transcript)
    }

    func testNoScenarioFilesIsSaid() throws {
        let root = try Host.temporaryFolder("empty")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write(["loom.json": "{}", "scenarios/README.md": "nothing here\n"], under: root)
        let r = try Host.run(["test", root.appendingPathComponent("scenarios").path], environment: ["CI": "true"])
        assertContains(r.stdout, "no scenario files found", in: r, "stdout")
    }
}
