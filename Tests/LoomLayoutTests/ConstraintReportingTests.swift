import LoomCore
import XCTest

@testable import LoomLayout

/// Own constraints: named overrides from styles, unsatisfiable constraints reported with their
/// location and conflicting set, ambiguity, constraint errors (unknown ids, prev/next/parent),
/// the syntax check without layout.
final class ConstraintReportingTests: XCTestCase {
    let poster = """
        {"screen": "s", "root": {"type": "container", "children": [
          {"type": "view", "id": "poster", "constraints": ["poster_top: top == parent.top + 20", "left == parent.left", "size == {100, 150}"]}]}}
        """

    func testNamedConstantIsOverriddenFromTheStyle() throws {
        XCTAssertEqual(try Harness.layout(poster).frame("poster")?.y, 20)
        let o = try Harness.layout(poster, styles: ["poster": ["constraints": ["poster_top": 40]]])
        XCTAssertFrame(o.frame("poster"), 0, 40, 100, 150)
        XCTAssertTrue(o.diagnostics.isEmpty, "\(o.messages)")
    }

    func testOverrideOfAnUnknownNameIsAWarning() throws {
        let o = try Harness.layout(poster, styles: ["poster": ["constraints": ["postr_top": 40]]])
        XCTAssertEqual(o.frame("poster")?.y, 20)
        XCTAssertEqual(o.diagnostics.count, 1)
        let d = try XCTUnwrap(o.diagnostics.first)
        XCTAssertEqual(d.severity, .warning)
        XCTAssertTrue(d.message.contains("'postr_top'") && d.message.contains("did you mean 'poster_top'") && d.message.contains("Style.json:3"), d.message)
        XCTAssertEqual(d.location?.line, 2)
    }

    func testUnsatisfiableConstraintIsReportedAtItsStringWithTheConflictingSetAndLeftOut() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "view", "id": "title", "constraints": ["edges == parent", "width == 500"]}]}}
            """)
        XCTAssertFrame(o.frame("title"), 0, 0, 393, 852)
        let errors = o.diagnostics.filter { $0.severity == .error }
        XCTAssertEqual(errors.count, 1, "\(o.messages)")
        let e = try XCTUnwrap(errors.first)
        XCTAssertTrue(e.message.hasPrefix("unsatisfiable constraint 'width == 500' on #title (root/children[0]): it conflicts with"), e.message)
        XCTAssertEqual(e.location?.description, "s.json:2:70")
        let notes = o.diagnostics.filter { $0.severity == .note }
        XCTAssertFalse(notes.isEmpty)
        let noteText = notes.map(\.message).joined(separator: "\n")
        XCTAssertTrue(noteText.contains("'left == parent.left' (from 'edges == parent')"), noteText)
        XCTAssertTrue(noteText.contains("'right == parent.right' (from 'edges == parent')"), noteText)
        XCTAssertTrue(noteText.contains("the root fills the screen: width == 393"), noteText)
        XCTAssertTrue(notes.contains { $0.location?.description == "s.json:2:51" })
        XCTAssertEqual(o.findings(.unsatisfiable).map(\.path), ["root/children[0]"])
        XCTAssertTrue(o.system.constraints.contains { !$0.accepted && $0.source.contains("width == 500") })
    }

    func testUndeterminedFramesAreAmbiguous() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "view", "id": "v", "constraints": ["width == 10", "top == parent.top"]}]}}
            """)
        let a = o.findings(.ambiguous)
        XCTAssertEqual(a.map(\.path), ["root/children[0]"])
        XCTAssertTrue(a[0].message.contains("left, height of #v"), a[0].message)
        XCTAssertTrue(o.diagnostics.contains { $0.severity == .warning && $0.location?.line == 2 })
    }

    func testConstraintErrorsAreLocatedAndLeftOut() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "constraints": ["top == parent.top"], "children": [
              {"type": "view", "id": "poster", "constraints": ["top == prev.bottom", "edges == parent"]},
              {"type": "view", "id": "b", "constraints": ["width == #postr.width", "top == next.top", "edges == parent"]}]}}
            """)
        let errors = o.diagnostics.filter { $0.severity == .error }.map(\.message)
        XCTAssertEqual(errors.count, 4, "\(errors)")
        XCTAssertTrue(errors[0].contains("'parent' on the root"), errors[0])
        XCTAssertTrue(errors[1].contains("'prev' on a first child"), errors[1])
        XCTAssertTrue(errors[2].contains("no laid-out node has id '#postr'; did you mean 'poster'?"), errors[2])
        XCTAssertTrue(errors[3].contains("'next' on a last child"), errors[3])
        XCTAssertEqual(o.diagnostics.first?.location?.description, "s.json:1:63")
        XCTAssertFrame(o.frame("b"), 0, 0, 393, 852)
    }

    func testParseErrorsInLayoutAndCheckAreLocatedAtTheBadToken() throws {
        let json = """
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "view", "id": "v", "constraints": ["edges == parent", "widht == 44", 7]},
              {"type": "view", "id": "w", "constraints": "top == parent.top"}]}}
            """
        let (_, _, screen) = try Harness.resolve(json)
        let d = ConstraintCheck.check(screen)
        XCTAssertEqual(d.map(\.description), [
            "s.json:2:67: error: constraint 'widht == 44': unknown attribute 'widht' (did you mean 'width'?)",
            "s.json:2:81: error: a constraint is a string such as \"top == parent.top + 8\", found a number",
            "s.json:3:46: error: \"constraints\" is a list of constraint strings, found a string",
        ])
        let o = try Harness.layout(json)
        XCTAssertTrue(o.diagnostics.contains { $0.location?.description == "s.json:2:67" && $0.message.contains("widht") })
    }
}
