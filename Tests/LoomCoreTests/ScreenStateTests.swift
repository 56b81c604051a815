import XCTest
import OrderedCollections
@testable import LoomCore

/// Screen state and state actions (docs/data.md, "State"): parsing and checking the
/// declaration, starting values, actions, and what an action does.
final class ScreenStateTests: XCTestCase {
    func doc(_ text: String) throws -> JSONDocument {
        try JSONReader.parse(Array(text.utf8), file: "s.json")
    }

    func declared() throws -> ScreenState {
        let (s, d) = ScreenState.parse(try doc(#"{"state": {"favorite": false, "qty": 1, "price": 2.5, "size": "M"}}"#))
        XCTAssertTrue(d.items.isEmpty, "\(d.items)")
        return try XCTUnwrap(s)
    }

    func action(_ text: String, _ state: ScreenState?) throws -> (StateAction?, [Diagnostic]) {
        var d = Diagnostics()
        let a = StateAction.parse(try doc(text).root, state: state, file: "s.json", diagnostics: &d)
        return (a, d.items)
    }

    func testDeclarationKeepsScalarsAndLocatesTheRest() throws {
        let s = try declared()
        XCTAssertEqual(Array(s.values.keys), ["favorite", "qty", "price", "size"])
        XCTAssertEqual(s.attributes["state.qty"], .int(1))
        XCTAssertEqual(s.text, "favorite=false qty=1 price=2.5 size='M'")
        let (bad, d) = ScreenState.parse(try doc(#"{"state": {"a": {"x": 1}, "1b": 2, "c": null}}"#))
        XCTAssertEqual(bad?.values.isEmpty, true)
        XCTAssertEqual(d.items.map { $0.location?.column }, [17, 27, 41])
        XCTAssertTrue(d.items[1].message.contains("'1b'"), d.items[1].message)
        let (none, nd) = ScreenState.parse(try doc(#"{"screen": "x"}"#))
        XCTAssertNil(none)
        XCTAssertTrue(nd.items.isEmpty)
    }

    func testStartingValuesAreTypedAsDeclared() throws {
        let s = try declared()
        let at = SourceLocation(file: "s.json", line: 1, column: 2)
        let (given, d) = s.with(["qty": .text("3"), "favorite": .text("true"), "price": .value(.int(4)), "size": .text("L")], at: at)
        XCTAssertTrue(d.items.isEmpty, "\(d.items)")
        XCTAssertEqual(given.values["qty"], .int(3))
        XCTAssertEqual(given.values["favorite"], .bool(true))
        XCTAssertEqual(given.values["price"], .int(4))
        XCTAssertEqual(given.values["size"], .string("L"))
        let (_, wrong) = s.with(["qty": .text("3.5"), "favorite": .value(.string("yes")), "qyt": .text("1")], at: at)
        XCTAssertEqual(wrong.items.count, 3)
        XCTAssertTrue(wrong.items.contains { $0.message.contains("did you mean 'qty'") }, "\(wrong.items)")
        XCTAssertTrue(wrong.items.contains { $0.message.contains("state 'qty' is an integer (declared here), given '3.5'") }, "\(wrong.items)")
    }

    func testActionsAreCheckedAgainstTheState() throws {
        let s = try declared()
        XCTAssertNotNil(try action(#"{"set": {"favorite": {"$not": "state.favorite"}, "size": "L"}}"#, s).0)
        XCTAssertNotNil(try action(#"{"increment": "qty", "max": 9}"#, s).0)
        XCTAssertNotNil(try action(#"{"decrement": "price", "min": 0, "by": 0.5}"#, s).0)
        let cases: [(String, String)] = [
            (#"{"increment": "qyt"}"#, "unknown state 'qyt'; did you mean 'qty'?"),
            (#"{"increment": "size"}"#, "state 'size' is a string: only a number is incremented or decremented"),
            (#"{"increment": "qty", "min": 0}"#, "an increment stops at a \"max\", not a \"min\""),
            (#"{"increment": "qty", "max": "9"}"#, "\"max\" of state 'qty' is an integer, found the string \"9\""),
            (#"{"increment": "qty", "step": 2}"#, "unknown key 'step' in an increment action"),
            (#"{"set": {"favorite": 1}}"#, "state 'favorite' is a boolean, set to the number 1"),
            (#"{"set": {"qty": {"$not": "state.qty"}}}"#, "$not negates a boolean state; state 'qty' is an integer"),
            (#"{"set": {"size": {"$not": "state.favorite"}}}"#, "state 'size' is a string, set to a boolean ($not)"),
            (#"{"set": {}}"#, "\"set\" maps state names to their new values"),
        ]
        for (text, message) in cases {
            let (a, d) = try action(text, s)
            XCTAssertNil(a, text)
            XCTAssertEqual(d.count, 1, "\(text): \(d)")
            XCTAssertTrue(d.first?.message.hasPrefix(message) == true, "\(text): \(d.first?.message ?? "none")")
            XCTAssertEqual(d.first?.location?.file, "s.json")
        }
        let (none, nd) = try action(#"{"increment": "qty"}"#, nil)
        XCTAssertNil(none)
        XCTAssertEqual(nd.first?.message, "unknown state 'qty' (the screen declares no \"state\")")
    }

    func testApplyingActionsStopsAtLimits() throws {
        var s = try declared()
        func run(_ text: String) throws {
            let a = try XCTUnwrap(StateAction.from(actionText: text, state: s), text)
            s = a.apply(to: s)
        }
        try run(#"{"set":{"favorite":{"$not":"state.favorite"}}}"#)
        XCTAssertEqual(s.values["favorite"], .bool(true))
        try run(#"{"set":{"favorite":{"$not":"state.favorite"}}}"#)
        XCTAssertEqual(s.values["favorite"], .bool(false))
        for _ in 0..<5 { try run(#"{"increment":"qty","max":3}"#) }
        XCTAssertEqual(s.values["qty"], .int(3))
        for _ in 0..<5 { try run(#"{"decrement":"qty","min":1,"by":2}"#) }
        XCTAssertEqual(s.values["qty"], .int(1))
        try run(#"{"increment":"price","max":2.75,"by":0.5}"#)
        XCTAssertEqual(s.values["price"], .double(2.75))
        // A double past the largest stays (JSON has no infinity).
        s.values["price"] = .double(1e308)
        try run(#"{"increment":"price","by":1e308}"#)
        XCTAssertEqual(s.values["price"], .double(1e308))
        // A navigation action is not a state action.
        XCTAssertNil(StateAction.from(actionText: "movie:42", state: s))
        // An integer at its largest stays (no trap).
        s.values["qty"] = .int(Int.max)
        try run(#"{"increment":"qty"}"#)
        XCTAssertEqual(s.values["qty"], .int(Int.max))
    }

    func testExpansionReadsStateAndGivesRulesTheAttributes() throws {
        let text = #"{"screen": "p", "state": {"qty": 2}, "root": {"type": "label", "id": "l", "meta": {"text": {"$format": "n={state.qty}"}}, "rule": {"equals": {"state.qty": 2}}, "action": {"increment": "qty"}}}"#
        let (s, _) = ScreenState.parse(try doc(text))
        XCTAssertTrue(TemplateExpander.needsExpansion(try doc(text)))
        let (out, d) = TemplateExpander.expand(try doc(text), data: [:], templates: NamedTemplates(), params: [:], limits: FileLimits(megabytes: 64), state: s)
        XCTAssertTrue(d.items.isEmpty, "\(d.items)")
        let root = try XCTUnwrap(out?.root.object?["root"]?.plain)
        guard case .object(let o) = root else { return XCTFail("\(root)") }
        XCTAssertEqual(o["meta"], .object(["text": .string("n=2")]))
        XCTAssertEqual(o["action"], .string(#"{"increment":"qty"}"#))
        XCTAssertEqual(o["$scope"], .object(["state.qty": .int(2)]))
        XCTAssertNil(out?.root.object?["state"])
    }
}
