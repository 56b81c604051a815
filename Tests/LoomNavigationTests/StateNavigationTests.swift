import XCTest
@testable import LoomCore
@testable import LoomNavigation

/// Navigation that depends on state (rule-chosen targets, the user a flow reads), one stack per
/// tab, steps accepted while hidden, parameter names from deep links, deep links as entry edges.
final class StateNavigationTests: XCTestCase {
    static let flowsJSON = """
        {"flows": {
          "main": {"presentation": "tabs", "start": "home", "accepts_when_hidden": ["reset"],
            "steps": {
              "movie": {"push": "detail"},
              "play": {"push": "player"},
              "premium": [{"when": "is_gold", "push": "lounge"}, {"when": {"NOT": "is_gold"}, "push": "upgrade"}],
              "maybe": [{"when": "is_gold", "push": "lounge"}],
              "home": {"tab": "home"},
              "watched": {"tab": "watched"},
              "side": {"flow": "side"},
              "reset": {"push": "upgrade"}
            },
            "links": {"app://movie/{id}": "movie:{id}", "app://side": "side"}},
          "side": {"presentation": "modal", "start": "side_home", "steps": {"noop": {"none": true}}}
        }}
        """

    static let app = StubApp(screens: [
        "home": ["movie:42", "play:1", "premium", "maybe", "watched", "side"],
        "watched": ["movie:7", "home"],
        "detail": ["home", "watched"],
        "player": [], "lounge": [], "upgrade": [], "side_home": ["noop"],
    ])

    /// Decides `is_gold` (and NOT of it) for a tier; any other rule fails.
    static func context(tier: String) -> NavigationContext {
        NavigationContext(user: UserProfile(name: tier, attributes: ["tier": .string(tier)])) { rule in
            func decide(_ r: RuleExpression) -> Result<Bool, Diagnostic> {
                switch r {
                case .rule(let name, _, _) where name == "is_gold": return .success(tier == "gold")
                case .not(let inner, _): return decide(inner).map { !$0 }
                default: return .failure(.error("rule '\(r.text)' is not registered"))
                }
            }
            return decide(rule)
        }
    }

    func simulator(tier: String) throws -> NavigationSimulator {
        let (flows, errors) = loadFlows(Self.flowsJSON)
        XCTAssertEqual(errors, [])
        return try NavigationSimulator(flows: flows, entry: flows.entryPoint()!, context: { _ in Self.context(tier: tier) },
                                       actions: Self.app.actions)
    }

    func screens(_ sim: NavigationSimulator) -> [String] { sim.stack.entries.map(\.screen) }

    func testWhenAlternativesChooseTheFirstThatHolds() throws {
        for (tier, screen) in [("gold", "lounge"), ("free", "upgrade")] {
            let sim = try simulator(tier: tier)
            _ = try sim.perform(Step("premium")).get()
            XCTAssertEqual(sim.current?.screen, screen, tier)
        }
        // No alternative holds: the step is not handled.
        let free = try simulator(tier: "free")
        guard case .failure(let d) = free.perform(Step("maybe")) else { return XCTFail("nothing holds for free") }
        XCTAssertTrue(d.message.contains("returns nothing for step 'maybe'"), d.message)
    }

    func testWhenWithoutAUserIsALocatedFailure() throws {
        let (flows, _) = loadFlows(Self.flowsJSON)
        guard case .failure(let d) = flows["main"]!.navigator.navigate(Step("premium")) else { return XCTFail("needs a user") }
        XCTAssertEqual(d.location?.file, "flows.json")
        XCTAssertTrue(d.message.contains("chooses by rule is_gold, which needs a user"), d.message)
    }

    func testAFailingWhenRuleIsReported() throws {
        let (flows, _) = loadFlows(Self.flowsJSON.replacingOccurrences(of: #""when": "is_gold", "push": "lounge"}, {"when""#,
                                                                         with: #""when": "is_golden", "push": "lounge"}, {"when""#))
        let r = flows["main"]!.navigator.navigate(Step("premium"), context: Self.context(tier: "gold"))
        guard case .failure(let d) = r else { return XCTFail("an unknown rule fails") }
        XCTAssertTrue(d.message.contains("rule is_golden failed: rule 'is_golden' is not registered"), d.message)
        XCTAssertNotNil(d.location)
    }

    func testTheExplorerDecidesPerUserAndIsDeterministic() throws {
        let (flows, _) = loadFlows(Self.flowsJSON)
        func graph(_ tier: String) -> NavigationGraph {
            NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: Self.app.locations,
                                       context: Self.context(tier: tier), actions: Self.app.actions)
        }
        let gold = graph("gold"), free = graph("free")
        XCTAssertEqual(gold.edges.filter { $0.step == "premium" }.map(\.to), ["lounge"])
        XCTAssertEqual(free.edges.filter { $0.step == "premium" }.map(\.to), ["upgrade"])
        XCTAssertEqual(graph("gold"), gold)
        XCTAssertEqual(gold.edges.first { $0.step == "movie" && $0.from == "home" }?.exampleParams, ["id": "42"])
        XCTAssertEqual(gold.links, [
            LinkEntry(link: "app://movie/{id}", steps: "movie:{id}", flow: "main", to: "detail"),
            LinkEntry(link: "app://side", steps: "side", flow: "main", to: "side_home"),
        ])
    }

    func testParamNamesComeFromDeepLinks() throws {
        let sim = try simulator(tier: "gold")
        _ = try sim.perform(Step("movie", param: "42")).get()
        XCTAssertEqual(sim.current?.params, ["id": "42"], "named by app://movie/{id}")
        _ = try sim.perform(Step("back")).get()
        _ = try sim.perform(Step("play", param: "1")).get()
        XCTAssertEqual(sim.current?.params, ["value": "1"], "no link names play's parameter")
    }

    func testTabsKeepOneStackPerTab() throws {
        let sim = try simulator(tier: "gold")
        _ = try sim.perform(Step("movie", param: "42")).get()
        XCTAssertEqual(screens(sim), ["home", "detail"])
        _ = try sim.perform(Step("watched")).get()
        XCTAssertEqual(screens(sim), ["watched"])
        _ = try sim.perform(Step("movie", param: "7")).get()
        XCTAssertEqual(screens(sim), ["watched", "detail"])
        _ = try sim.perform(Step("home")).get()
        XCTAssertEqual(screens(sim), ["home", "detail"], "home's stack comes back")
        XCTAssertEqual(sim.current?.params, ["id": "42"])
        _ = try sim.perform(Step("watched")).get()
        XCTAssertEqual(screens(sim), ["watched", "detail"], "and watched's")
        XCTAssertEqual(sim.current?.params, ["id": "7"])
        // A failed step leaves the kept stacks as they were.
        if case .success = sim.perform(Step("nope")) { XCTFail("nope is no action of detail") }
        _ = try sim.perform(Step("home")).get()
        XCTAssertEqual(screens(sim), ["home", "detail"])
    }

    func testStepsAcceptedWhileHidden() throws {
        let sim = try simulator(tier: "free")
        _ = try sim.perform(Step("side")).get()
        XCTAssertEqual(sim.current?.screen, "side_home")
        _ = try sim.perform(Step("reset")).get()
        XCTAssertEqual(sim.current?.screen, "upgrade", "main accepts reset while side covers it")
        // Not declared: not accepted.
        let (flows, _) = loadFlows(Self.flowsJSON.replacingOccurrences(of: #""accepts_when_hidden": ["reset"],"#, with: ""))
        let strict = try NavigationSimulator(flows: flows, entry: flows.entryPoint()!, actions: Self.app.actions)
        _ = try strict.perform(Step("side")).get()
        guard case .failure(let d) = strict.perform(Step("reset")) else { return XCTFail("reset is not accepted") }
        XCTAssertTrue(d.message.contains("step 'reset' is not available on screen 'side_home'"), d.message)
    }

    func testAcceptsWhenHiddenMustBeAListOfNames() {
        let (_, errors) = loadFlows(#"{"flows": {"main": {"start": "home", "accepts_when_hidden": "reset"}}}"#)
        XCTAssertEqual(errors, [#"flows.json:1:61: error: "accepts_when_hidden" of flow 'main' must be a list of step names, found a string"#])
    }
}
