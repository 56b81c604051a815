import Foundation
import XCTest

/// Named rules (issue 10, item 6): loom.json `rules` / rules.json, usable anywhere a rule is;
/// cycles, unknown names and shadowing are located errors; `--explain` shows the expansion.
final class NamedRuleTests: XCTestCase {
    func project(_ name: String, rules: String, screenRule: String = #""paywalled""#, extra: [String: String] = [:]) throws -> URL {
        let dir = try Host.temporaryFolder(name)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        var files = [
            "loom.json": "{\"name\": \"news\",\n \"rules\": \(rules)}",
            "plugins/news/plugin.lua": """
                return { name = "news", version = "1.0.0", api = 1, register = function(host)
                  host.rule("is_subscriber", function(user) return user.subscriber == true end)
                end }
                """,
            "screens/article.json": """
                {"screen": "article", "root": {"type": "stack", "children": [
                  {"type": "label", "id": "body", "meta": {"text": "Story"}, "rule": {"NOT": \(screenRule)}},
                  {"type": "button", "id": "paywall", "meta": {"title": "Subscribe"}, "rule": \(screenRule)}]}}
                """,
            "users.json": #"{"reader": {"subscriber": true}, "visitor": {"role": "guest"}, "staff": {"role": "staff"}}"#,
        ]
        for (k, v) in extra { files[k] = v }
        try Host.write(files, under: dir)
        return dir
    }

    let paywalled = #"{"paywalled": {"NOT": {"OR": ["is_subscriber", {"equals": {"role": "staff"}}]}}}"#

    func testANamedRuleGatesAComponentAndItsElse() throws {
        let dir = try project("gate", rules: paywalled)
        for (user, body, wall) in [("reader", true, false), ("visitor", false, true), ("staff", true, false)] {
            let r = try Host.run(["run", "article", "--project", dir.path, "--user", user, "--format", "json", "--no-graph"])
            assertExit(r, 0)
            let ids = TreeJSON.ids(try r.jsonObject()["tree"])
            XCTAssertEqual(ids.contains("body"), body, "body for \(user)\n\(r.transcript)")
            XCTAssertEqual(ids.contains("paywall"), wall, "paywall for \(user)\n\(r.transcript)")
        }
        let check = try Host.run(["check", "--project", dir.path])
        assertExit(check, 0)
    }

    func testExplainShowsTheExpansion() throws {
        let dir = try project("explain", rules: paywalled)
        let r = try Host.run(["run", "article", "--project", dir.path, "--user", "visitor", "--explain", "--no-graph"])
        assertExit(r, 0)
        assertContains(r.stdout, "[rule paywalled = true]", in: r)
        assertContains(r.stdout, #"· NOT(OR(is_subscriber, equals{"role":"staff"})) = true"#, in: r)
        assertContains(r.stdout, "· is_subscriber = false", in: r)
        assertContains(r.stdout, "[rule NOT(paywalled) = false]", in: r)
    }

    func testNamedRulesUseOtherNamedRules() throws {
        let dir = try project("nested", rules: #"{"reader": "is_subscriber", "paywalled": {"NOT": "reader"}}"#)
        let r = try Host.run(["run", "article", "--project", dir.path, "--user", "reader", "--format", "json", "--no-graph"])
        assertExit(r, 0)
        XCTAssertFalse(TreeJSON.ids(try r.jsonObject()["tree"]).contains("paywall"), r.transcript)
    }

    func testACycleIsNamedInFull() throws {
        let dir = try project("cycle", rules: "{\n\"paywalled\": {\"NOT\": \"a\"},\n\"a\": {\"OR\": [\"is_subscriber\", \"b\"]},\n\"b\": \"a\"}")
        for c in [["check"], ["run", "article", "--user", "reader"]] {
            let r = try Host.run(c + ["--project", dir.path])
            assertExit(r, 1)
            assertMatches(r.stderr, #"loom\.json:4:1: error: named rule 'a' refers to itself: a → b → a$"#, in: r)
        }
        let r = try Host.run(["check", "--project", dir.path])
        assertContains(r.stderr, "rule 'paywalled': this named rule cannot be used: it uses named rule 'a', which cannot be used", in: r)
    }

    func testAnUnknownNameHasADidYouMean() throws {
        let dir = try project("unknown", rules: "{\n\"paywalled\": {\"NOT\": \"is_subscribr\"}}")
        let r = try Host.run(["check", "--project", dir.path])
        assertExit(r, 1)
        assertMatches(r.stderr, #"loom\.json:3:22: error: unknown rule 'is_subscribr' in named rule 'paywalled'; did you mean 'is_subscriber'\?"#, in: r)
    }

    func testShadowingAPluginRuleIsAnError() throws {
        let dir = try project("shadow", rules: "{\n\"equals\": \"is_subscriber\", \"paywalled\": \"is_subscriber\"}")
        let r = try Host.run(["check", "--project", dir.path])
        assertExit(r, 1)
        assertMatches(r.stderr, #"loom\.json:3:1: error: named rule 'equals' shadows rule 'equals' of plugin targeting"#, in: r)
    }

    func testArgumentsOnANamedRuleAreAnError() throws {
        let dir = try project("args", rules: paywalled, screenRule: #"{"paywalled": {"x": 1}}"#)
        let r = try Host.run(["check", "--project", dir.path])
        assertExit(r, 1)
        assertContains(r.stderr, "rule 'paywalled': a named rule takes no arguments", in: r)
    }

    func testRulesJSONAndBothAtOnce() throws {
        let dir = try project("file", rules: "{}", extra: ["rules.json": paywalled])
        var r = try Host.run(["run", "article", "--project", dir.path, "--user", "visitor", "--format", "json", "--no-graph"])
        assertExit(r, 1)
        assertContains(r.stderr, "named rules are defined both here and in", in: r)
        try Host.write(["loom.json": #"{"name": "news"}"#], under: dir)
        r = try Host.run(["run", "article", "--project", dir.path, "--user", "visitor", "--format", "json", "--no-graph"])
        assertExit(r, 0)
        XCTAssertTrue(TreeJSON.ids(try r.jsonObject()["tree"]).contains("paywall"), r.transcript)
    }
}
