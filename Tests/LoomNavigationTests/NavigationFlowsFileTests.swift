import XCTest
@testable import LoomCore
@testable import LoomNavigation

final class NavigationFlowsFileTests: XCTestCase {
    static let shop = """
        {"flows": {
          "shop": {"presentation": "stack", "start": "home",
            "steps": {
              "product": {"push": "product"},
              "checkout": {"present": "checkout"},
              "edit": {"replace": "editor", "params": {"item": "{param}", "mode": "edit"}},
              "deals": {"tab": "deals"},
              "members": {"flow": "members", "step": "intro"},
              "join": {"flow": "members"},
              "up": {"parent": "home"},
              "forward": {"parent": true},
              "done": {"finish": true},
              "paid": {"finish": "receipt:{param}"},
              "noop": {"none": true},
              "both": [{"push": "cart"}, {"present": "upsell"}]
            },
            "links": {"app://product/{id}": "product:{id}", "app://cart": "product:cart,checkout"}
          },
          "members": {"presentation": "modal", "start": "members_home",
            "steps": {"intro": {"push": "members_intro"}, "*": {"parent": true}}}
        }}
        """

    func navigate(_ flows: FlowSet, _ flow: String, _ action: String) throws -> [Contribution] {
        try flows[flow]!.navigator.navigate(Step(action: action)!).get()
    }

    func testDeclarativeFlowsParseIntoDefinitions() throws {
        let (flows, errors) = loadFlows(Self.shop)
        XCTAssertEqual(errors, [])
        XCTAssertEqual(flows.names, ["members", "shop"])
        let shop = try XCTUnwrap(flows["shop"])
        XCTAssertEqual(shop.presentation, .stack)
        XCTAssertEqual(shop.start, "home")
        XCTAssertEqual(shop.source, .declarative)
        XCTAssertEqual(shop.location.description, "flows.json:2:3")
        XCTAssertEqual(shop.startLocation?.description, "flows.json:2:46")
        XCTAssertEqual(shop.links.map(\.pattern), ["app://product/{id}", "app://cart"])
        XCTAssertEqual(flows["members"]?.presentation, .modal)
    }

    func testDeclarativeContributions() throws {
        let (flows, _) = loadFlows(Self.shop)
        // The step's parameter reaches the pushed screen as `id`.
        XCTAssertEqual(try navigate(flows, "shop", "product:42"), [.push("product", params: ["id": "42"])])
        XCTAssertEqual(try navigate(flows, "shop", "product"), [.push("product", params: [:])])
        XCTAssertEqual(try navigate(flows, "shop", "checkout"), [.present("checkout", params: [:])])
        XCTAssertEqual(try navigate(flows, "shop", "edit:7"), [.replace("editor", params: ["item": "7", "mode": "edit"])])
        XCTAssertEqual(try navigate(flows, "shop", "deals"), [.tab("deals", params: [:])])
        XCTAssertEqual(try navigate(flows, "shop", "members"), [.flow("members", step: Step("intro"))])
        XCTAssertEqual(try navigate(flows, "shop", "join"), [.flow("members", step: nil)])
        XCTAssertEqual(try navigate(flows, "shop", "up:3"), [.parent(Step("home", param: "3"))], "a forwarded step keeps the parameter")
        XCTAssertEqual(try navigate(flows, "shop", "forward:9"), [.parent(Step("forward", param: "9"))])
        XCTAssertEqual(try navigate(flows, "shop", "done"), [.finish(step: nil)])
        XCTAssertEqual(try navigate(flows, "shop", "paid:12"), [.finish(step: Step("receipt", param: "12"))])
        XCTAssertEqual(try navigate(flows, "shop", "noop"), [.none])
        XCTAssertEqual(try navigate(flows, "shop", "both"), [.push("cart", params: [:]), .present("upsell", params: [:])])
        XCTAssertEqual(try navigate(flows, "shop", "unknown"), [], "an unknown step is not handled")
        // "*" catches every other step.
        XCTAssertEqual(try navigate(flows, "members", "movie:5"), [.parent(Step("movie", param: "5"))])
        XCTAssertEqual(try navigate(flows, "members", "intro"), [.push("members_intro", params: [:])])
        XCTAssertEqual(flows.resolveLink("app://cart"), [Step("product", param: "cart"), Step("checkout")])
    }

    func testEveryErrorIsReportedWithItsLocation() {
        let text = """
            {"flows": {
              "shop": {
                "presentation": "stak",
                "start": "home",
                "steps": {
                  "product": {"pussh": "product"},
                  "checkout": {"present": 3},
                  "both": {"push": "a", "present": "b"},
                  "done": {"finish": false},
                  "up": {"parent": "home", "params": {}},
                  "bad:name": {"push": "x"},
                  "list": [],
                  "item": [{"push": "a"}, "b"],
                  "members": {"flow": "members", "step": "{id}"},
                  "empty": {}
                },
                "link": {},
                "links": {"app://x/{id}": "x:{ident}", "app://y": 5}
              },
              "nostart": {"presentation": "modal"},
              "notobj": [],
              "typed": {"start": 4, "presentation": true, "steps": [], "links": "x"}
            },
            "version": 1}
            """
        let (flows, errors) = loadFlows(text)
        let contributions = "push, present, replace, tab, flow, parent, finish, none"
        XCTAssertEqual(errors, [
            "flows.json:24:1: error: unknown key 'version' in the flows file; expected flows",
            "flows.json:17:5: error: unknown key 'link' in flow 'shop'; expected presentation, start, steps, links, accepts_when_hidden; did you mean 'links'?",
            "flows.json:3:21: error: unknown presentation 'stak'; expected one of stack, tabs, modal; did you mean 'stack'?",
            "flows.json:6:19: error: unknown contribution 'pussh' in step 'product' of flow 'shop'; expected one of \(contributions); did you mean 'push'?",
            "flows.json:7:31: error: \"present\" in step 'checkout' of flow 'shop' must name a screen (a string), found a number",
            "flows.json:8:15: error: step 'both' of flow 'shop' has several contributions (push, present) in one object; use a list for several",
            "flows.json:9:26: error: \"finish\" in step 'done' of flow 'shop' must be true or a step for the parent flow (a string), found false",
            "flows.json:10:32: error: \"params\" applies only to push, present, replace and tab, not to parent",
            "flows.json:11:7: error: step name 'bad:name' must not contain ':' (the parameter comes from the action)",
            "flows.json:12:15: error: step 'list' of flow 'shop' has an empty list of contributions; use {\"none\": true} for nothing",
            "flows.json:13:31: error: a contribution in step 'item' of flow 'shop' must be an object such as {\"push\": \"screen\"}, found a string",
            "flows.json:14:46: error: unknown placeholder '{id}' in step 'members' of flow 'shop'; only {param} (the step's parameter) is available",
            "flows.json:15:16: error: step 'empty' of flow 'shop' has no contribution; expected one of \(contributions)",
            "flows.json:18:15: error: deep link 'app://x/{id}': step 'x:{ident}' uses '{ident}', which the pattern does not capture",
            "flows.json:18:55: error: deep link 'app://y' must map to steps (a string such as \"movie:{id}\"), found a number",
            "flows.json:20:3: error: flow 'nostart' has no \"start\" screen",
            "flows.json:21:13: error: flow 'notobj' must be an object, found an array",
            "flows.json:22:41: error: \"presentation\" of flow 'typed' must be a string (stack, tabs or modal), found a boolean",
            "flows.json:22:22: error: \"start\" of flow 'typed' must be a screen id (a string), found a number",
            "flows.json:22:56: error: \"steps\" of flow 'typed' must be an object of steps by name, found an array",
            "flows.json:22:69: error: \"links\" of flow 'typed' must be an object of URL patterns to steps, found a string",
        ])
        // The flow with a start survives, without its broken steps, so later checks do not cascade.
        XCTAssertEqual(flows.names, ["shop"])
    }

    func testRootMustBeAnObjectWithFlows() {
        XCTAssertEqual(loadFlows("[1]").1, ["flows.json:1:1: error: flows file must be an object with a \"flows\" key, found an array"])
        XCTAssertEqual(loadFlows("{}").1, ["flows.json:1:1: error: missing key \"flows\""])
        XCTAssertEqual(loadFlows("{\"flows\": 3}").1, ["flows.json:1:11: error: \"flows\" must be an object of flows by name, found a number"])
    }

    func testMisspelledModifiersAndMisplacedStep() {
        let text = """
            {"flows": {"f": {"start": "a", "steps": {
              "x": {"push": "b", "parms": {}},
              "y": {"finish": true, "step": "z"},
              "z": {"none": false}
            }}}}
            """
        XCTAssertEqual(loadFlows(text).1, [
            "flows.json:2:22: error: unknown contribution 'parms' in step 'x' of flow 'f'; expected one of push, present, replace, tab, flow, parent, finish, none; did you mean 'params'?",
            "flows.json:3:25: error: \"step\" applies only to flow, not to finish; write {\"finish\": \"step\"}",
            "flows.json:4:17: error: \"none\" in step 'z' of flow 'f' must be true, found false",
        ])
    }

    func testMissingFileIsOneError() {
        let (flows, diagnostics) = FlowsFile.load(atPath: "/nonexistent/flows.json", displayPath: "flows.json", limits: .standard)
        XCTAssertTrue(flows.isEmpty)
        XCTAssertEqual(diagnostics.count, 1)
        XCTAssertEqual(diagnostics.items.first?.location?.file, "flows.json")
    }

    // MARK: Validation against the project

    func testValidationReportsUnknownScreensFlowsAndEntry() {
        let text = """
            {"flows": {
              "main": {"start": "hom", "steps": {
                "movie": {"push": "movie_detial"},
                "members": {"flow": "member"},
                "settings": {"present": "settings"}
              },
              "links": {"app://cast/{id}": "cast:{id}"}}
            }}
            """
        let (flows, errors) = loadFlows(text, entry: "mian")
        XCTAssertEqual(errors, [])
        let screens = ["home", "movie_detail", "settings"].reduce(into: [String: SourceLocation]()) {
            $0[$1] = SourceLocation(file: "screens/\($1).json")
        }
        let diagnostics = FlowValidation.validate(flows, screens: screens, entryLocation: SourceLocation(file: "loom.json", line: 2, column: 12))
        XCTAssertEqual(diagnostics.map(\.description), [
            "loom.json:2:12: error: entry 'mian' is neither a flow nor a screen; did you mean 'main'?",
            "flows.json:2:21: error: flow 'main' starts at unknown screen 'hom'; did you mean 'home'?",
            "flows.json:3:23: error: step 'movie' of flow 'main' pushes unknown screen 'movie_detial'; did you mean 'movie_detail'?",
            "flows.json:4:25: error: step 'members' of flow 'main' enters unknown flow 'member'",
            "flows.json:7:13: warning: deep link 'app://cast/{id}' starts with step 'cast', which flow 'main' does not handle",
        ])
    }

    func testValidProjectHasNoDiagnostics() {
        let (flows, _) = loadFlows(Self.shop)
        let screens = ["home", "product", "checkout", "editor", "deals", "cart", "upsell", "members_home", "members_intro"]
            .reduce(into: [String: SourceLocation]()) { $0[$1] = SourceLocation(file: "screens/\($1).json") }
        XCTAssertEqual(FlowValidation.validate(flows, screens: screens).map(\.description), [])
    }
}
