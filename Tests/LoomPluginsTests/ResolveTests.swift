import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins
import LoomWorkspace
import XCTest

/// End-to-end resolution through real plugins: the sample app, fail-closed errors, the compat files.
final class ResolveTests: XCTestCase {
    static let repo: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let movies = repo + "/docs/examples/movies"

    func workspace(project: String, plugins: [String] = []) throws -> Workspace {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = project
        o.extraPluginDirs = plugins
        o.standardPlugins = ResolveTests.repo + "/Plugins"
        return try Workspace(options: o)
    }

    func resolve(_ ws: Workspace, _ file: String, user: String?, explain: Bool = false, now: String? = nil) throws -> (Resolution, Diagnostics) {
        let loaded = ws.screen(file: file)
        let (screen, d, check) = (loaded.screen, loaded.diagnostics, loaded.check)
        let s = try XCTUnwrap(screen, "\(d.items)")
        let profile = try ws.users.user(named: user, context: [], now: now).get()
        let r = ws.resolve(s, check: check!, user: profile, explain: explain)
        var all = d
        all.append(contentsOf: r.diagnostics)
        return (r, all)
    }

    func ids(_ r: Resolution) -> Set<String> {
        var out = Set<String>()
        r.tree?.walk { n in if !n.hidden, let id = n.id { out.insert(id) } }
        return out
    }

    func testGoldAndFreeSeeDifferentHomeScreens() throws {
        let ws = try workspace(project: Self.movies)
        XCTAssertFalse(ws.loadDiagnostics.hasErrors, "\(ws.loadDiagnostics.items)")
        let home = Self.movies + "/screens/home.json"
        let (gold, gd) = try resolve(ws, home, user: "gold")
        let (free, fd) = try resolve(ws, home, user: "free")
        XCTAssertFalse(gd.hasErrors, "\(gd.items)")
        XCTAssertFalse(fd.hasErrors, "\(fd.items)")
        XCTAssertTrue(ids(gold).contains("premium_tab"))
        XCTAssertFalse(ids(gold).contains("upsell_banner"))
        XCTAssertFalse(ids(free).contains("premium_tab"))
        XCTAssertTrue(ids(free).contains("upsell_banner"))
        // The app-version rule hides Arrival from free (5.1.0 < 5.2.0).
        XCTAssertTrue(gold.actions.contains { $0.action == "movie:329865" })
        XCTAssertFalse(free.actions.contains { $0.action == "movie:329865" })
        // Guests have no id: the rollout is false for them.
        let (guest, _) = try resolve(ws, home, user: "guest")
        XCTAssertFalse(ids(guest).contains("new_recommendations"))
        // A gold member at churn risk loses the premium tab (AND / NOT).
        let (risk, _) = try resolve(ws, home, user: "gold_at_risk")
        XCTAssertFalse(ids(risk).contains("premium_tab"))
    }

    func testJSONOutputHoldsOnlyVisibleComponentsAndIsDeterministic() throws {
        let ws = try workspace(project: Self.movies)
        let (free, _) = try resolve(ws, Self.movies + "/screens/home.json", user: "free")
        let a = TreeOutput.json(free.tree!).serialized(pretty: true)
        XCTAssertFalse(a.contains("premium_tab"))
        XCTAssertFalse(a.contains("\"rule\""), "rule traces appear only with --explain")
        XCTAssertTrue(a.contains("\"view\": \"TabBarController\""))
        let (again, _) = try resolve(ws, Self.movies + "/screens/home.json", user: "free")
        XCTAssertEqual(a, TreeOutput.json(again.tree!).serialized(pretty: true))
    }

    func testExplainShowsHiddenComponentsAndShortCircuit() throws {
        let ws = try workspace(project: Self.movies)
        let (free, _) = try resolve(ws, Self.movies + "/screens/home.json", user: "free", explain: true)
        var premium: ResolvedNode?
        free.tree?.walk { if $0.id == "premium_tab" { premium = $0 } }
        let p = try XCTUnwrap(premium)
        XCTAssertTrue(p.hidden)
        let trace = try XCTUnwrap(p.rule)
        XCTAssertEqual(trace.value, false)
        XCTAssertEqual(trace.children.first?.value, false)  // is_gold_member
        XCTAssertEqual(trace.children.last?.skipped, true)  // NOT is_churn_risk skipped
        XCTAssertTrue(p.hiddenReason?.contains("is false") ?? false)
    }

    func scratchProject(_ screen: String, plugin: String? = nil) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-resolve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/screens", withIntermediateDirectories: true)
        try screen.write(toFile: dir + "/screens/s.json", atomically: true, encoding: .utf8)
        try #"{"gold": {"id": "1", "tier": "gold"}}"#.write(toFile: dir + "/users.json", atomically: true, encoding: .utf8)
        if let plugin {
            try FileManager.default.createDirectory(atPath: dir + "/plugins/p", withIntermediateDirectories: true)
            try plugin.write(toFile: dir + "/plugins/p/plugin.lua", atomically: true, encoding: .utf8)
        }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    func testTypoInRuleNameFailsClosedWithLocationAndDidYouMean() throws {
        let screen = """
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "label", "id": "secret", "meta": {"text": "x"}, "rule": "is_gold_membr"},
              {"type": "label", "id": "public", "meta": {"text": "y"}}]}}
            """
        let plugin = #"return {name = "p", version = "1", api = 1, register = function(host) host.rule("is_gold_member", function(u) return true end) end}"#
        let dir = try scratchProject(screen, plugin: plugin)
        let ws = try workspace(project: dir)
        let (r, d) = try resolve(ws, dir + "/screens/s.json", user: "gold")
        let err = try XCTUnwrap(d.errors.first { $0.message.contains("is_gold_membr") })
        XCTAssertEqual(err.location?.line, 2)
        XCTAssertEqual(err.location?.column, 68)
        XCTAssertTrue(err.message.contains("did you mean 'is_gold_member'"), err.message)
        XCTAssertFalse(ids(r).contains("secret"))
        XCTAssertTrue(ids(r).contains("public"))
    }

    func testStaticErrorsAreReportedTogether() throws {
        let screen = """
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "lable", "id": "a"},
              {"type": "label", "id": "a"},
              {"type": "stack", "meta": {"spacing": "wide"}},
              {"type": "navigation", "children": []},
              {"type": "label", "rule": {"rollout": {"percent": "abc", "group": "g"}}},
              {"type": "label", "rule": {"AND": "x"}}]}}
            """
        let dir = try scratchProject(screen)
        let ws = try workspace(project: dir)
        let (r, d) = try resolve(ws, dir + "/screens/s.json", user: "gold")
        let messages = d.errors.map { "\($0.location?.line ?? 0): \($0.message)" }.joined(separator: "\n")
        XCTAssertTrue(messages.contains("2: unknown component type 'lable'; did you mean 'label'"), messages)
        XCTAssertTrue(messages.contains("3: duplicate id 'a'"), messages)
        XCTAssertTrue(messages.contains("4: meta 'spacing' of 'stack' must be a number"), messages)
        XCTAssertTrue(messages.contains("5: 'navigation' is a wrapper and takes exactly one child, found 0"), messages)
        XCTAssertTrue(messages.contains("6: rule 'rollout'"), messages)
        XCTAssertTrue(messages.contains("7: 'AND' takes a list of rules"), messages)
        // Only the root stack is shown: every broken child is dropped.
        XCTAssertEqual(r.tree?.children.count, 0)
    }

    func testRuleRaisingOrReturningNonBooleanHidesItsComponent() throws {
        let screen = """
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "label", "id": "boom", "rule": "boom"},
              {"type": "label", "id": "str", "rule": "returns_string"},
              {"type": "label", "id": "ok", "rule": "yes"}]}}
            """
        let plugin = """
            return {name = "p", version = "1", api = 1, register = function(host)
              host.rule("boom", function() error("kaput") end)
              host.rule("returns_string", function() return "yes" end)
              host.rule("yes", function() return true end)
            end}
            """
        let dir = try scratchProject(screen, plugin: plugin)
        let ws = try workspace(project: dir)
        let (r, d) = try resolve(ws, dir + "/screens/s.json", user: "gold")
        XCTAssertEqual(ids(r), ["ok"])
        XCTAssertTrue(d.errors.contains { $0.message.contains("kaput") && $0.message.contains("plugin p") }, "\(d.items)")
        XCTAssertTrue(d.errors.contains { $0.message.contains("returned a string, expected a boolean") }, "\(d.items)")
    }

    func testLargeScreenResolvesWithinTheDefaultPluginMemoryCap() throws {
        // The host's own tables (one per component) do not count against the plugins' cap: a
        // screen of 20,000 components resolves under the default 64 MiB.
        let labels = (0..<20_000).map { #"{"type": "label", "id": "l\#($0)", "meta": {"text": "x"}}"# }
        let screen = #"{"screen": "s", "root": {"type": "stack", "children": [\#(labels.joined(separator: ","))]}}"#
        let dir = try scratchProject(screen)
        let ws = try workspace(project: dir)
        let (r, d) = try resolve(ws, dir + "/screens/s.json", user: "gold")
        XCTAssertFalse(d.hasErrors, "\(d.errors.prefix(3))")
        XCTAssertEqual(r.tree?.children.count, 20_000)
        XCTAssertLessThanOrEqual(ws.engine.state.memoryUsed, 1 << 30)
    }

    func testTreeCacheGivesTheSameResultsAndReportsEveryTime() throws {
        let screen = """
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "label", "id": "gold_only", "meta": {"text": "g"}, "rule": "is_gold"},
              {"type": "label", "id": "boom", "rule": "boom"},
              {"type": "broken", "id": "broken"}]}}
            """
        let plugin = """
            return {name = "p", version = "1", api = 1, register = function(host)
              host.rule("is_gold", function(u) return u.tier == "gold" end)
              host.rule("boom", function() error("kaput") end)
              host.single("broken", function() return { props = {} } end)
            end}
            """
        let dir = try scratchProject(screen, plugin: plugin)
        try #"{"gold": {"tier": "gold"}, "free": {"tier": "free"}}"#.write(toFile: dir + "/users.json", atomically: true, encoding: .utf8)
        let ws = try workspace(project: dir)
        func run(_ user: String) throws -> (String, [String]) {
            let (r, d) = try resolve(ws, dir + "/screens/s.json", user: user)
            return (TreeOutput.json(r.tree!).serialized(), d.errors.map(\.message))
        }
        let gold1 = try run("gold"), free1 = try run("free"), gold2 = try run("gold"), free2 = try run("free")
        XCTAssertEqual(gold1.0, gold2.0)
        XCTAssertEqual(free1.0, free2.0)
        // gold sees gold_only; boom (its rule fails) and broken (its builder fails) are hidden for both.
        XCTAssertEqual(ids(try resolve(ws, dir + "/screens/s.json", user: "gold").0), ["gold_only"])
        XCTAssertEqual(ids(try resolve(ws, dir + "/screens/s.json", user: "free").0), [])
        XCTAssertTrue(gold1.0.contains("gold_only"))
        XCTAssertFalse(free1.0.contains("gold_only"))
        // The rule error and the builder error are reported on every resolution, cached or not.
        for errors in [gold1.1, free1.1, gold2.1, free2.1] {
            XCTAssertTrue(errors.contains { $0.contains("kaput") }, "\(errors)")
            XCTAssertTrue(errors.contains { $0.contains("'view' must be a non-empty string") }, "\(errors)")
        }
        // --explain bypasses the cache and still shows the hidden components.
        let (explained, _) = try resolve(ws, dir + "/screens/s.json", user: "free", explain: true)
        XCTAssertTrue(TreeOutput.json(explained.tree!, explain: true).serialized().contains("\"hidden\""))
    }

    func testBuilderMayReturnTheReadOnlyTablesItWasGiven() throws {
        let screen = #"{"screen": "s", "root": {"type": "echo", "meta": {"b": 1, "a": {"z": [1, 2], "y": "x"}}}}"#
        let plugin = #"return {name = "p", version = "1", api = 1, register = function(host) host.single("echo", function(node) return { view = "Echo", props = node.meta } end, { open_meta = true }) end}"#
        let dir = try scratchProject(screen, plugin: plugin)
        let ws = try workspace(project: dir)
        let (r, d) = try resolve(ws, dir + "/screens/s.json", user: "gold")
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        XCTAssertEqual(r.tree?.props.serialized(pretty: false), #"{"b":1,"a":{"z":[1,2],"y":"x"}}"#, "the order of the file, kept on the way out")
    }

    func testLuaFlowsDecodeLikeFlowsJSON() throws {
        let screen = #"{"screen": "s", "root": {"type": "label", "meta": {"text": "x"}}}"#
        let plugin = """
            return {name = "p", version = "1", api = 1, register = function(host)
              host.flow("main", { presentation = "stack", start = "s", navigate = function(step, nav)
                if step.name == "a" then return nav.push("s", { id = step.param }) end
                if step.name == "b" then return { nav.flow("main", "a:1"), nav.parent(step), nav.finish() } end
                if step.name == "raw" then return { present = "s" } end
                return { pusj = "s" }
              end })
            end}
            """
        let dir = try scratchProject(screen, plugin: plugin)
        let ws = try workspace(project: dir)
        let nav = try XCTUnwrap(ws.flows().0["main"]).navigator
        XCTAssertEqual(try nav.navigate(Step("a", param: "7")).get(), [.push("s", params: ["id": "7"])])
        XCTAssertEqual(try nav.navigate(Step("b", param: "2")).get(),
                       [.flow("main", step: Step("a", param: "1")), .parent(Step("b", param: "2")), .finish(step: nil)])
        XCTAssertEqual(try nav.navigate(Step("raw")).get(), [.present("s", params: [:])])
        guard case .failure(let d) = nav.navigate(Step("zzz")) else { return XCTFail("a bad contribution must fail") }
        XCTAssertTrue(d.message.contains("flow 'main'") && d.message.contains("did you mean 'push'"), d.message)
    }

    // MARK: compat files (skipped when ../shared/compat is absent)

    var compat: String { ResolveTests.repo + "/../shared/compat" }

    func compatWorkspace() throws -> Workspace {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: compat), "../shared/compat is absent")
        return try workspace(project: FileManager.default.temporaryDirectory.path, plugins: [ResolveTests.repo + "/Tests/Fixtures/compat-plugin"])
    }

    func testMatrioskaAppStructureResolvesWithAxisWarning() throws {
        let ws = try compatWorkspace()
        let (r, d) = try resolve(ws, compat + "/matrioska/app_structure.json", user: nil)
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        XCTAssertTrue(d.warnings.contains { $0.message.contains("'axis'") && $0.message.contains("did you mean 'orientation'") })
        XCTAssertEqual(r.tree?.view, "TabBarController")
        var tiles = 0
        r.tree?.walk { if $0.type == "tile" { tiles += 1 } }
        XCTAssertEqual(tiles, 4)
    }

    /// Matrioska's own test asset gives its tabs localized-string titles (`{"key": …, "type":
    /// "localized_string"}`). Matrioska's `TabConfig` read them `as? String` and dropped the tabs;
    /// Loom resolves Matrioska's localized strings (issue 42, docs/localization.md), so the tabs
    /// are kept with the key as `title_key` (this project has no strings), and the misspelt
    /// `iconName` is still a located warning.
    func testMatrioskaTestAssetKeepsLocalizedTabTitlesWithLocatedDiagnostics() throws {
        let ws = try compatWorkspace()
        let (r, d) = try resolve(ws, compat + "/matrioska/tests_app_structure.json", user: nil)
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        XCTAssertTrue(d.warnings.contains { $0.location?.line == 35 && $0.message.contains("'iconName'") && $0.message.contains("did you mean 'icon_name'") }, "\(d.items)")
        XCTAssertEqual(r.tree?.children.count, 2)
        guard case .array(let tabs)? = r.tree?.props["tabs"] else { return XCTFail("no tabs: \(String(describing: r.tree?.props))") }
        XCTAssertEqual(tabs.first?["title_key"], .string("history_title"), "\(tabs)")
    }

    func testMatrioskaInvalidIsASyntaxErrorAtLine3() throws {
        let ws = try compatWorkspace()
        let loaded = ws.screen(file: compat + "/matrioska/invalid.json")
        let (s, d) = (loaded.screen, loaded.diagnostics)
        XCTAssertNil(s)
        XCTAssertEqual(d.errors.first?.location?.line, 3)
    }

    func testCustomTypesWithoutAPluginAreNamedWithLocation() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: compat), "../shared/compat is absent")
        let ws = try workspace(project: FileManager.default.temporaryDirectory.path)
        let d = ws.screen(file: compat + "/matrioska/app_structure.json").diagnostics
        XCTAssertTrue(d.errors.contains { $0.message.contains("unknown component type 'tile'") && $0.location?.line == 35 }, "\(d.items)")
    }

    func testSpotsFilesResolveWithFallbackItemViews() throws {
        let ws = try compatWorkspace()
        let (demo, dd) = try resolve(ws, compat + "/spots/demo_components.json", user: nil)
        XCTAssertFalse(dd.hasErrors, "\(dd.items)")
        XCTAssertEqual(demo.tree?.children.map(\.view), ["CarouselView", "ListView", "GridView", "ListView"])
        XCTAssertTrue(demo.actions.allSatisfy { $0.action == "components:contact:1" })
        XCTAssertEqual(demo.actions.count, 12)
        let (readme, rd) = try resolve(ws, compat + "/spots/readme_components.json", user: nil)
        XCTAssertFalse(rd.hasErrors, "\(rd.items)")
        XCTAssertTrue(rd.warnings.contains { $0.message.contains("item kind 'profile' has no registered view") })
        XCTAssertEqual(readme.tree?.children.first?.items?.count, 5)
        XCTAssertEqual(readme.tree?.children.first?.items?.first?.view, "ListItem")
    }
}
