import Foundation
import XCTest

/// `host run` on the sample app: what gold and free members see, as text and JSON, explained, with
/// profiles and context overrides.
final class RunCommandTests: XCTestCase {
    func runHome(_ extra: [String], file: StaticString = #filePath, line: UInt = #line) throws -> HostResult {
        try Host.run(["run", Host.homeScreen] + extra, file: file, line: line)
    }

    // MARK: text

    /// A profile typed but not finished gets the one profile it begins, with the list (issue 37:
    /// `--user new_oslo` listed the profiles but did not suggest `new_oslo_lunch`).
    func testAnUnfinishedProfileNameGetsADidYouMean() throws {
        let r = try runHome(["--user", "gold_at"])
        assertExit(r, 1)
        assertContains(r.stderr, "unknown user 'gold_at'; did you mean 'gold_at_risk'?; known profiles: 'gold', 'free', 'guest', 'gold_at_risk'", in: r)
        let two = try runHome(["--user", "go"])
        assertExit(two, 1)
        assertLacks(two.stderr, "did you mean", in: two, "stderr (the beginning of two profiles)")
    }

    func testGoldSeesThePremiumTabAndNoUpsell() throws {
        let r = try runHome(["--user", "gold"])
        assertExit(r, 0)
        assertContains(r.stdout, "premium_tab", in: r, "stdout")
        assertContains(r.stdout, "premium_lounge", in: r, "stdout")
        assertLacks(r.stdout, "upsell_banner", in: r, "stdout")
        assertLacks(r.stderr, "error:", in: r, "stderr")
        // The tree comes first, then the navigation graph.
        XCTAssertTrue(r.stdout.hasPrefix("screen home"), r.transcript)
        assertContains(r.stdout, "navigation from home", in: r, "stdout")
    }

    func testFreeSeesTheUpsellAndNoPremiumTab() throws {
        let r = try runHome(["--user", "free"])
        assertExit(r, 0)
        assertContains(r.stdout, "upsell_banner", in: r, "stdout")
        assertLacks(r.stdout, "premium_tab", in: r, "stdout")
        // Arrival needs app_version 5.2.0; free runs 5.1.0.
        assertLacks(r.stdout, "Arrival", in: r, "stdout")
        assertContains(r.stdout, "Alien", in: r, "stdout")
    }

    func testGoldAndFreeDiffer() throws {
        let gold = try runHome(["--user", "gold"]), free = try runHome(["--user", "free"])
        assertExit(gold, 0)
        assertExit(free, 0)
        // docs/examples/movies/README.md: gold sees the premium tab and no upsell; free (5.1.0, not
        // gold) sees the upsell and neither the premium tab nor Arrival; both get the rollout
        // (ids 174 and 499) and the Nordic offer (NO, SE).
        let shared: Set<String> = ["tabs", "watched_tab", "watched_stack", "watched", "new_recommendations", "wishlist_tab", "wishlist",
                                   "settings_tab", "settings_stack", "open_settings", "nordic_offer"]
        let goldJSON = try runHome(["--user", "gold", "--format", "json"]), freeJSON = try runHome(["--user", "free", "--format", "json"])
        XCTAssertEqual(TreeJSON.ids(try goldJSON.jsonObject()["tree"]), shared.union(["premium_tab", "premium_greeting", "premium_lounge"]), goldJSON.transcript)
        XCTAssertEqual(TreeJSON.ids(try freeJSON.jsonObject()["tree"]), shared.union(["upsell_banner"]), freeJSON.transcript)
        // The items' actions: Alien, Heat, (no Arrival), Aliens, Prometheus, Dune: Part Two, Blade Runner 2049.
        XCTAssertEqual(TreeJSON.items(try freeJSON.jsonObject()["tree"]).compactMap { $0["action"] as? String },
                       ["movie:42", "movie:949", "movie:679", "movie:70981", "movie:693134", "movie:335984"], freeJSON.transcript)
        assertContains(gold.stdout, "premium_tab", in: gold, "stdout")
        assertLacks(free.stdout, "premium_tab", in: free, "stdout")
    }

    func testOutputIsDeterministic() throws {
        for extra in [["--user", "gold"], ["--user", "free", "--explain"], ["--user", "gold", "--format", "json"],
                      ["--user", "guest", "--format", "json", "--explain"]] {
            let a = try runHome(extra), b = try runHome(extra)
            assertExit(a, 0)
            XCTAssertFalse(a.stdoutData.isEmpty, a.transcript)
            XCTAssertEqual(a.stdoutData, b.stdoutData, "two runs of \(extra) differ\n--- first\n\(a.stdout)\n--- second\n\(b.stdout)")
            XCTAssertEqual(a.stderrData, b.stderrData, "two runs of \(extra) differ on stderr")
        }
    }

    func testNoGraph() throws {
        let r = try runHome(["--user", "gold", "--no-graph"])
        assertExit(r, 0)
        assertContains(r.stdout, "premium_tab", in: r, "stdout")
        assertLacks(r.stdout, "navigation from", in: r, "stdout")
    }

    func testScreenByIDWithProject() throws {
        let byID = try Host.run(["run", "home", "--project", Host.moviesProject, "--user", "gold", "--no-graph"])
        let byFile = try runHome(["--user", "gold", "--no-graph"])
        assertExit(byID, 0)
        XCTAssertEqual(byID.stdout, byFile.stdout, "a screen id and its file resolve differently")
    }

    /// A folder named like a screen id in the current folder is not taken for the screen: the id
    /// is looked up (by run, eval and check alike), and a folder that names no screen says so.
    func testAFolderNamedLikeAScreenIDIsNotTheScreen() throws {
        let cwd = try Host.temporaryFolder("screen-folder")
        try FileManager.default.createDirectory(at: cwd.appendingPathComponent("home"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: cwd.appendingPathComponent("nothing"), withIntermediateDirectories: true)
        let project = FileManager.default.currentDirectoryPath + "/" + Host.moviesProject
        let byID = try Host.run(["run", "home", "--project", project, "--user", "gold", "--no-graph"], directory: cwd)
        assertExit(byID, 0)
        let byFile = try runHome(["--user", "gold", "--no-graph"])
        XCTAssertEqual(byID.stdout, byFile.stdout, byID.transcript)
        let eval = try Host.run(["eval", "home", "--project", project, "--users", project + "/users.json"], directory: cwd)
        assertExit(eval, 0)
        XCTAssertEqual(eval.stdoutLines.filter { !$0.isEmpty }.count, 4, eval.transcript)
        let none = try Host.run(["run", "nothing", "--project", project, "--user", "gold"], directory: cwd)
        assertExit(none, 1)
        assertContains(none.stderr, "no screen 'nothing': a folder, not a screen file, and no screen with that id in", in: none, "stderr")
    }

    func testUnknownScreenIsAnError() throws {
        let r = try Host.run(["run", "no_such_screen", "--project", Host.moviesProject, "--user", "gold"])
        assertExit(r, 1)
        assertContains(r.stderr, "no_such_screen", in: r, "stderr")
        assertContains(r.stderr, "error:", in: r, "stderr")
    }

    // MARK: JSON

    func testJSONShape() throws {
        let r = try runHome(["--user", "gold", "--format", "json"])
        assertExit(r, 0)
        let o = try r.jsonObject()
        XCTAssertEqual(Set(o.keys), ["screen", "user", "tree", "graph", "diagnostics"], r.transcript)
        XCTAssertEqual(o["screen"] as? String, "home")

        let user = try XCTUnwrap(o["user"] as? [String: Any], r.transcript)
        XCTAssertEqual(Set(user.keys), ["name", "attributes"])
        XCTAssertEqual(user["name"] as? String, "gold")
        let attributes = try XCTUnwrap(user["attributes"] as? [String: Any])
        XCTAssertEqual(attributes["tier"] as? String, "gold")
        XCTAssertEqual(attributes["id"] as? String, "174")

        let nodes = TreeJSON.components(o["tree"])
        // home.json's 15 components but the upsell banner (NOT(is_gold_member)).
        XCTAssertEqual(nodes.count, 14, "gold's tree\n\(r.transcript)")
        for n in nodes {
            XCTAssertTrue(n["type"] is String, "a tree node without a type: \(n)")
            XCTAssertTrue(n["view"] is String, "a tree node without a view: \(n)")
            XCTAssertTrue(n["props"] is [String: Any], "a tree node without props: \(n)")
            XCTAssertNil(n["hidden"], "a hidden node outside --explain: \(n)")
        }
        let items = TreeJSON.items(o["tree"])
        // Every item of home.json: gold runs 5.3.0, so Arrival (at_least 5.2.0) is shown.
        // (Alien, Heat, Arrival, Aliens, Prometheus, Dune: Part Two, Blade Runner 2049 by their actions.)
        XCTAssertEqual(items.compactMap { $0["action"] as? String },
                       ["movie:42", "movie:949", "movie:329865", "movie:679", "movie:70981", "movie:693134", "movie:335984"], r.transcript)
        for i in items {
            XCTAssertTrue(i["view"] is String, "an item without a view: \(i)")
            XCTAssertTrue(i["props"] is [String: Any], "an item without props: \(i)")
            XCTAssertNil(i["hidden"], "a hidden item outside --explain: \(i)")
        }
        let ids = TreeJSON.ids(o["tree"])
        XCTAssertTrue(ids.contains("premium_tab"), "gold's tree lacks premium_tab: \(ids.sorted())")
        XCTAssertFalse(ids.contains("upsell_banner"), "gold's tree shows the hidden upsell_banner")
        let root = try XCTUnwrap(o["tree"] as? [String: Any])
        XCTAssertEqual(root["type"] as? String, "tab_bar")
        XCTAssertEqual(root["id"] as? String, "tabs")
        XCTAssertEqual(root["view"] as? String, "TabBarController")

        let graph = try XCTUnwrap(o["graph"] as? [String: Any], r.transcript)
        for key in ["entry", "nodes", "edges", "findings"] {
            XCTAssertNotNil(graph[key], "graph lacks \(key): \(graph.keys.sorted())")
        }
        XCTAssertEqual(graph["entry"] as? String, "home")
        XCTAssertTrue(graph["nodes"] is [Any])
        XCTAssertTrue(graph["edges"] is [Any])
        XCTAssertTrue(graph["findings"] is [Any])
        XCTAssertTrue(o["diagnostics"] is [Any])
    }

    func testJSONHidesWhatFreeCannotSee() throws {
        let r = try runHome(["--user", "free", "--format", "json"])
        assertExit(r, 0)
        let o = try r.jsonObject()
        let ids = TreeJSON.ids(o["tree"])
        XCTAssertTrue(ids.contains("upsell_banner"), "free's tree lacks upsell_banner: \(ids.sorted())")
        XCTAssertFalse(ids.contains("premium_tab"), "free's tree shows the hidden premium_tab")
        XCTAssertFalse(ids.contains("premium_greeting"), "free's tree shows a child of the hidden premium_tab")
        let titles = TreeJSON.items(o["tree"]).compactMap { ($0["props"] as? [String: Any])?["title"] as? String }
        XCTAssertTrue(titles.contains("Alien"), "\(titles)")
        XCTAssertFalse(titles.contains("Arrival"), "the hidden item Arrival appears: \(titles)")
    }

    func testRulesShapeTheGraph() throws {
        let gold = try runHome(["--user", "gold", "--format", "json"]).jsonObject()
        let free = try runHome(["--user", "free", "--format", "json"]).jsonObject()
        let goldSteps = TreeJSON.edgeSteps(gold["graph"]), freeSteps = TreeJSON.edgeSteps(free["graph"])
        XCTAssertTrue(goldSteps.contains("premium"), "gold's graph lacks the premium step: \(goldSteps.sorted())")
        XCTAssertFalse(freeSteps.contains("premium"), "free's graph has the premium step: \(freeSteps.sorted())")
        XCTAssertTrue(freeSteps.contains("upgrade"), "free's graph lacks the upgrade step: \(freeSteps.sorted())")
        XCTAssertTrue(goldSteps.contains("movie") && freeSteps.contains("movie"))
    }

    func testNoGraphInJSONIsNull() throws {
        let r = try runHome(["--user", "gold", "--format", "json", "--no-graph"])
        assertExit(r, 0)
        let o = try r.jsonObject()
        XCTAssertTrue(o["graph"] is NSNull, "graph is \(String(describing: o["graph"]))")
    }

    // MARK: --explain

    func testExplainShowsHiddenComponentsWithReasonAndRuleValues() throws {
        let gold = try runHome(["--user", "gold", "--explain", "--no-graph"])
        assertExit(gold, 0)
        let upsell = lines(of: gold.stdout, matching: "#upsell_banner")
        XCTAssertEqual(upsell.count, 1, gold.transcript)
        XCTAssertTrue(upsell.first?.contains("hidden") == true, "upsell_banner is not marked hidden: \(upsell)")
        XCTAssertTrue(upsell.first?.contains("NOT(is_gold_member)") == true, "no reason: \(upsell)")
        XCTAssertTrue(upsell.first?.contains("false") == true, "no rule value: \(upsell)")
        assertMatches(gold.stdout, #"is_gold_member = true"#, in: gold, "stdout")
        assertMatches(gold.stdout, #"#premium_tab.*AND\(is_gold_member, NOT\(is_churn_risk\)\) = true"#, in: gold, "stdout")
        assertMatches(gold.stdout, #"is_churn_risk = false"#, in: gold, "stdout")
        // Without --explain the hidden component is absent.
        let plain = try runHome(["--user", "gold", "--no-graph"])
        assertLacks(plain.stdout, "hidden", in: plain, "stdout")

        let free = try runHome(["--user", "free", "--explain", "--no-graph"])
        assertExit(free, 0)
        let premium = lines(of: free.stdout, matching: "#premium_tab")
        XCTAssertEqual(premium.count, 1, free.transcript)
        XCTAssertTrue(premium.first?.contains("hidden") == true, "premium_tab is not marked hidden for free: \(premium)")
        // AND short-circuits on is_gold_member = false: NOT(is_churn_risk) is shown as skipped.
        assertMatches(free.stdout, #"is_gold_member = false"#, in: free, "stdout")
        assertMatches(free.stdout, #"NOT\(is_churn_risk\) = skipped"#, in: free, "stdout")
        // A hidden item is shown too.
        assertMatches(free.stdout, #"Arrival.*hidden.*at_least"#, in: free, "stdout")
    }

    func testExplainJSONMarksHiddenNodes() throws {
        let r = try runHome(["--user", "gold", "--explain", "--format", "json", "--no-graph"])
        assertExit(r, 0)
        let o = try r.jsonObject()
        let nodes = TreeJSON.components(o["tree"])
        let upsell = try XCTUnwrap(nodes.first { $0["id"] as? String == "upsell_banner" }, "upsell_banner absent under --explain")
        XCTAssertEqual(upsell["hidden"] as? Bool, true, "\(upsell)")
        XCTAssertFalse((upsell["reason"] as? String ?? "").isEmpty, "no reason: \(upsell)")
        let rule = try XCTUnwrap(upsell["rule"] as? [String: Any], "\(upsell)")
        XCTAssertEqual(rule["value"] as? Bool, false, "\(rule)")
        XCTAssertEqual(rule["expression"] as? String, "NOT(is_gold_member)")
        let premium = try XCTUnwrap(nodes.first { $0["id"] as? String == "premium_tab" })
        XCTAssertNil(premium["hidden"], "\(premium)")
        let premiumRule = try XCTUnwrap(premium["rule"] as? [String: Any], "\(premium)")
        XCTAssertEqual(premiumRule["expression"] as? String, "AND(is_gold_member, NOT(is_churn_risk))")
        XCTAssertEqual(premiumRule["value"] as? Bool, true, "\(premiumRule)")
    }

    // MARK: users and context

    func testUnknownUserListsKnownProfiles() throws {
        let r = try runHome(["--user", "nobody"])
        assertExit(r, 1)
        assertContains(r.stderr, "nobody", in: r, "stderr")
        assertContains(r.stderr, "error:", in: r, "stderr")
        let usersFile = Host.repoRoot.appendingPathComponent("docs/examples/movies/users.json")
        let users = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: usersFile)) as? [String: Any])
        XCTAssertGreaterThanOrEqual(users.count, 2)
        for name in users.keys { assertContains(r.stderr, "'\(name)'", in: r, "stderr") }
        assertLacks(r.stdout, "premium_tab", in: r, "stdout")
    }

    func testUnknownUserDidYouMean() throws {
        let r = try runHome(["--user", "gol"])
        assertExit(r, 1)
        assertContains(r.stderr, "did you mean 'gold'", in: r, "stderr")
    }

    /// Issue 37: `--device iphone-16` suggested `iphone-11`; equally close names break the tie
    /// by the longest common prefix, then by the catalog's order (`host devices`).
    func testDeviceTypoSuggestsTheCatalogsFirstOfTheClosest() throws {
        let r = try runHome(["--user", "gold", "--device", "iphone-16"])
        assertExit(r, 64)
        assertContains(r.stderr, "unknown device 'iphone-16'; did you mean 'iphone-15'?", in: r, "stderr")
        let se = try runHome(["--user", "gold", "--device", "iphone-se-2nd"])
        assertContains(se.stderr, "did you mean 'iphone-se-1st'?", in: se, "stderr")
    }

    func testContextOverridesAProfileAttribute() throws {
        let r = try runHome(["--context", "tier=gold", "--user", "free", "--no-graph"])
        assertExit(r, 0)
        assertContains(r.stdout, "premium_tab", in: r, "stdout")
        assertLacks(r.stdout, "upsell_banner", in: r, "stdout")
        let j = try runHome(["--user", "free", "--context", "tier=gold", "--format", "json", "--no-graph"]).jsonObject()
        let attributes = try XCTUnwrap((j["user"] as? [String: Any])?["attributes"] as? [String: Any])
        XCTAssertEqual(attributes["tier"] as? String, "gold", "a VALUE that is not JSON is a string: \(attributes)")
        XCTAssertEqual(attributes["id"] as? String, "499", "the rest of the profile stays: \(attributes)")
        XCTAssertEqual((j["user"] as? [String: Any])?["name"] as? String, "free")
    }

    func testContextValueIsReadAsJSON() throws {
        // churn_score 0.95 (a number) makes gold a churn risk: no premium tab.
        let r = try runHome(["--user", "gold", "--context", "churn_score=0.95", "--no-graph"])
        assertExit(r, 0)
        assertLacks(r.stdout, "premium_tab", in: r, "stdout")
        let j = try runHome(["--user", "gold", "--context", "churn_score=0.95", "--format", "json", "--no-graph"]).jsonObject()
        let attributes = try XCTUnwrap((j["user"] as? [String: Any])?["attributes"] as? [String: Any])
        XCTAssertTrue(attributes["churn_score"] is NSNumber && !(attributes["churn_score"] is String),
                      "churn_score should be a number: \(String(describing: attributes["churn_score"]))")
        XCTAssertEqual((attributes["churn_score"] as? NSNumber)?.doubleValue ?? 0, 0.95, accuracy: 1e-9)
        // A JSON string stays a string: "0.95" does not make a churn risk.
        let s = try runHome(["--user", "gold", "--context", #"churn_score="0.95""#, "--no-graph"])
        assertExit(s, 0)
        assertContains(s.stdout, "premium_tab", in: s, "stdout")
    }

    func testContextWithoutAProfile() throws {
        let r = try runHome(["--context", "tier=gold", "--context", "churn_score=0.1", "--no-graph"])
        assertExit(r, 0)
        assertContains(r.stdout, "premium_tab", in: r, "stdout")
    }
}
