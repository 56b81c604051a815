import XCTest
@testable import LoomCore
@testable import LoomNavigation

final class NavigationSimulatorTests: XCTestCase {
    func simulator(gold: Bool = true) throws -> NavigationSimulator {
        let (flows, errors) = loadFlows(NavigationExplorerTests.moviesFlows)
        XCTAssertEqual(errors, [])
        let app = NavigationExplorerTests.movies(gold: gold)
        return try NavigationSimulator(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
    }

    @discardableResult
    func perform(_ sim: NavigationSimulator, _ action: String, file: StaticString = #filePath, line: UInt = #line) throws -> StepOutcome {
        switch sim.perform(Step(action: action)!) {
        case .success(let outcome): return outcome
        case .failure(let d):
            XCTFail("\(action): \(d)", file: file, line: line)
            throw d
        }
    }

    func testAStepSequenceWithBack() throws {
        let sim = try simulator()
        XCTAssertEqual(sim.stack.description, "main: home")

        let movie = try perform(sim, "movie:42")
        XCTAssertEqual(movie.text, """
            ▶ movie:42
              will-navigate home → movie_detail (push, flow main)
              did-navigate home → movie_detail (push, flow main)
              stack: main: home › movie_detail

            """)
        XCTAssertEqual(sim.current?.params, ["id": "42"], "the pushed screen gets the step's parameter")

        XCTAssertEqual(try perform(sim, "cast:3").stack.description, "main: home › movie_detail › cast_detail")
        let back = try perform(sim, "back")
        XCTAssertEqual(back.events.map(\.description), [
            "will-navigate cast_detail → movie_detail (back, flow main)",
            "did-navigate cast_detail → movie_detail (back, flow main)",
        ])
        XCTAssertEqual(back.stack.description, "main: home › movie_detail")
        XCTAssertEqual(try perform(sim, "back").stack.description, "main: home")
    }

    func testModalsChildFlowsParentForwardingAndFinish() throws {
        let sim = try simulator()
        XCTAssertEqual(try perform(sim, "settings").stack.description, "main: home | modal main: settings")
        XCTAssertEqual(try perform(sim, "back").stack.description, "main: home", "back dismisses the modal")

        XCTAssertEqual(try perform(sim, "premium").stack.description, "main: premium", "a tab switch")
        let members = try perform(sim, "members")
        XCTAssertEqual(members.events.filter { $0.phase == .didNavigate }.map(\.description), [
            "did-navigate premium → members_home (flow, flow main)",
            "did-navigate members_home → members_intro (push, flow members)",
        ])
        XCTAssertEqual(members.stack.description, "main: premium | members: members_home › members_intro")

        // The members flow does not handle `movie`: it forwards it to main, which pushes.
        XCTAssertEqual(try perform(sim, "movie:1").stack.description,
            "main: premium | members: members_home › members_intro | main: movie_detail")
        XCTAssertEqual(try perform(sim, "back").stack.description, "main: premium | members: members_home › members_intro")

        let join = try perform(sim, "join")
        XCTAssertEqual(join.events.map(\.description), [
            "will-navigate members_intro → premium (finish, flow members)",
            "did-navigate members_intro → premium (finish, flow members)",
        ])
        XCTAssertEqual(join.stack.description, "main: premium")
    }

    func testStepNotOnTheScreenIsAClearErrorAndChangesNothing() throws {
        let sim = try simulator()
        guard case .failure(let d) = sim.perform(Step("cast", param: "7")) else { return XCTFail("expected an error") }
        XCTAssertEqual(d.message, "step 'cast' is not available on screen 'home'; available: movie, premium, settings")
        XCTAssertEqual(sim.stack.description, "main: home")

        // Free users do not see the premium tab's action.
        let free = try simulator(gold: false)
        guard case .failure(let f) = free.perform(Step("premium")) else { return XCTFail("expected an error") }
        XCTAssertEqual(f.message, "step 'premium' is not available on screen 'home'; available: movie, settings")

        guard case .failure(let typo) = sim.perform(Step("moive")) else { return XCTFail("expected an error") }
        XCTAssertTrue(typo.message.hasSuffix("; did you mean 'movie'?"), typo.message)
    }

    func testBackFromTheFirstScreenIsAnError() throws {
        let sim = try simulator()
        guard case .failure(let d) = sim.perform(Step("back")) else { return XCTFail("expected an error") }
        XCTAssertEqual(d.message, "cannot go back from screen 'home': it is the first screen")
    }

    func testSequenceStopsAtTheFirstFailure() throws {
        let sim = try simulator()
        let (outcomes, failure) = sim.perform(try Step.parseList("movie:42,back,cast:1,settings").get())
        XCTAssertEqual(outcomes.map(\.input), ["movie:42", "back"])
        XCTAssertEqual(failure?.message, "step 'cast' is not available on screen 'home'; available: movie, premium, settings")
        XCTAssertEqual(sim.stack.description, "main: home")
    }

    func testFlowFailuresAndUnhandledStepsAreDiagnostics() throws {
        let flows = flowSet([FlowDefinition(
            name: "main", presentation: .stack, start: "a", location: SourceLocation(file: "x"),
            navigator: StubFlow { step in
                switch step.name {
                case "boom": return .failure(.error("attempt to call a nil value", at: SourceLocation(file: "plugins/app/plugin.lua", line: 9, column: 0)))
                case "lost": return .success([.push("nowhere", params: [:])])
                case "end": return .success([.finish(step: nil)])
                default: return .success([.none])
                }
            }, source: .lua(plugin: "app"))])
        let app = StubApp(screens: ["a": ["boom", "lost", "noop", "end"]])
        let sim = try NavigationSimulator(flows: flows, entry: flows.entryPoint()!, actions: app.actions)
        func message(_ action: String) -> String? {
            if case .failure(let d) = sim.perform(Step(action: action)!) { return d.message }
            return nil
        }
        XCTAssertEqual(message("boom"), "step 'boom' on screen 'a': flow 'main' failed: plugins/app/plugin.lua:9: attempt to call a nil value")
        XCTAssertEqual(message("lost"), "step 'lost' on screen 'a': flow 'main' pushes unknown screen 'nowhere'")
        XCTAssertEqual(message("noop"), "step 'noop' on screen 'a' is not handled: flow 'main' returns nothing for step 'noop'")
        XCTAssertNil(message("end"), "finishing the entry flow ends the navigation")
        XCTAssertTrue(sim.stack.isEmpty)
        XCTAssertEqual(message("boom"), "cannot perform step 'boom': the navigation has ended (the entry flow finished)")
    }

    func testStartingAtAnUnknownScreenFails() {
        let (flows, _) = loadFlows(NavigationExplorerTests.moviesFlows)
        let app = NavigationExplorerTests.movies(gold: true)
        XCTAssertThrowsError(try NavigationSimulator(flows: flows, entry: EntryPoint(screen: "hom", flow: "main"), actions: app.actions)) {
            XCTAssertEqual(($0 as? Diagnostic)?.message, "unknown screen 'hom'")
        }
    }

    // MARK: Deep links

    func testDeepLinkNavigatesItsSteps() throws {
        let sim = try simulator()
        let outcome = try sim.openLink("app://movie/42").get()
        XCTAssertEqual(outcome.input, "app://movie/42")
        XCTAssertEqual(outcome.stack.description, "main: home › movie_detail")
        XCTAssertEqual(sim.current?.params, ["id": "42"])
    }

    func testDeepLinkUnwindsToItsFlow() throws {
        let sim = try simulator()
        try perform(sim, "premium")
        try perform(sim, "members")
        let outcome = try sim.openLink("app://movie/7").get()
        XCTAssertEqual(outcome.events.filter { $0.phase == .didNavigate }.map(\.description), [
            "did-navigate members_intro → premium (link, flow main)",
            "did-navigate premium → movie_detail (push, flow main)",
        ])
        XCTAssertEqual(outcome.stack.description, "main: premium › movie_detail")
    }

    func testUnknownDeepLinkListsThePatterns() throws {
        let sim = try simulator()
        guard case .failure(let d) = sim.openLink("app://series/1") else { return XCTFail("expected an error") }
        XCTAssertEqual(d.message, "no flow declares a deep link matching 'app://series/1'; known patterns: app://movie/{id}, app://premium")
    }

    func testOutcomeJSON() throws {
        let sim = try simulator()
        let outcome = try perform(sim, "movie:42")
        XCTAssertEqual(outcome.json, [
            "step": "movie:42",
            "events": [
                ["event": "will-navigate", "from": "home", "to": "movie_detail", "presentation": "push", "flow": "main"],
                ["event": "did-navigate", "from": "home", "to": "movie_detail", "presentation": "push", "flow": "main"],
            ],
            "stack": [
                ["screen": "home", "flow": "main", "presentation": "start"],
                ["screen": "movie_detail", "flow": "main", "presentation": "push", "params": ["id": "42"]],
            ],
        ])
    }
}
