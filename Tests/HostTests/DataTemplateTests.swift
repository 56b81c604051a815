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

    /// One named template used by two `$each` of a screen makes the same ids twice: the error is
    /// at the template's id in loom.json, so it names the `$each` of the screen behind each
    /// element (found trying issue 40 as a new user: "element 0 of restaurants is already used
    /// by element 0 of restaurants" said neither which rail).
    func testDuplicateIdsOfANamedTemplateNameTheirEach() throws {
        let r = try Host.run(["run", Self.bad("two_rails"), "--no-graph"])
        XCTAssertEqual(r.status, 1, r.transcript)
        let errors = r.stderrLines.filter { $0.contains(": error: ") }
        XCTAssertEqual(errors.count, 4, r.transcript)
        let each1 = "\(Self.bad("two_rails")):5:49", each2 = "\(Self.bad("two_rails")):6:49"
        XCTAssertEqual(errors.first, "\(Self.project)/loom.json:10:13: error: id 'restaurant-1' of element 0 of restaurants (the $each at \(each2)) is already used by element 0 of restaurants (the $each at \(each1)): ids are unique in the screen", r.transcript)
        // The first rail's elements are kept; the second's are left out.
        XCTAssertTrue(r.stdout.contains("stack #near"), r.transcript)
        XCTAssertEqual(r.stdout.components(separatedBy: "#restaurant-1 ").count, 2, r.transcript)
    }

    /// host check warns at each `$bind` of a field the data's schema declares optional (not in
    /// "required", no "default"), naming the field and the schema; a required field, one with a
    /// default, a nested `$each`'s element and a field the schema does not declare are handled.
    func testCheckWarnsAtBindingsOfOptionalFields() throws {
        let root = try Host.temporaryFolder("optional-bind")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "optional-bind"}"#,
            "data/shops.json": #"[{"id": 1, "name": "A", "rating": 4, "eta": 10, "address": {"city": "Oslo"}, "dishes": [{"id": 7, "note": "hot"}]}]"#,
            "data/shops.schema.json": """
                {"type": "array", "items": {"type": "object", "required": ["id", "name", "address", "dishes"],
                  "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "rating": {"type": "number"},
                                 "eta": {"type": "integer", "default": 15},
                                 "address": {"type": "object", "properties": {"city": {"type": "string"}}},
                                 "dishes": {"type": "array", "items": {"type": "object", "required": ["id"],
                                            "properties": {"id": {"type": "integer"}, "note": {"type": "string"}}}}}}}
                """,
            "screens/shops.json": """
                {"screen": "shops", "data": {"shops": {"file": "data/shops.json"}},
                 "root": {"type": "stack", "id": "root", "children": {"$each": "shops", "as": "s", "template":
                   {"type": "list", "id": {"$format": "shop_{s.id}"},
                    "meta": {"title": {"$bind": "s.name"}, "rating": {"$bind": "s.rating"}, "eta": {"$bind": "s.eta"},
                             "city": {"$bind": "s.address.city"}},
                    "items": {"$each": "s.dishes", "as": "d", "template": {"id": {"$format": "dish_{d.id}"}, "title": {"$bind": "d.note"}}}}}}}
                """,
        ], under: root)
        let r = try Host.run(["check", "--project", root.path])
        assertExit(r, 0)
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("is optional in") }
        XCTAssertEqual(warnings.count, 3, r.transcript)
        assertContains(r.stderr, #"screens/shops.json:4:64: warning: $bind 's.rating': 'rating' is optional in shops's schema (data/shops.schema.json: not in "required", no "default"): an element without it fails this binding and is left out"#, in: r, "stderr")
        assertContains(r.stderr, #"screens/shops.json:5:32: warning: $bind 's.address.city': 'city' is optional in shops's schema"#, in: r, "stderr")
        assertContains(r.stderr, #"warning: $bind 'd.note': 'note' is optional in shops's schema"#, in: r, "stderr")
        assertLacks(r.stderr, "'s.name'", in: r, "stderr")
        assertLacks(r.stderr, "'s.eta'", in: r, "stderr")
        // host run is unchanged: the data has every field, nothing is said.
        let run = try Host.run(["run", "screens/shops.json", "--no-graph"], directory: root)
        assertExit(run, 0)
        assertLacks(run.stderr, "is optional in", in: run, "stderr")
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

/// A request calls a screen's data provider once: `host serve` prepares the screen (to answer
/// one that does not parse with its own status) and the pipeline resolves that very preparation.
/// Tests/Fixtures/data-counted's provider numbers its calls (a worker keeps its plugin state).
final class DataProviderCallTests: XCTestCase {
    static let project = "Tests/Fixtures/data-counted"

    /// The N of the `call-N` label in an answer.
    func call(_ body: String) throws -> Int {
        let r = try XCTUnwrap(body.range(of: #"call-[0-9]+"#, options: .regularExpression), body)
        return try XCTUnwrap(Int(body[r].dropFirst(5)), body)
    }

    func testTheProviderIsCalledOncePerRequest() throws {
        let run = try Host.run(["run", "\(Self.project)/screens/calls.json", "--format", "json", "--no-graph"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try call(run.stdout), 1, "host run calls the provider once")
        let server = try ServeCommandTests.Server(["--project", Self.project, "--workers", "1"])
        let first = try server.call("/v1/screens/calls", method: "POST", body: #"{"state": {"qty": 2}}"#)
        XCTAssertEqual(first.status, 200, first.body)
        XCTAssertTrue(first.body.contains("qty 2"), first.body)
        let second = try server.call("/v1/screens/calls")
        XCTAssertEqual(second.status, 200, second.body)
        // One call per request: the second request's number is the first's plus one (twice
        // prepared, it was plus two).
        XCTAssertEqual(try call(second.body), try call(first.body) + 1, second.body)
        // The picture of a data-fed screen with state: drawn with the request's state, and
        // its provider called once too.
        let picture = try server.call("/v1/render/calls", method: "POST", body: #"{"state": {"qty": 4}}"#)
        if picture.status == 501 { throw XCTSkip("no fonts: \(picture.body)") }
        XCTAssertEqual(picture.status, 200, picture.body)
        XCTAssertTrue(picture.body.contains("qty 4"), picture.body)
        XCTAssertEqual(try call(picture.body), try call(second.body) + 1, picture.body)
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

/// `--explain` names where each bound value came from (docs/data.md): a data source's path with
/// the element's index, a state name, or an expression with the paths it read.
final class DataExplainTests: XCTestCase {
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

    func testExplainNamesEachBoundValuesSource() throws {
        let r = try Host.run(["run", DataTemplateTests.screen("rail_named"), "--user", "gold", "--explain", "--no-graph"])
        XCTAssertEqual(r.status, 0, r.transcript)
        assertContains(r.stdout, #"meta.text ← $format "{r.name} · {r.eta} min · {r.rating}" (restaurants[2].name, restaurants[2].eta, restaurants[2].rating)"#, in: r)
        assertContains(r.stdout, #"id ← $format "restaurant-{r.id}" (restaurants[3].id)"#, in: r)
        // Without --explain no sources are shown.
        let plain = try Host.run(["run", DataTemplateTests.screen("rail_named"), "--user", "gold", "--no-graph"])
        XCTAssertFalse(plain.stdout.contains(" ← "), plain.stdout)
        // State and expressions; JSON carries "bindings".
        let state = try Host.run(["run", ScreenStateTests.product, "--user", "gold", "--explain", "--no-graph", "--format", "json"])
        XCTAssertEqual(state.status, 0, state.transcript)
        let fav = try XCTUnwrap(node("fav", in: try state.jsonObject()))
        XCTAssertEqual(fav["bindings"] as? [String: String], [
            "meta.title": #"$expr "state.favorite ? 'Saved' : 'Save'" (state.favorite)"#,
            "meta.selected": "state.favorite",
        ])
        // The sample app's items name their data file's element.
        let home = try Host.run(["run", Host.homeScreen, "--user", "gold", "--explain", "--no-graph"])
        assertContains(home.stdout, "title ← wishlist[1].title", in: home)
        // A screen may not write the host's own key.
        let dir = try Host.temporaryFolder("bound")
        let file = dir.appendingPathComponent("forged.json")
        try #"{"screen": "forged", "data": {}, "root": {"type": "label", "id": "x", "$bound": {"meta.text": "lies"}, "meta": {"text": "t"}}}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let forged = try Host.run(["run", file.path, "--no-graph"])
        XCTAssertEqual(forged.status, 1, forged.transcript)
        assertContains(forged.stderr, "'$bound' is set by the host", in: forged)
    }
}

/// A step into a screen whose data a Lua provider gives is followed with that user's data, not
/// the source's sample (docs/data.md, "Screens rebuilt with their data"): the feed's only
/// `detail` action comes from the provider (the sample offers `open` only).
final class DataNavigationTests: XCTestCase {
    func testAStepIntoAProviderFedScreenUsesTheUsersData() throws {
        let root = try Host.temporaryFolder("nav-data")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try Host.write([
            "loom.json": #"{"name": "nav-data", "plugins": "plugins", "screens": "screens", "users": "users.json", "flows": "flows.json", "entry": "main"}"#,
            "users.json": #"{"gold": {"tier": "gold"}}"#,
            "flows.json": #"{"flows": {"main": {"presentation": "stack", "start": "start", "steps": {"open": {"push": "feed"}, "detail": {"push": "detail"}}}}}"#,
            "screens/start.json": #"{"screen": "start", "root": {"type": "button", "id": "go", "meta": {"title": "Go"}, "action": "open"}}"#,
            "screens/detail.json": #"{"screen": "detail", "root": {"type": "label", "id": "d", "meta": {"text": "Detail"}}}"#,
            "screens/feed.json": #"""
                {"screen": "feed", "data": {"entries": {"plugin": "feed", "sample": "data/sample.json"}},
                 "root": {"type": "stack", "id": "feed", "children": {"$each": "entries", "as": "e", "template": {
                   "type": "button", "id": {"$format": "entry-{e.id}"}, "meta": {"title": {"$bind": "e.title"}}, "action": {"$format": "{e.step}:{e.id}"}}}}}
                """#,
            "data/sample.json": #"[{"id": 1, "title": "Sample", "step": "open"}]"#,
            "plugins/feed/plugin.lua": """
                return {
                  name = "feed", version = "1.0.0", api = 1,
                  register = function(host)
                    host.data("feed", function(ctx) return { { id = 7, title = "For " .. ctx.user.tier, step = "detail" } } end)
                  end,
                }
                """,
        ], under: root)
        let r = try Host.run(["navigate", "start", "--project", root.path, "--user", "gold", "--steps", "open,detail:7"])
        XCTAssertEqual(r.status, 0, r.transcript)
        assertContains(r.stdout, "stack: main: start › feed › detail", in: r)
        // The sample's action is not what this user's feed shows.
        let sample = try Host.run(["navigate", "start", "--project", root.path, "--user", "gold", "--steps", "open,open:1"])
        XCTAssertNotEqual(sample.status, 0, sample.transcript)
    }
}
