import XCTest
@testable import LoomSolver

final class ConstraintParserTests: XCTestCase {
    func parse(_ s: String) throws -> ParsedConstraint { try ConstraintParser.parse(s) }

    func error(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> ConstraintParseError? {
        do {
            _ = try ConstraintParser.parse(s)
            XCTFail("parsed: \(s)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func singles(_ s: String) throws -> [String] { try parse(s).expanded().map(\.description) }

    func testFullForm() throws {
        let c = try parse("poster_w: width == #poster.width * 0.5 + 10 @ 750")
        XCTAssertEqual(c.name, "poster_w")
        XCTAssertEqual(c.attribute, .anchor(Anchor(.width)))
        XCTAssertEqual(c.attributeColumn, 11)
        XCTAssertEqual(c.relation, .equal)
        XCTAssertEqual(c.relationColumn, 17)
        XCTAssertEqual(c.operand, .target(.id("poster"), attribute: .anchor(Anchor(.width))))
        XCTAssertEqual(c.operandColumn, 20)
        XCTAssertEqual(c.multiplier, 0.5)
        XCTAssertEqual(c.constant, 10)
        XCTAssertEqual(c.priority, 750)
        XCTAssertEqual(c.priorityColumn, 47)
    }

    func testForms() throws {
        XCTAssertEqual(try singles("height == 44"), ["height == 44"])
        XCTAssertEqual(try singles("width >= 120"), ["width >= 120"])
        XCTAssertEqual(try singles("top == prev.bottom + 8"), ["top == prev.bottom + 8"])
        XCTAssertEqual(try singles("bottom <= safe_area.bottom - 16 @ high"), ["bottom <= safe_area.bottom - 16 @ 750"])
        XCTAssertEqual(try singles("center_y == parent.center_y"), ["center_y == parent.center_y"])
        XCTAssertEqual(try singles("leading == next.trailing_margin @ low"), ["leading == next.trailing_margin @ 250"])
        XCTAssertEqual(try singles("top == parent"), ["top == parent.top"])
        XCTAssertEqual(try singles("width == #poster-image.height * 2"), ["width == #poster-image.height * 2"])
        XCTAssertEqual(try singles("height == -4"), ["height == -4"])
        XCTAssertEqual(try singles("left == parent.left_margin @ required"), ["left == parent.left_margin"])
        XCTAssertEqual(try parse("width == 10 @ 1").priority, 1)
    }

    func testGuideExpansions() throws {
        XCTAssertEqual(try singles("sides == parent.side_margins"), ["left == parent.left_margin", "right == parent.right_margin"])
        XCTAssertEqual(try singles("sides == parent.sides + 16"), ["left == parent.left + 16", "right == parent.right - 16"])
        XCTAssertEqual(try singles("edges == parent"), ["top == parent.top", "left == parent.left", "bottom == parent.bottom", "right == parent.right"])
        XCTAssertEqual(try singles("edges == safe_area.edge_margins"),
                       ["top == safe_area.top_margin", "left == safe_area.left_margin", "bottom == safe_area.bottom_margin", "right == safe_area.right_margin"])
        XCTAssertEqual(try singles("center == parent.center + 10"), ["center_x == parent.center_x + 10", "center_y == parent.center_y + 10"])
        XCTAssertEqual(try singles("size == {100, 44}"), ["width == 100", "height == 44"])
        XCTAssertEqual(try singles("size == 44"), ["width == 44", "height == 44"])
        XCTAssertEqual(try singles("size == #a.size * 0.5 @ 500"), ["width == #a.width * 0.5 @ 500", "height == #a.height * 0.5 @ 500"])
        XCTAssertEqual(try singles("side_margins == parent.sides"), ["left_margin == parent.left", "right_margin == parent.right"])
        let parts = try parse("g: center == parent.center").expanded()
        XCTAssertEqual(parts.map(\.part), [0, 1])
        XCTAssertEqual(parts.map(\.name), ["g", "g"])
    }

    func testOverrideConstant() throws {
        var c = try parse("poster_top: top == parent.top + 20")
        XCTAssertTrue(c.overrideConstant(40))
        XCTAssertEqual(c.expanded().map(\.description), ["top == parent.top + 40"])
        var h = try parse("h: height == 44")
        XCTAssertTrue(h.overrideConstant(50))
        XCTAssertEqual(h.expanded().map(\.description), ["height == 50"])
        var s = try parse("size == {1, 2}")
        XCTAssertFalse(s.overrideConstant(3))
    }

    func testErrorsCarryColumnsAndSuggestions() {
        let cases: [(String, Int, String)] = [
            ("widht == 44", 1, "unknown attribute 'widht' (did you mean 'width'?)"),
            ("top == parent.bottm + 8", 15, "unknown attribute 'bottm' (did you mean 'bottom'?)"),
            ("top = parent.top", 5, "did you mean '=='?"),
            ("top == parnt.top", 8, "unknown target 'parnt': expected parent, prev, next, #id or safe_area (did you mean 'parent'?)"),
            ("top == parent.top @ hihg", 21, "did you mean 'high'?"),
            ("top == parent.top @ 1001", 21, "priority 1001 is out of range: expected 1…1000"),
            ("top == parent.top @ 0", 21, "out of range"),
            ("top == parent.top +", 20, "expected a number after '+', found the end of the constraint"),
            ("top == parent.top 8", 19, "unexpected '8'"),
            ("top parent.top", 5, "expected a relation ==, >= or <= after 'top', found 'parent'"),
            ("", 1, "empty constraint"),
            ("top == ", 8, "expected a target (parent, prev, next, #id, safe_area), a constant or a size {w, h}, found the end of the constraint"),
            ("size == {100 44}", 14, "expected ',' between the width and the height"),
            ("size == {100, 44", 17, "expected '}' to close the size"),
            ("top == #", 9, "expected an id after '#'"),
            ("sides == parent.top", 10, "'sides' is a guide of 2 attributes but 'top' is one"),
            ("top == parent.sides", 8, "'top' is one attribute but 'sides' is a guide of 2"),
            ("sides == parent.center", 10, "'sides' cannot be constrained to 'center': expected sides or side_margins"),
            ("top == 20", 8, "'top' cannot equal a constant"),
            ("width_margin == 4", 1, "'width' has no _margin form"),
            ("top == bottom", 8, "'bottom' is an attribute: name its view first"),
            ("top == parent.top $", 19, "unexpected character '$'"),
            ("width == 12px", 12, "unexpected 'p' after the number 12"),
            ("width == 1000001", 10, "the number 1000001 is out of range: at most 1000000"),
            ("width == #a.width * 0.5 + \(String(repeating: "9", count: 400))", 27, "the number 99999999999999999999… is out of range: at most 1000000"),
            ("center == {1, 2}", 11, "a size {w, h} constrains 'size', not 'center'"),
            ("top == parent.top * 2 * 3", 23, "unexpected '*'"),
        ]
        for (text, column, message) in cases {
            guard let e = error(text) else { continue }
            XCTAssertEqual(e.column, column, "\(text): \(e)")
            XCTAssertTrue(e.message.contains(message), "\(text): \(e.message)")
        }
    }

    /// A misspelt name is compared only with names about as long (the distance is at least the
    /// difference of the lengths): a 20,000-character attribute, target or priority is compared
    /// with none (before: a 20,000-row table for every name), and says what it is all the same.
    func testAHugeUnknownNameIsComparedWithNoName() {
        let huge = String(repeating: "w", count: 20_000)
        var compared = 0
        XCTAssertNil(ConstraintParser.suggestion(for: huge, in: Anchor.allNames + Guide.allCases.map(\.rawValue), compared: &compared))
        XCTAssertNil(ConstraintParser.suggestion(for: huge, in: ConstraintParser.targetNames, compared: &compared))
        XCTAssertEqual(compared, 0)
        XCTAssertEqual(ConstraintParser.suggestion(for: "widht", in: Anchor.allNames, compared: &compared), "width")
        XCTAssertLessThan(compared, Anchor.allNames.count, "names of other lengths are skipped")
        for text in ["\(huge) == 44", "top == parent.\(huge)", "top == \(huge).top", "top == parent.top @ \(huge)"] {
            guard let e = error(text) else { continue }
            XCTAssertTrue(e.message.hasPrefix("unknown "), e.message)
            XCTAssertFalse(e.message.contains("did you mean"), e.message)
        }
    }

    func testBuildsSolverConstraintsThroughTheResolver() throws {
        // Two views stacked in a 375-wide parent: frames as (x, y, w, h) variables.
        var s = Solver()
        func frame() -> [Anchor.Kind: LinearExpression] {
            let x = s.makeVariable(), y = s.makeVariable(), w = s.makeVariable(), h = s.makeVariable()
            return [.left: v(x), .top: v(y), .width: v(w), .height: v(h), .right: v(x) + v(w), .bottom: v(y) + v(h),
                    .centerX: v(x) + v(w) * 0.5, .centerY: v(y) + v(h) * 0.5, .leading: v(x), .trailing: v(x) + v(w)]
        }
        let parent = frame(), a = frame(), b = frame()
        struct Unknown: Error {}
        func resolver(_ me: [Anchor.Kind: LinearExpression]) -> (Target?, Anchor) throws(Unknown) -> LinearExpression {
            { (target, anchor) throws(Unknown) in
                let f: [Anchor.Kind: LinearExpression]
                switch target {
                case nil: f = me
                case .parent?: f = parent
                case .prev?: f = a
                default: throw Unknown()
                }
                let margin: Double = anchor.margin ? 8 : 0
                let inset: Double = [.left, .top, .leading].contains(anchor.kind) ? margin : [.right, .bottom, .trailing].contains(anchor.kind) ? -margin : 0
                return f[anchor.kind]! + inset
            }
        }
        for text in ["edges == parent", "size == {375, 667}"] {
            for c in try parse(text).solverConstraints(resolve: resolver(parent)) where !text.hasPrefix("edges") { try s.add(c) }
        }
        try s.add(Constraint(parent[.left]!, .equal, k(0)))
        try s.add(Constraint(parent[.top]!, .equal, k(0)))
        for text in ["sides == parent.side_margins", "top == parent.top + 20", "height == 44"] {
            for c in try parse(text).solverConstraints(tag: 1, resolve: resolver(a)) { try s.add(c) }
        }
        for text in ["sides == prev", "top == prev.bottom + 8", "height == prev.height * 2"] {
            for c in try parse(text).solverConstraints(tag: 2, resolve: resolver(b)) { try s.add(c) }
        }
        XCTAssertThrowsError(try parse("top == #nope.top").solverConstraints(resolve: resolver(b)))
        s.updateVariables()
        func rect(_ f: [Anchor.Kind: LinearExpression]) -> [Double] {
            [f[.left]!, f[.top]!, f[.width]!, f[.height]!].map { e in e.terms.reduce(e.constant) { $0 + $1.coefficient * s[$1.variable] } }
        }
        XCTAssertEqual(rect(a), [8, 20, 359, 44])
        XCTAssertEqual(rect(b), [8, 72, 359, 88])
        // A lower priority gives way to a required constraint.
        let weak = try parse("width == 100 @ low").solverConstraints(resolve: resolver(b))
        XCTAssertEqual(weak.first?.strength, 250_000)
        try s.add(weak[0])
        s.updateVariables()
        XCTAssertEqual(rect(b)[2], 359, accuracy: 1e-9)
    }

    /// Token soup never traps: every string parses or fails with a column inside it (or just past it).
    func testRandomInputsParseOrFailWithAColumn() {
        let pieces = ["top", "width", "sides", "size", "==", ">=", "<=", "=", "parent", "#a-b", ".", "*", "+", "-", "@",
                      "high", "{", "}", ",", "12", "0.5", "1e3", "99999999999999999999999", ":", "name", " ", "é", "$", "prev.", "_margin"]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...9, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined(separator: Bool.random(using: &rng) ? " " : "")
            do {
                _ = try ConstraintParser.parse(text)
            } catch {
                XCTAssert(error.column >= 1 && error.column <= text.unicodeScalars.count + 1, "\(text): \(error)")
                XCTAssertFalse(error.message.isEmpty)
            }
        }
    }
}
