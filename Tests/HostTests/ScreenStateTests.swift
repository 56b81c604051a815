import Foundation
import XCTest

/// Screen state (issue 40 item 3, docs/data.md "State"), on the built `host`: the fixture
/// project Tests/Fixtures/state, a product screen with a favourite toggle and a quantity stepper.
final class ScreenStateTests: XCTestCase {
    static let project = "Tests/Fixtures/state"
    static let product = "\(project)/screens/product.json"
    static func bad(_ name: String) -> String { "\(project)/bad/\(name).json" }

    func testTapsChangeExactlyTheBoundPropsAndPrintTheState() throws {
        let r = try Host.run(["navigate", Self.product, "--user", "gold", "--steps", "tap:fav,tap:plus"])
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertEqual(r.stdout, """
            start: product
            ▶ tap:fav
              stack: -: product
              soft     component 'fav' (root/children[0]): props.selected, props.title
              state: favorite=true qty=1
            ▶ tap:plus
              stack: -: product
              soft     component 'count' (root/children[1]): props.text
              state: favorite=true qty=2

            """)
        // The same taps from the same state always give the same output.
        let again = try Host.run(["navigate", Self.product, "--user", "gold", "--steps", "tap:fav,tap:plus"])
        XCTAssertEqual(again.stdout, r.stdout)
    }

    func testNavigateJSONCarriesTheStateAndTheChanges() throws {
        let r = try Host.run(["navigate", Self.product, "--user", "gold", "--steps", "tap:fav", "--state", "qty=2", "--format", "json"])
        XCTAssertEqual(r.status, 0, r.transcript)
        let steps = try XCTUnwrap(try r.jsonObject()["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.count, 1)
        let state = try XCTUnwrap(steps[0]["state"] as? [String: Any])
        XCTAssertEqual(state["favorite"] as? Bool, true)
        XCTAssertEqual(state["qty"] as? Int, 2)
        XCTAssertEqual(state.count, 2)
        XCTAssertTrue(r.stdout.contains(#""favorite": true"#), r.stdout)
        let changes = try XCTUnwrap(steps[0]["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { $0["id"] as? String }, ["fav"])
        XCTAssertEqual(changes.first?["change"] as? String, "soft")
        XCTAssertEqual(changes.first?["fields"] as? [String], ["props.selected", "props.title"])
    }

    func testARuleReadingStateFollowsAndAMaxStopsTheIncrement() throws {
        let r = try Host.run(["navigate", Self.product, "--user", "gold", "--steps", "tap:plus,tap:plus,tap:plus,tap:minus"])
        XCTAssertEqual(r.status, 0, r.transcript)
        let steps: [String] = Array(r.stdout.components(separatedBy: "▶ ").dropFirst())
        XCTAssertEqual(steps.count, 4, r.stdout)
        // qty 3: the bulk label's rule ({"equals": {"state.qty": 3}}) shows it.
        XCTAssertTrue(steps[1].contains("inserted component 'bulk'"), steps[1])
        XCTAssertTrue(steps[1].contains("state: favorite=false qty=3"), steps[1])
        // The max (3) stops the third increment: nothing changes.
        XCTAssertTrue(steps[2].contains("no changes"), steps[2])
        XCTAssertTrue(steps[2].contains("state: favorite=false qty=3"), steps[2])
        XCTAssertTrue(steps[3].contains("deleted  component 'bulk'"), steps[3])
        XCTAssertTrue(steps[3].contains("state: favorite=false qty=2"), steps[3])
    }

    func testRunWithAStartingStateBindsAndRulesFollow() throws {
        let plain = try Host.run(["run", Self.product, "--user", "gold", "--no-graph"])
        XCTAssertEqual(plain.status, 0, plain.transcript)
        XCTAssertTrue(plain.stdout.contains(#"title="Save""#), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("#bulk"), plain.stdout)
        let r = try Host.run(["run", Self.product, "--user", "gold", "--no-graph", "--state", "qty=3", "--state", "favorite=true"])
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertTrue(r.stdout.contains(#"selected=true title="Saved""#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"text="Quantity: 3""#), r.stdout)
        XCTAssertTrue(r.stdout.contains("label #bulk"), r.stdout)
        // A state action is not a navigation step: no flow warning for it.
        let check = try Host.run(["check", "--project", Self.project])
        XCTAssertFalse(check.transcript.contains("no flow handles step '{"), check.transcript)
    }

    func testPostedStateIsTheCommandLinesAnswer() throws {
        let run = try Host.run(["run", Self.product, "--user", "gold", "--no-graph", "--format", "json", "--state", "qty=3"])
        XCTAssertEqual(run.status, 0, run.transcript)
        let server = try ServeCommandTests.Server(["--project", Self.project, "--workers", "1"])
        let posted = try server.call("/v1/screens/product", method: "POST", body: #"{"profile": "gold", "state": {"qty": 3}}"#)
        XCTAssertEqual(posted.status, 200, posted.body)
        XCTAssertEqual(posted.body, run.stdout)
        let wrong = try server.call("/v1/screens/product", method: "POST", body: #"{"profile": "gold", "state": {"qty": "three"}}"#)
        XCTAssertEqual(wrong.status, 500, wrong.body)
        XCTAssertTrue(wrong.body.contains("state 'qty' is an integer"), wrong.body)
    }

    /// `s:tap` on a state action and `s:state()` in a scenario (Tests/Fixtures/state/scenarios).
    func testScenarioTapsChangeTheState() throws {
        let r = try Host.run(["test", "\(Self.project)/scenarios"], environment: ["CI": "true"])
        XCTAssertEqual(r.status, 0, r.transcript)
        XCTAssertTrue(r.stdout.contains("2 passed, 0 failed"), r.transcript)
    }

    /// The clickable preview taps a state action by the node's id (`steps=tap:fav`): the
    /// screen drawn is the one with the new state, and `"state"` says it.
    func testPreviewAppliesStateTaps() throws {
        let server = try ServeCommandTests.Server(["--project", Self.project, "--workers", "1"])
        let r = try server.call("/v1/preview/product?profile=gold&steps=tap:fav,tap:plus")
        XCTAssertEqual(r.status, 200, r.body)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
        XCTAssertEqual(o["taken"] as? [String], ["tap:fav", "tap:plus"])
        let state = try XCTUnwrap(o["state"] as? [String: Any])
        XCTAssertEqual(state["favorite"] as? Bool, true)
        XCTAssertEqual(state["qty"] as? Int, 2)
        XCTAssertTrue(r.body.contains("Quantity: 2"), r.body)
        XCTAssertTrue(r.body.contains("Saved"), r.body)
        let start = try server.call("/v1/preview/product?profile=gold")
        XCTAssertTrue(start.body.contains("Quantity: 1"), start.body)
        XCTAssertTrue(start.body.contains(#""state":{"favorite":false,"qty":1}"#), start.body)
    }

    /// Each bad input: exit 1 and exactly one error, located.
    func assertOneError(_ args: [String], _ prefix: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try Host.run(args)
        XCTAssertEqual(r.status, 1, r.transcript, file: file, line: line)
        let errors = r.stderrLines.filter { $0.contains("error: ") }
        XCTAssertEqual(errors.count, 1, r.transcript, file: file, line: line)
        XCTAssertTrue(errors.first?.hasPrefix(prefix) == true, "expected \(prefix)…\n\(r.transcript)", file: file, line: line)
    }

    func testBadInputsGiveOneLocatedErrorEach() throws {
        try assertOneError(["run", Self.product, "--no-graph", "--state", "qyt=3"],
                           "\(Self.product):3:3: error: state 'qyt' was given, but the screen declares no state of that name; did you mean 'qty'?")
        try assertOneError(["run", Self.product, "--no-graph", "--state", "qty=x"],
                           "\(Self.product):3:32: error: state 'qty' is an integer (declared here), given 'x'")
        try assertOneError(["navigate", Self.product, "--user", "gold", "--steps", "tap:fav", "--state", "favorite=yes"],
                           "\(Self.product):3:13: error: state 'favorite' is a boolean (declared here), given 'yes'")
        try assertOneError(["run", Self.bad("unknown_action"), "--no-graph"],
                           "\(Self.bad("unknown_action")):4:92: error: unknown state 'qyt'; did you mean 'qty'?")
        try assertOneError(["run", Self.bad("wrong_type"), "--no-graph"],
                           "\(Self.bad("wrong_type")):4:92: error: state 'note' is a string: only a number is incremented or decremented")
        try assertOneError(["run", Self.bad("unknown_binding"), "--no-graph"],
                           "\(Self.bad("unknown_binding")):4:85: error: $format: state has no field 'qtty'; did you mean 'qty'?")
        try assertOneError(["run", Self.bad("no_state"), "--no-graph"],
                           "\(Self.bad("no_state")):3:92: error: unknown state 'qty' (the screen declares no \"state\")")
        try assertOneError(["navigate", Self.product, "--user", "gold", "--steps", "tap:count"],
                           "error: tap:count: node 'count' on screen 'product' has no action (tappable: fav, plus, minus, checkout)")
        try assertOneError(["navigate", Self.product, "--user", "gold", "--steps", "tap:nope"],
                           "error: tap:nope: screen 'product' shows no node with id 'nope' to this user (tappable: fav, plus, minus, checkout)")
        try assertOneError(["navigate", Self.product, "--user", "gold", "--steps", "tap:"],
                           "error: tap:ID names the id of a node to tap")
    }
}
