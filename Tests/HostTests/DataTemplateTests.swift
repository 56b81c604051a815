import Foundation
import XCTest

/// Screens fed by data through templates (issue 40, docs/data.md), on the built `host`:
/// the fixture project Tests/Fixtures/data-feed.
final class DataTemplateTests: XCTestCase {
    static let project = "Tests/Fixtures/data-feed"
    static func screen(_ name: String) -> String { "\(project)/screens/\(name).json" }
    static func bad(_ name: String) -> String { "\(project)/bad/\(name).json" }

    /// The node with `id` in a `host run --format json` tree.
    func node(_ id: String, in json: Any) -> [String: Any]? {
        if let o = json as? [String: Any] {
            if o["id"] as? String == id { return o }
            for (_, v) in o { if let n = node(id, in: v) { return n } }
        } else if let a = json as? [Any] {
            for v in a { if let n = node(id, in: v) { return n } }
        }
        return nil
    }

    /// A tree as JSON text without what names where a node is written (its path and file
    /// location, its creation site): what the user gets, compared across screens.
    func shown(_ json: Any) -> String {
        func strip(_ v: Any) -> Any {
            if let o = v as? [String: Any] {
                var out: [String: Any] = [:]
                for (k, x) in o where !["path", "location", "created_at", "serial"].contains(k) { out[k] = strip(x) }
                return out
            }
            if let a = v as? [Any] { return a.map(strip) }
            return v
        }
        let data = try! JSONSerialization.data(withJSONObject: strip(json), options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    func testTemplateRailIsTheTreeTheLuaBuilderMakesForEveryProfile() throws {
        for profile in ["gold", "free", "guest"] {
            let template = try Host.run(["run", Self.screen("rail_template"), "--user", profile, "--format", "json", "--no-graph"])
            let lua = try Host.run(["run", Self.screen("rail_lua"), "--user", profile, "--format", "json", "--no-graph"])
            XCTAssertEqual(template.status, 0, template.transcript)
            XCTAssertEqual(lua.status, 0, lua.transcript)
            let t = try XCTUnwrap(node("rail", in: try template.jsonObject()))
            let l = try XCTUnwrap(node("rail", in: try lua.jsonObject()))
            let tc = try XCTUnwrap(t["children"] as? [Any]), lc = try XCTUnwrap(l["children"] as? [Any])
            XCTAssertEqual(shown(tc), shown(lc), "profile \(profile)")
            // The element's rule hides exactly the closed restaurant; the promoted one is gold's.
            let ids = tc.compactMap { ($0 as? [String: Any])?["id"] as? String }
            XCTAssertEqual(ids, profile == "gold" ? ["restaurant-1", "restaurant-3", "restaurant-4"] : ["restaurant-1", "restaurant-4"], profile)
        }
        let text = try Host.run(["run", Self.screen("rail_template"), "--user", "gold", "--no-graph"])
        XCTAssertTrue(text.stdout.contains("text=\"Pasta Place · 25 min · 4.5\""), text.transcript)
        XCTAssertTrue(text.stdout.contains("text=\"Taco Stand · 15 min · 4\""), text.transcript)
        // No warning that the user lacks r.open: the element gives it.
        XCTAssertFalse(text.stderr.contains("r.open"), text.transcript)
    }

    func testExplainShowsTheElementRule() throws {
        let r = try Host.run(["run", Self.screen("rail_template"), "--user", "free", "--explain", "--no-graph"])
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertTrue(r.stdout.contains("restaurant-2"), r.transcript)
        XCTAssertTrue(r.stdout.contains("equals{\"r.open\":true}"), r.transcript)
    }

    func testNamedTemplateWithOverrides() throws {
        let r = try Host.run(["run", Self.screen("rail_named"), "--user", "free", "--format", "json", "--no-graph"])
        XCTAssertEqual(r.status, 0, r.transcript)
        let rail = try XCTUnwrap(node("rail", in: try r.jsonObject()))
        let children = try XCTUnwrap(rail["children"] as? [[String: Any]])
        XCTAssertEqual(children.compactMap { $0["id"] as? String }, ["heading", "restaurant-1", "restaurant-3", "restaurant-4"])
        let meta = try XCTUnwrap(children[1]["props"] as? [String: Any])
        XCTAssertEqual(meta["kind"] as? String, "nearby")
        XCTAssertEqual(meta["text"] as? String, "Pasta Place · 25 min · 4.5")
    }

    func testDataFlagAndPostGiveTheSameAnswer() throws {
        let other = "\(Self.project)/bad/other-restaurants.json"
        let run = try Host.run(["run", Self.screen("rail_template"), "--user", "gold", "--format", "json", "--no-graph", "--data", "restaurants=\(other)"])
        XCTAssertEqual(run.status, 0, run.transcript)
        let rail = try XCTUnwrap(node("rail", in: try run.jsonObject()))
        XCTAssertEqual((rail["children"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["restaurant-7"])
        let data = try String(contentsOf: Host.repoRoot.appendingPathComponent(other), encoding: .utf8)
        let server = try ServeCommandTests.Server(["--project", Self.project, "--workers", "1"])
        let posted = try server.call("/v1/screens/rail_template", method: "POST", body: #"{"profile": "gold", "data": {"restaurants": "# + data + "}}")
        XCTAssertEqual(posted.status, 200, posted.body)
        XCTAssertEqual(posted.body, run.stdout)
        // Without data: the declared file.
        let plain = try server.call("/v1/screens/rail_template", method: "POST", body: #"{"profile": "gold"}"#)
        XCTAssertTrue(plain.body.contains("restaurant-3"), plain.body)
        // Data the schema refuses: 500 with the located error, in the body.
        let broken = try server.call("/v1/screens/rail_template", method: "POST", body: #"{"data": {"restaurants": [{"id": "x"}]}}"#)
        XCTAssertEqual(broken.status, 500, broken.body)
        XCTAssertTrue(broken.body.contains("restaurants[0].id: expected integer"), broken.body)
    }

    /// Each bad input: exit 1 and exactly one error, located (for expressions, at the column in the string).
    func assertOneError(_ args: [String], _ prefix: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try Host.run(args)
        XCTAssertEqual(r.status, 1, r.transcript, file: file, line: line)
        let errors = r.stderrLines.filter { $0.contains(": error: ") }
        XCTAssertEqual(errors.count, 1, r.transcript, file: file, line: line)
        XCTAssertTrue(errors.first?.hasPrefix(prefix) == true, "expected \(prefix)…\n\(r.transcript)", file: file, line: line)
    }

    func testBadInputsGiveOneLocatedErrorEach() throws {
        try assertOneError(["run", Self.screen("rail_template"), "--no-graph", "--data", "restaurants=\(Self.project)/bad/broken-restaurants.json"],
                           "\(Self.project)/bad/broken-restaurants.json:2:57: error: restaurants[0].rating: expected number, found the string \"high\"")
        // `{"$format": "{r.name} · {r.nmae}"}`: the string opens at column 34; r.nmae is its byte 13.
        try assertOneError(["run", Self.bad("missing_field"), "--no-graph"],
                           "\(Self.bad("missing_field")):6:48: error: $format: r has no field 'nmae'; did you mean 'name'?")
        try assertOneError(["run", Self.bad("no_id"), "--no-graph"],
                           "\(Self.bad("no_id")):5:28: error: a template's \"id\" comes from a $bind, $format or $expr")
        // `{"$expr": "r.eta * (2 +"}`: the string opens at column 32; its end is byte 12.
        try assertOneError(["run", Self.bad("bad_expr"), "--no-graph"],
                           "\(Self.bad("bad_expr")):6:45: error: $expr: expected a value, found the end of the expression")
        try assertOneError(["run", Self.screen("rail_template"), "--no-graph", "--data", "restaurant=\(Self.project)/bad/other-restaurants.json"],
                           "\(Self.screen("rail_template")):1:1: error: data 'restaurant' was given, but")
    }

    func testCheckReportsTemplateErrors() throws {
        let ok = try Host.run(["check", "--project", Self.project])
        XCTAssertEqual(ok.status, 0, ok.transcript)
        let r = try Host.run(["check", Self.bad("missing_field")])
        XCTAssertEqual(r.status, 1, r.transcript)
        XCTAssertTrue(r.stderr.contains("r has no field 'nmae'"), r.transcript)
    }
}

/// A data source a plugin provides per request (`host.data`): called with the user; `host
/// check` expands the screen with the source's sample.
final class DataProviderTests: XCTestCase {
    func ids(_ r: HostResult) throws -> [String] {
        let tree = try XCTUnwrap(try r.jsonObject()["tree"] as? [String: Any])
        return (tree["children"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func testTheProviderIsCalledForEachUser() throws {
        let screen = DataTemplateTests.screen("rail_plugin")
        let gold = try Host.run(["run", screen, "--user", "gold", "--format", "json", "--no-graph"])
        XCTAssertEqual(gold.status, 0, gold.transcript)
        XCTAssertEqual(try ids(gold), ["restaurant-1", "restaurant-3", "restaurant-4"])
        let free = try Host.run(["run", screen, "--user", "free", "--format", "json", "--no-graph"])
        XCTAssertEqual(free.status, 0, free.transcript)
        XCTAssertEqual(try ids(free), ["restaurant-3", "restaurant-4"])
        // Data given with the request replaces the provider.
        let given = try Host.run(["run", screen, "--user", "free", "--format", "json", "--no-graph",
                                  "--data", "restaurants=\(DataTemplateTests.project)/bad/other-restaurants.json"])
        XCTAssertEqual(try ids(given), ["restaurant-7"])
        // The schema beside the sample types the provider's answer too: its errors are located at host.data.
        let broken = try Host.run(["run", screen, "--user", "free", "--no-graph",
                                   "--data", "restaurants=\(DataTemplateTests.project)/bad/broken-restaurants.json"])
        XCTAssertEqual(broken.status, 1, broken.transcript)
    }
}

/// `t:open(screen, {data = …})` in scenarios (docs/data.md).
final class DataScenarioTests: XCTestCase {
    func testScenariosOpenScreensWithData() throws {
        let r = try Host.run(["test", "\(DataTemplateTests.project)/scenarios"], environment: ["CI": "true"])
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertTrue(r.stdout.contains("3 passed") || r.stdout.contains("passed: 3") || r.stdout.contains("3 scenarios"), r.transcript)
    }
}
