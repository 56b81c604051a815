import XCTest
@testable import LoomCore
@testable import LoomNavigation

final class NavigationTests: XCTestCase {
    // MARK: Steps

    func testStepParsesNameAndParameter() {
        XCTAssertEqual(Step(action: "movie:42"), Step("movie", param: "42"))
        XCTAssertEqual(Step(action: "settings"), Step("settings"))
        XCTAssertNil(Step(action: "settings")?.param)
    }

    func testSpotsTargetURISplitsAtTheFirstColon() {
        let step = Step(action: "components:contact:1")
        XCTAssertEqual(step?.name, "components")
        XCTAssertEqual(step?.param, "contact:1")
        XCTAssertEqual(step?.description, "components:contact:1")
    }

    func testEmptyOrWhitespaceStepNamesAreInvalid() {
        XCTAssertNil(Step(action: ""))
        XCTAssertNil(Step(action: "   "))
        XCTAssertNil(Step(action: ":42"))
        XCTAssertNil(Step(action: " \t:x"))
        guard case .failure(let d) = Step.parse(":42", at: SourceLocation(file: "screens/home.json", line: 4, column: 9)) else {
            return XCTFail("expected an error")
        }
        XCTAssertEqual(d.description, "screens/home.json:4:9: error: action ':42' is not a navigation step: the step name before ':' is empty")
    }

    func testStepTrimsWhitespaceAndDropsAnEmptyParameter() {
        XCTAssertEqual(Step(action: " movie : 42 "), Step("movie", param: "42"))
        XCTAssertEqual(Step(action: "movie:"), Step("movie"))
    }

    func testStepListForTheStepsArgument() throws {
        let steps = try Step.parseList("movie:42, cast:7,back").get()
        XCTAssertEqual(steps, [Step("movie", param: "42"), Step("cast", param: "7"), Step("back")])
        XCTAssertTrue(steps[2].isBack)
        guard case .failure(let d) = Step.parseList("movie:42,:x") else { return XCTFail("expected an error") }
        XCTAssertTrue(d.message.contains("':x'"), d.message)
    }

    // MARK: Flow set

    func testDuplicateFlowNamesBothLocations() {
        var diagnostics = Diagnostics()
        let a = stubFlow("shop", start: "home", line: 3, [:])
        var b = stubFlow("shop", start: "cart", [:])
        b.location = SourceLocation(file: "flows.json", line: 2, column: 5)
        b.source = .declarative
        let set = FlowSet([a, b], diagnostics: &diagnostics)
        XCTAssertEqual(set["shop"]?.start, "home", "the first definition wins")
        XCTAssertEqual(diagnostics.items.map(\.description), [
            "flows.json:2:5: error: flow 'shop' is defined twice: in plugin app at plugins/app/plugin.lua:3:3 and in flows.json at flows.json:2:5"
        ])
    }

    func testEntryDefaultsToMainThenFirstFlowThenTheRunningScreen() {
        let withMain = flowSet([stubFlow("a", start: "a0", [:]), stubFlow("main", start: "home", [:])])
        XCTAssertEqual(withMain.entry(runningScreen: "x"), "main")
        XCTAssertEqual(withMain.entryPoint(runningScreen: "x"), EntryPoint(screen: "home", flow: "main"))

        let noMain = flowSet([stubFlow("zeta", start: "z", [:]), stubFlow("alpha", start: "a", [:])])
        XCTAssertEqual(noMain.entryPoint(), EntryPoint(screen: "a", flow: "alpha"))

        let none = FlowSet()
        XCTAssertEqual(none.entryPoint(runningScreen: "home"), EntryPoint(screen: "home", flow: nil))
        XCTAssertNil(none.entryPoint())
    }

    func testConfiguredEntryNamesAFlowOrAScreen() {
        let flows = [stubFlow("main", start: "home", [:]), stubFlow("shop", start: "store", [:])]
        XCTAssertEqual(flowSet(flows, entry: "shop").entryPoint(), EntryPoint(screen: "store", flow: "shop"))
        // A screen: shown in the flow that starts with it, else the default flow.
        XCTAssertEqual(flowSet(flows, entry: "store").entryPoint(), EntryPoint(screen: "store", flow: "shop"))
        XCTAssertEqual(flowSet(flows, entry: "profile").entryPoint(), EntryPoint(screen: "profile", flow: "main"))
    }

    // MARK: Deep links

    func testLinkPatternCapturesPlaceholdersIntoSteps() throws {
        let link = try LinkPattern.parse(pattern: "app://movie/{id}", steps: "movie:{id}").get()
        XCTAssertEqual(link.match("app://movie/42"), [Step("movie", param: "42")])
        XCTAssertEqual(link.match("app://movie/42/"), [Step("movie", param: "42")], "one trailing slash is ignored")
        XCTAssertEqual(link.match("app://movie/42?ref=mail#top"), [Step("movie", param: "42")], "query and fragment ignored")
        XCTAssertEqual(link.match("app://movie/a%20b"), [Step("movie", param: "a b")], "percent-decoded")
        XCTAssertNil(link.match("app://movie/"))
        XCTAssertNil(link.match("app://movie/42/cast"))
        XCTAssertNil(link.match("app://series/42"))
    }

    func testLinkWithSeveralStepsAndPlaceholders() throws {
        let link = try LinkPattern.parse(pattern: "app://{tab}/movie/{id}-{slug}", steps: "tab:{tab}, movie:{id}").get()
        XCTAssertEqual(link.match("app://watched/movie/42-alien-3"), [Step("tab", param: "watched"), Step("movie", param: "42")])
    }

    func testInvalidLinkPatternsAreLocatedErrors() {
        let at = SourceLocation(file: "flows.json", line: 7, column: 9)
        func error(_ pattern: String, _ steps: String) -> String? {
            if case .failure(let d) = LinkPattern.parse(pattern: pattern, steps: steps, at: at) { return d.description }
            return nil
        }
        XCTAssertEqual(error("app://movie/{id}", "movie:{idd}"),
            "flows.json:7:9: error: deep link 'app://movie/{id}': step 'movie:{idd}' uses '{idd}', which the pattern does not capture; did you mean 'id'?")
        XCTAssertEqual(error("app://movie/{id", "movie"), "flows.json:7:9: error: deep link 'app://movie/{id': unclosed '{'")
        XCTAssertEqual(error("app://{a}{b}", "x"), "flows.json:7:9: error: deep link 'app://{a}{b}': two placeholders need text between them")
        XCTAssertEqual(error("app://x", " , "), "flows.json:7:9: error: deep link 'app://x': no steps given")
        XCTAssertEqual(error("app://x/{id}", ":{id}"), "flows.json:7:9: error: deep link 'app://x/{id}': ':{id}' is not a step")
    }

    func testResolveLinkTakesTheFirstMatchByFlowName() throws {
        let a = try LinkPattern.parse(pattern: "app://item/{id}", steps: "product:{id}").get()
        let b = try LinkPattern.parse(pattern: "app://item/{id}", steps: "item:{id}").get()
        let flows = flowSet([
            stubFlow("shop", start: "s", links: [a], [:]),
            stubFlow("catalog", start: "c", links: [b], [:]),
        ])
        XCTAssertEqual(flows.resolveLink("app://item/9"), [Step("item", param: "9")])
        XCTAssertEqual(flows.matchLink("app://item/9")?.flow, "catalog")
        XCTAssertNil(flows.resolveLink("app://nothing"))
    }
}

/// The plain-value form a Lua flow's `navigate` result is converted through.
final class NavigationContributionDecodingTests: XCTestCase {
    func testDecodesEveryContributionKind() throws {
        let value: JSONValue = [
            ["push": "product", "params": ["id": "42", "n": 3]],
            ["present": "checkout"],
            ["replace": "editor"],
            ["tab": "deals"],
            ["flow": "members", "step": ["name": "intro", "param": 7]],
            ["parent": "movie:9"],
            ["finish": true],
            ["finish": "paid"],
            ["none": true],
        ]
        XCTAssertEqual(try Contribution.decode(value).get(), [
            .push("product", params: ["id": "42", "n": "3"]),
            .present("checkout", params: [:]),
            .replace("editor", params: [:]),
            .tab("deals", params: [:]),
            .flow("members", step: Step("intro", param: "7")),
            .parent(Step("movie", param: "9")),
            .finish(step: nil),
            .finish(step: Step("paid")),
            .none,
        ])
        XCTAssertEqual(try Contribution.decode(.null).get(), [])
        XCTAssertEqual(try Contribution.decode(["push": "a"]).get(), [.push("a", params: [:])], "one contribution without a list")
    }

    func testRoundTripsThroughJSON() throws {
        let all: [Contribution] = [
            .push("p", params: ["id": "1"]), .present("q", params: [:]), .flow("f", step: Step("s", param: "2")),
            .parent(Step("up")), .finish(step: nil), .finish(step: Step("x", param: "y:z")), .none,
        ]
        XCTAssertEqual(try Contribution.decode(.array(all.map(\.json))).get(), all)
        XCTAssertEqual(Step("movie", param: "42").json, ["name": "movie", "param": "42"])
    }

    func testBadContributionsSayWhatIsWrong() {
        func message(_ v: JSONValue) -> String? {
            if case .failure(let d) = Contribution.decode(v) { return d.message }
            return nil
        }
        XCTAssertEqual(message(["pushh": "a"]), "a contribution needs one of push, present, replace, tab, flow, parent, finish, none; found 'pushh'; did you mean 'push'?")
        XCTAssertEqual(message(["push": "a", "present": "b"]), "a contribution has several kinds (push, present); return a list for several")
        XCTAssertEqual(message([["none": true], ["push": 3]]), "contribution 2: push needs a screen name (a non-empty string), found a number")
        XCTAssertEqual(message(["finish": true, "params": [:]]), "params apply only to push, present, replace and tab, not to finish")
        XCTAssertEqual(message(["parent": ["name": ""]]), "a step needs a non-empty \"name\" string without ':'")
        XCTAssertEqual(message("push"), "a contribution must be a table such as nav.push(\"screen\"), found a string")
    }
}
