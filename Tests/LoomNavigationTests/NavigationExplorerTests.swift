import XCTest
@testable import LoomCore
@testable import LoomNavigation

final class NavigationExplorerTests: XCTestCase {
    static let moviesFlows = """
        {"flows": {
          "main": {"presentation": "tabs", "start": "home",
            "steps": {
              "movie": {"push": "movie_detail"},
              "cast": {"push": "cast_detail"},
              "settings": {"present": "settings"},
              "premium": {"tab": "premium"},
              "members": {"flow": "members", "step": "intro"}
            },
            "links": {"app://movie/{id}": "movie:{id}", "app://premium": "premium"}},
          "members": {"presentation": "modal", "start": "members_home",
            "steps": {"intro": {"push": "members_intro"}, "join": {"finish": true}, "*": {"parent": true}}}
        }}
        """

    /// The movies app; `!` marks an action under a rule-guarded component. Free users do not see
    /// the premium tab's action.
    static func movies(gold: Bool) -> StubApp {
        StubApp(screens: [
            "home": ["movie:42", "movie:7", "settings"] + (gold ? ["!premium"] : []),
            "movie_detail": ["cast:3"],
            "cast_detail": ["movie:5"],
            "settings": [],
            "premium": ["members"],
            "members_home": ["join"],
            "members_intro": ["join", "movie:1"],
            "legacy": [],
        ])
    }

    static func explore(_ app: StubApp, flowsJSON: String = moviesFlows) -> NavigationGraph {
        let (flows, errors) = loadFlows(flowsJSON)
        XCTAssertEqual(errors, [])
        return NavigationExplorer.explore(
            flows: flows, entry: flows.entryPoint()!, screens: app.locations, actions: app.actions)
    }

    func edgeLines(_ g: NavigationGraph) -> [String] {
        g.edges.map { e in
            "\(e.from) -\(e.step)-> \(e.to) (\(e.presentation.rawValue), \(e.flow ?? "-"))"
                + (e.example.map { " e.g. \($0)" } ?? "") + (e.gated ? " gated" : "")
        }
    }

    func testGoldMembersCanWalkToThePremiumTabAndTheMembersFlow() {
        let g = Self.explore(Self.movies(gold: true))
        XCTAssertEqual(g.entry, "home")
        XCTAssertEqual(g.entryFlow, "main")
        XCTAssertEqual(g.nodes.map(\.id), ["home", "movie_detail", "settings", "premium", "cast_detail", "members_home", "members_intro"])
        XCTAssertEqual(g.nodes.map { $0.flow ?? "-" }, ["main", "main", "main", "main", "main", "members", "members"])
        XCTAssertEqual(g.nodes.first?.file, "screens/home.json")
        XCTAssertEqual(edgeLines(g), [
            "cast_detail -movie-> movie_detail (push, main) e.g. movie:5",
            "home -movie-> movie_detail (push, main) e.g. movie:42",
            "home -premium-> premium (tab, main) gated",
            "home -settings-> settings (present, main)",
            "members_home -join-> premium (finish, main)",
            "members_intro -join-> premium (finish, main)",
            "members_intro -movie-> movie_detail (parent, main) e.g. movie:1",
            "movie_detail -cast-> cast_detail (push, main) e.g. cast:3",
            "premium -members-> members_home (flow, members)",
            "premium -members-> members_intro (flow, members)",
        ])
        XCTAssertEqual(g.findings.map(\.description), [
            "screens/legacy.json: warning: screen 'legacy' is not reachable for this user from 'home'",
            "note: cycle: screens movie_detail, cast_detail lead to each other",
        ])
    }

    func testFreeUsersDoNotGetThePremiumEdges() {
        let gold = Self.explore(Self.movies(gold: true))
        let free = Self.explore(Self.movies(gold: false))
        // No action of free's leads to the premium tab…
        XCTAssertFalse(free.edges.contains { $0.from == "home" && $0.to == "premium" })
        XCTAssertTrue(gold.edges.contains { $0.from == "home" && $0.to == "premium" })
        // …but the deep link app://premium does, for free as for gold (a link comes from outside
        // the app: `host navigate --link app://premium` lands there), so the premium tab is in
        // free's graph as the link's landing, walked from there like any node.
        XCTAssertEqual(free.nodes.map(\.id), ["home", "movie_detail", "settings", "cast_detail", "premium", "members_home", "members_intro"])
        XCTAssertEqual(free.links.first { $0.link == "app://premium" }?.to, "premium")
        XCTAssertEqual(free.findings(.unreachableScreen).map(\.message), [
            "screen 'legacy' is not reachable for this user from 'home'",
        ])
    }

    func testAnEdgeIsGatedOnlyWhenEveryActionBehindItIs() {
        let flows = flowSet([stubFlow("main", start: "a", ["go": [.push("b", params: [:])], "x": [.push("c", params: [:])]])])
        let app = StubApp(screens: ["a": ["!go:1", "go:2", "!x"], "b": [], "c": []])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
        XCTAssertEqual(edgeLines(g), ["a -go-> b (push, main) e.g. go:1", "a -x-> c (push, main) gated"])
    }

    func testEachScreenIsResolvedOnceAndEachStepAskedOnce() {
        let main = StubFlow { step in .success([.push(step.name == "a" ? "a" : "b", params: [:])]) }
        let flows = flowSet([FlowDefinition(
            name: "main", presentation: .stack, start: "a", location: SourceLocation(file: "x"),
            navigator: main, source: .lua(plugin: "p"))])
        var resolutions: [String] = []
        let app = StubApp(screens: ["a": ["a", "b:1", "b:1", "b:2"], "b": ["a", "b:1"]])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!) { screen in
            resolutions.append(screen)
            return app.actions(screen)
        }
        XCTAssertEqual(resolutions, ["a", "b"])
        XCTAssertEqual(main.calls, [Step("a"), Step("b", param: "1"), Step("b", param: "2")])
        XCTAssertEqual(edgeLines(g), [
            "a -a-> a (push, main)", "a -b-> b (push, main) e.g. b:1", "b -a-> a (push, main)", "b -b-> b (push, main) e.g. b:1",
        ])
        XCTAssertEqual(g.findings(.cycle).map(\.message), ["cycle: screens a, b lead to each other"])
    }

    func testSelfLoopsAndCyclesTerminate() {
        let flows = flowSet([stubFlow("main", start: "a", [
            "refresh": [.replace("a", params: [:])],
            "next": [.push("b", params: [:])],
            "again": [.push("a", params: [:])],
        ])])
        let app = StubApp(screens: ["a": ["refresh", "next"], "b": ["again", "next"]])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
        XCTAssertEqual(g.nodes.map(\.id), ["a", "b"])
        XCTAssertEqual(g.findings(.cycle).map(\.message), ["cycle: screens a, b lead to each other"])

        let loopOnly = flowSet([stubFlow("main", start: "a", ["refresh": [.replace("a", params: [:])]])])
        let g2 = NavigationExplorer.explore(
            flows: loopOnly, entry: loopOnly.entryPoint()!, actions: StubApp(screens: ["a": ["refresh"]]).actions)
        XCTAssertEqual(g2.findings.map(\.message), ["screen 'a' leads to itself (step 'refresh')"])
        XCTAssertEqual(g2.findings.first?.severity, .note)
    }

    func testFlowsForwardingToEachOtherForeverTerminate() {
        // a enters b; b forwards everything to its parent; a forwards everything back into b.
        let flows = flowSet([
            stubFlow("a", start: "s", ["enter": [.flow("b", step: nil)], "ping": [.flow("b", step: Step("ping"))]]),
            FlowDefinition(
                name: "b", presentation: .modal, start: "t", location: SourceLocation(file: "x"),
                navigator: StubFlow { step in .success([.parent(Step(step.name, param: (step.param ?? "") + "x"))]) },
                source: .lua(plugin: "p")),
        ], entry: "a")
        let app = StubApp(screens: ["s": ["enter", "ping"], "t": ["ping"]])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
        XCTAssertEqual(g.nodes.map(\.id), ["s", "t"])
    }

    func testAThousandScreensWithFiveThousandActionsExploreFast() {
        let n = 1000
        var screens: [String: ScreenActions] = [:]
        for i in 0..<n {
            screens["s\(i)"] = ScreenActions(actions: (0..<5).map { k in
                ActionSite(action: "go:\((i * 7 + k * 131 + 1) % n)", componentPath: "root/\(k)", gated: k == 4)
            })
        }
        let flows = flowSet([FlowDefinition(
            name: "main", presentation: .stack, start: "s0", location: SourceLocation(file: "x"),
            navigator: StubFlow { step in .success([.push("s\(step.param!)", params: ["id": step.param!])]) },
            source: .lua(plugin: "p"))])
        let locations = Dictionary(uniqueKeysWithValues: screens.keys.map { ($0, SourceLocation(file: "\($0).json")) })
        let clock = ContinuousClock()
        var graph: NavigationGraph?
        let elapsed = clock.measure {
            graph = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: locations) { screens[$0] }
        }
        let g = graph!
        XCTAssertEqual(g.nodes.count, n)
        XCTAssertEqual(g.edges.count, 5000)
        XCTAssertEqual(g.findings(.unreachableScreen), [])
        XCTAssertLessThan(elapsed, .seconds(1), "exploring 1,000 screens took \(elapsed)")
        // Deterministic: the same input gives the same graph.
        XCTAssertEqual(NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: locations) { screens[$0] }, g)
    }

    // MARK: Analyses

    func testUnhandledActionsAreReportedAtTheirLocation() {
        let failing = StubFlow { step in
            switch step.name {
            case "movie": return .success([.push("b", params: [:])])
            case "crash": return .failure(.error("attempt to index a nil value", at: SourceLocation(file: "plugins/app/plugin.lua", line: 12, column: 0)))
            case "noop": return .success([.none])
            default: return .success([])
            }
        }
        let flows = flowSet([FlowDefinition(
            name: "main", presentation: .stack, start: "a", location: SourceLocation(file: "x"), navigator: failing,
            source: .lua(plugin: "app"))])
        let app = StubApp(screens: ["a": ["movie:1", "share:9", "crash", "noop", ":bad"], "b": []])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: app.locations, actions: app.actions)
        XCTAssertEqual(g.findings.map(\.description), [
            "screens/a.json:3:5: warning: action 'share:9' on screen 'a' is not handled: flow 'main' returns nothing for step 'share'",
            "screens/a.json:4:5: error: action 'crash' on screen 'a': flow 'main' failed on step 'crash': plugins/app/plugin.lua:12: attempt to index a nil value",
            "screens/a.json:5:5: warning: action 'noop' on screen 'a' is not handled: flow 'main' returns nothing for step 'noop'",
            "screens/a.json:6:5: error: action ':bad' on screen 'a' is not a navigation step (the name before ':' is empty)",
        ])
    }

    func testBackButtonsAreNoEdgesAndNoWarnings() {
        let flows = flowSet([stubFlow("main", start: "a", ["next": [.push("b", params: [:])]])])
        let app = StubApp(screens: ["a": ["next"], "b": ["back"]])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
        XCTAssertEqual(edgeLines(g), ["a -next-> b (push, main)"])
        XCTAssertEqual(g.findings, [])
    }

    func testActionsWithoutAnyFlowAreUnhandled() {
        let app = StubApp(screens: ["home": ["movie:1"]])
        let g = NavigationExplorer.explore(flows: FlowSet(), entry: FlowSet().entryPoint(runningScreen: "home")!, actions: app.actions)
        XCTAssertEqual(g.nodes.map(\.id), ["home"])
        XCTAssertEqual(g.findings.map(\.description), [
            "screens/home.json:2:5: warning: action 'movie:1' on screen 'home': no flow handles step 'movie' (the project defines no flows)",
        ])
    }

    func testStepsLeadingToUnknownScreensAreErrors() {
        let flows = flowSet([
            stubFlow("main", start: "home", ["movie": [.push("movie_detial", params: [:])], "join": [.flow("members", step: nil)], "x": [.flow("nope", step: nil)]]),
            stubFlow("members", .modal, start: "gone", [:]),
        ])
        let app = StubApp(screens: ["home": ["movie:1", "join", "x"], "movie_detail": []])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: app.locations, actions: app.actions)
        XCTAssertEqual(g.edges, [])
        XCTAssertEqual(g.findings.filter { $0.severity == .error }.map(\.description), [
            "screens/home.json:2:5: error: action 'movie:1' on screen 'home' leads to unknown screen 'movie_detial' (push in flow 'main'); did you mean 'movie_detail'?",
            "screens/home.json:3:5: error: action 'join' on screen 'home' enters flow 'members', which starts at unknown screen 'gone'",
            "screens/home.json:4:5: error: action 'x' on screen 'home': flow 'main' enters unknown flow 'nope'",
        ])
        XCTAssertEqual(g.findings(.unknownScreen).count, 2)
        XCTAssertEqual(g.findings(.unknownFlow).count, 1)
    }

    func testUnknownEntryScreen() {
        let flows = flowSet([stubFlow("main", start: "hom", [:])])
        let app = StubApp(screens: ["home": []])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: app.locations, actions: app.actions)
        XCTAssertEqual(g.nodes, [])
        XCTAssertEqual(g.findings.map(\.description), [
            "plugins/app/plugin.lua:1:3: error: entry screen 'hom' does not exist; did you mean 'home'?",
            "screens/home.json: warning: screen 'home' is not reachable for this user from 'hom'",
        ])
    }

    func testChildFlowsThatNeverEndAreReported() {
        let flows = flowSet([
            stubFlow("main", start: "home", ["wizard": [.flow("wizard", step: nil)], "shop": [.flow("shop", step: nil)]]),
            stubFlow("wizard", .modal, start: "w1", line: 7, ["next": [.push("w2", params: [:])]]),
            stubFlow("shop", .stack, start: "s1", line: 9, ["buy": [.finish(step: nil)]]),
        ])
        let app = StubApp(screens: ["home": ["wizard", "shop"], "w1": ["next"], "w2": [], "s1": ["buy"]])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: app.locations, actions: app.actions)
        XCTAssertEqual(g.findings.map(\.description), [
            "plugins/app/plugin.lua:7:3: warning: flow 'wizard' never ends: no step reachable for this user finishes it",
        ])
        // Finishing the shop flow returns to the screen that entered it.
        XCTAssertTrue(g.edges.contains { $0.from == "s1" && $0.to == "home" && $0.presentation == .finish })
    }

    func testParentForwardFromTheEntryFlowIsUnhandled() {
        let flows = flowSet([stubFlow("main", start: "home", ["up": [.parent(Step("home"))]])])
        let app = StubApp(screens: ["home": ["up"]])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
        XCTAssertEqual(g.findings.map(\.description), [
            "screens/home.json:2:5: warning: action 'up' on screen 'home' forwards step 'home' to the parent of flow 'main', but no flow enters 'main'",
        ])
    }

    func testAScreenShownInSeveralFlowsGetsOneNodePerFlow() {
        let flows = flowSet([
            stubFlow("main", start: "home", ["movie": [.push("movie", params: [:])], "kids": [.flow("kids", step: nil)]]),
            stubFlow("kids", start: "kids_home", ["movie": [.push("movie", params: [:])], "done": [.finish(step: nil)]]),
        ])
        let app = StubApp(screens: ["home": ["movie:1", "kids"], "kids_home": ["movie:2", "done"], "movie": []])
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
        XCTAssertEqual(g.nodes.map(\.id), ["home", "movie@main", "kids_home", "movie@kids"])
        XCTAssertEqual(g.nodes.map(\.screen), ["home", "movie", "kids_home", "movie"])
        XCTAssertTrue(g.contains(screen: "movie"))
    }
}
