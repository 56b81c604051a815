import Foundation
import XCTest

/// Values that travel with a step: `--param`, `node.params`, `params.NAME` in rules,
/// `{"$param": …}` meta, navigation and scenarios carrying them, the view-state cache keyed on them.
final class ParamsTests: XCTestCase {
    func testRunWithAParamReachesBuildersRulesAndBoundMeta() throws {
        let p = try ParamsFixtures.lua()
        let r = try Host.run(["run", "item", "--project", p.path, "--user", "gold", "--param", "id=42", "--no-graph", "--format", "json"])
        assertExit(r, 0)
        let tree = try r.jsonObject()["tree"]
        let byID = Dictionary(TreeJSON.components(tree).compactMap { c in (c["id"] as? String).map { ($0, c) } }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual((byID["title"]?["props"] as? [String: Any])?["text"] as? String, "Item 42", r.transcript)
        XCTAssertEqual((byID["bound"]?["props"] as? [String: Any])?["text"] as? String, "42", r.transcript)
        XCTAssertNotNil(byID["only42"], "a rule reading params.id = 42 passes\n\(r.transcript)")

        let seven = try Host.run(["run", "item", "--project", p.path, "--user", "gold", "--param", "id=7", "--no-graph"])
        assertExit(seven, 0)
        assertContains(seven.stdout, #"text="Item 7""#, in: seven)
        assertContains(seven.stdout, #"text="7""#, in: seven)
        assertLacks(seven.stdout, "only42", in: seven)
    }

    func testAMissingParamIsALocatedErrorNamingTheEntrySteps() throws {
        let p = try ParamsFixtures.declarative()
        let r = try Host.run(["run", "item", "--project", p.path, "--user", "gold", "--no-graph"])
        assertExit(r, 1)
        assertMatches(r.stderr, #"screens/item\.json:3:\d+: error: meta 'text' of 'label' is bound to param 'id', which this resolution lacks"#, in: r, "stderr")
        assertContains(r.stderr, "step 'item' of flow 'main'", in: r, "stderr")
        assertContains(r.stderr, "deep link 'app://item/{id}'", in: r, "stderr")
        assertContains(r.stderr, "--param id=VALUE", in: r, "stderr")
        assertLacks(r.stdout, "#bound", in: r, "stdout (the component fails closed)")
    }

    func testCheckResolvesABindingScreenWithTheProjectsExampleParams() throws {
        let p = try ParamsFixtures.declarative()
        let r = try Host.run(["check", "--project", p.path, "--format", "json"])
        assertExit(r, 0)
        assertLacks(r.stderr, "is bound to param", in: r, "stderr")
        // The actions item:42, item:7 and item:8 (no stand-in `<id>`).
        let params = try r.jsonObject()["params"] as? [String: [[String: String]]]
        XCTAssertEqual(params?.first { $0.key.hasSuffix("item.json") }?.value.compactMap { $0["id"] }, ["42", "7", "8"], r.transcript)
    }

    func testBadParamFlagIsAUsageError() throws {
        let p = try ParamsFixtures.lua()
        let r = try Host.run(["run", "item", "--project", p.path, "--param", "=3"])
        assertExit(r, 64)
        assertContains(r.stderr, "must be name=value", in: r, "stderr")
    }

    func testNavigateCarriesEachStepsParamsToItsScreen() throws {
        let p = try ParamsFixtures.lua()
        let r = try Host.run(["navigate", "home", "--project", p.path, "--user", "gold", "--steps", "item:42,item:8,back,back,item:7", "--format", "json"])
        assertExit(r, 0)
        let steps = try r.jsonObject()["steps"] as? [[String: Any]] ?? []
        func topParams(_ i: Int) -> [String: String]? {
            ((steps[i]["stack"] as? [[String: Any]])?.last?["params"]) as? [String: String]
        }
        XCTAssertEqual(steps.count, 5, r.transcript)
        XCTAssertEqual(topParams(0), ["id": "42"])
        // ctx.params: the flow reads the parameters of the screen the step comes from.
        XCTAssertEqual(topParams(1), ["id": "8", "from": "42"])
        XCTAssertEqual(topParams(4), ["id": "7"])
    }

    func testGraphEdgesCarryTheirExampleParams() throws {
        let p = try ParamsFixtures.declarative()
        let r = try Host.run(["graph", "home", "--project", p.path, "--user", "gold", "--format", "json"])
        assertExit(r, 0)
        let json = try r.jsonObject()
        let edges = json["edges"] as? [[String: Any]] ?? []
        let item = edges.first { $0["step"] as? String == "item" && $0["from"] as? String == "home" }
        XCTAssertEqual(item?["params"] as? [String: String], ["id": "42"], r.stdout)
        let links = json["links"] as? [[String: Any]] ?? []
        XCTAssertEqual(links.first?["link"] as? String, "app://item/{id}", r.stdout)
        XCTAssertEqual(links.first?["to"] as? String, "item", r.stdout)
    }

    func testScenariosOpenWithParamsAndTapsCarryThem() throws {
        let p = try ParamsFixtures.lua()
        try Host.write(["scenarios/params.lua": """
            scenario("two items, two titles", function(t)
              local s = t:open("home", { user = "free" })
              s:tap("item:42")
              s:expect_prop("title", "text", "Item 42")
              s:expect_visible("only42")
              expect_eq(s:params(), { id = "42" })
              s:back()
              s:tap("item:7")
              s:expect_prop("title", "text", "Item 7")
              s:expect_hidden("only42")
            end)

            scenario("opened with params", function(t)
              local s = t:open("item", { user = "gold", params = { id = "9" } })
              s:expect_prop("bound", "text", "9")
            end)

            scenario("params must be strings", function(t)
              local ok, err = pcall(function() t:open("item", { params = { id = {} } }) end)
              expect_eq(ok, false)
              expect(tostring(err):find("options.params.id must be a string", 1, true) ~= nil, tostring(err))
            end)
            """], under: p)
        let r = try Host.run(["test", "--project", p.path])
        assertExit(r, 0)
        assertContains(r.stdout, "3 passed, 0 failed", in: r)
    }

    func testTheViewStateCacheKeysOnParams() throws {
        let p = try ParamsFixtures.lua()
        let base = ["run", "item", "--project", p.path, "--user", "gold", "--cache-key", "item", "--explain", "--no-graph"]
        assertExit(try Host.run(base + ["--param", "id=42"]), 0)
        let hit = try Host.run(base + ["--param", "id=42"])
        assertContains(hit.stderr, "served from the view-state cache", in: hit, "stderr")
        let other = try Host.run(base + ["--param", "id=7"])
        assertContains(other.stderr, "view-state cache miss", in: other, "stderr")
        assertContains(other.stdout, "Item 7", in: other)
    }

    func testOneWorkspaceNeverReusesATreeAcrossParams() throws {
        // A scenario resolves the same screen for several params in one process: the caches
        // (resolver trees, singles, the engine's built singles) must not leak across them.
        let p = try ParamsFixtures.lua()
        try Host.write(["scenarios/cache.lua": """
            scenario("alternating params", function(t)
              for _, id in ipairs({ "1", "2", "1", "3", "2" }) do
                local s = t:open("item", { user = "gold", params = { id = id } })
                s:expect_prop("title", "text", "Item " .. id)
                s:expect_prop("bound", "text", id)
              end
            end)
            """], under: p)
        let r = try Host.run(["test", "--project", p.path])
        assertExit(r, 0)
    }

    func testAnItemBindingAParameterIsALocatedErrorAndHidden() throws {
        let p = try Host.temporaryFolder("params-item")
        try Host.write(["screens/s.json": #"{"screen": "s", "root": {"type": "list", "id": "l", "items": [{"title": "A", "meta": {"x": {"$param": "id"}}}, {"title": "B"}]}}"#], under: p)
        let r = try Host.run(["run", p.appendingPathComponent("screens/s.json").path, "--param", "id=3", "--format", "json"])
        assertExit(r, 1)
        assertContains(r.stderr, "s.json:1:86: error: {\"$param\": …} is bound in a component's meta, not an item's: move it to the meta of 'l'", in: r)
        XCTAssertFalse(r.stdout.contains("\"A\""), "the item fails closed\n\(r.transcript)")
    }
}
