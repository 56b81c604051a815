import XCTest
@testable import LoomSolver

func v(_ x: Variable) -> LinearExpression { LinearExpression(x) }
func k(_ c: Double) -> LinearExpression { LinearExpression(constant: c) }

final class SolverBasicsTests: XCTestCase {
    func testEqualitiesAndSubstitution() throws {
        var s = Solver()
        let x = s.makeVariable(named: "x"), y = s.makeVariable(named: "y")
        try s.add(Constraint(v(x), .equal, k(20)))
        try s.add(Constraint(v(x) + v(y), .equal, k(50)))
        s.updateVariables()
        XCTAssertEqual(s[x], 20, accuracy: 1e-9)
        XCTAssertEqual(s[y], 30, accuracy: 1e-9)
        XCTAssertEqual(s.name(of: y), "y")
        XCTAssertEqual(s.constraintCount, 2)
    }

    func testStrengthsOrderWeakBelowMediumBelowStrongBelowRequired() throws {
        var s = Solver()
        let x = s.makeVariable()
        try s.add(Constraint(v(x), .equal, k(1), strength: Strength.weak))
        try s.add(Constraint(v(x), .equal, k(2), strength: Strength.medium))
        try s.add(Constraint(v(x), .equal, k(3), strength: Strength.strong))
        s.updateVariables()
        XCTAssertEqual(s[x], 3, accuracy: 1e-9)
        let req = try s.add(Constraint(v(x), .lessOrEqual, k(2.5)))
        s.updateVariables()
        XCTAssertEqual(s[x], 2.5, accuracy: 1e-9)
        try s.remove(req)
        s.updateVariables()
        XCTAssertEqual(s[x], 3, accuracy: 1e-9)
    }

    func testStrengthValuesAreKiwis() {
        XCTAssertEqual(Strength.required, 1_001_001_000)
        XCTAssertEqual(Strength.strong, 1_000_000)
        XCTAssertEqual(Strength.medium, 1000)
        XCTAssertEqual(Strength.weak, 1)
        XCTAssertEqual(Strength.create(1, 2, 3, 2), 2_004_006)
        XCTAssertEqual(Strength.forPriority(1000), Strength.required)
        XCTAssertEqual(Strength.forPriority(750), 750_000)
        XCTAssertEqual(Strength.forPriority(250), 250_000)
        XCTAssertEqual(Strength.forPriority(1), Strength.medium)
        XCTAssertLessThan(Strength.forPriority(999), Strength.strong)
    }

    func testInequalitiesAgainstAPreference() throws {
        var s = Solver()
        let w = s.makeVariable()
        try s.add(Constraint(v(w), .greaterOrEqual, k(120)))
        try s.add(Constraint(v(w), .equal, k(44), strength: Strength.strong))
        s.updateVariables()
        XCTAssertEqual(s[w], 120, accuracy: 1e-9)
    }

    func testEditVariablesFollowSuggestions() throws {
        var s = Solver()
        let left = s.makeVariable(), width = s.makeVariable(), right = s.makeVariable()
        try s.add(Constraint(v(right), .equal, v(left) + v(width)))
        try s.add(Constraint(v(width), .greaterOrEqual, k(10)))
        try s.add(Constraint(v(left), .equal, k(0), strength: Strength.weak))
        try s.addEditVariable(right, strength: Strength.strong)
        try s.suggestValue(right, 100)
        s.updateVariables()
        XCTAssertEqual(s[right], 100, accuracy: 1e-9)
        XCTAssertEqual(s[left] + s[width], 100, accuracy: 1e-9)
        try s.suggestValue(right, 5)  // width >= 10 is required: left goes negative
        s.updateVariables()
        XCTAssertEqual(s[right], 5, accuracy: 1e-9)
        XCTAssertGreaterThanOrEqual(s[width], 10 - 1e-9)
        XCTAssertThrowsError(try s.addEditVariable(right, strength: Strength.weak)) { XCTAssertEqual($0 as? SolverError, .duplicateEditVariable(right)) }
        XCTAssertThrowsError(try s.addEditVariable(left, strength: Strength.required)) { XCTAssertEqual($0 as? SolverError, .badRequiredStrength) }
        XCTAssertThrowsError(try s.suggestValue(left, 1)) { XCTAssertEqual($0 as? SolverError, .unknownEditVariable(left)) }
        try s.removeEditVariable(right)
        XCTAssertFalse(s.hasEditVariable(right))
    }

    func testRemovingUnknownConstraintThrows() throws {
        var s = Solver()
        let x = s.makeVariable()
        let c = try s.add(Constraint(v(x), .equal, k(1)))
        try s.remove(c)
        XCTAssertFalse(s.contains(c))
        XCTAssertThrowsError(try s.remove(c)) { XCTAssertEqual($0 as? SolverError, .unknownConstraint(c)) }
    }

    func testUnsatisfiableEqualityNamesTheConflictAndLeavesNoTrace() throws {
        var s = Solver()
        let x = s.makeVariable(), y = s.makeVariable()
        let a = try s.add(Constraint(v(x), .equal, k(10), tag: 1))
        let b = try s.add(Constraint(v(y), .equal, v(x) + k(5), tag: 2))
        let before = (s.kinds.count, s.rows.count)
        let bad = Constraint(v(y), .equal, k(20), tag: 3)
        XCTAssertThrowsError(try s.add(bad)) { error in
            guard case .unsatisfiable(let u)? = error as? SolverError else { return XCTFail("\(error)") }
            XCTAssertEqual(u.constraint.tag, 3)
            XCTAssertEqual(u.conflicting, [a, b])
        }
        XCTAssertEqual(before.0, s.kinds.count)
        XCTAssertEqual(before.1, s.rows.count)
        s.updateVariables()
        XCTAssertEqual(s[y], 15, accuracy: 1e-9)
        // The solver goes on: a later constraint works as if the rejected one never came.
        let z = s.makeVariable()
        try s.add(Constraint(v(z), .equal, v(y) * 2))
        s.updateVariables()
        XCTAssertEqual(s[z], 30, accuracy: 1e-9)
    }

    func testUnsatisfiableInequalityThroughTheArtificialPhase() throws {
        var s = Solver()
        let x = s.makeVariable(), w = s.makeVariable()
        let lo = try s.add(Constraint(v(x), .greaterOrEqual, k(100)))
        _ = try s.add(Constraint(v(w), .equal, k(5), strength: Strength.weak))
        let hi = Constraint(v(x), .lessOrEqual, k(50))
        XCTAssertThrowsError(try s.add(hi)) { error in
            guard case .unsatisfiable(let u)? = error as? SolverError else { return XCTFail("\(error)") }
            XCTAssertEqual(u.conflicting, [lo])
        }
        XCTAssertNil(s.journal)
        s.updateVariables()
        XCTAssertEqual(s[x], 100, accuracy: 1e-9)
        XCTAssertEqual(s[w], 5, accuracy: 1e-9)
        try s.add(Constraint(v(x), .lessOrEqual, k(150)))
        s.updateVariables()
        XCTAssertEqual(s[x], 100, accuracy: 1e-9)
    }

    func testRedundantRequiredEqualityIsAccepted() throws {
        var s = Solver()
        let x = s.makeVariable()
        try s.add(Constraint(v(x), .equal, k(10)))
        try s.add(Constraint(v(x) * 2, .equal, k(20)))
        s.updateVariables()
        XCTAssertEqual(s[x], 10, accuracy: 1e-9)
    }

    func testAmbiguousVariables() throws {
        var s = Solver()
        let left = s.makeVariable(), width = s.makeVariable(), right = s.makeVariable(), lone = s.makeVariable()
        let fixed = s.makeVariable()
        try s.add(Constraint(v(right), .equal, v(left) + v(width)))
        try s.add(Constraint(v(right), .equal, k(300)))
        try s.add(Constraint(v(fixed), .equal, k(8)))
        try s.add(Constraint(v(lone), .greaterOrEqual, k(0)))
        XCTAssertEqual(s.ambiguousVariables([left, width, right, lone, fixed]), [left, width, lone])
        // A weak preference settles it; the check leaves the solver untouched.
        try s.add(Constraint(v(width), .equal, k(100), strength: Strength.weak))
        try s.add(Constraint(v(lone), .equal, k(1), strength: Strength.weak))
        XCTAssertEqual(s.ambiguousVariables([left, width, right, lone, fixed]), [])
        s.updateVariables()
        XCTAssertEqual(s[left], 200, accuracy: 1e-9)
        let never = s.makeVariable()
        XCTAssertEqual(s.ambiguousVariables([never]), [never])
    }

    func testCompetingPreferencesOfEqualStrengthAreAmbiguous() throws {
        // Three widths preferring 100 in a 250-point row: the 50-point shortfall can fall anywhere.
        var s = Solver()
        let w = (0..<3).map { _ in s.makeVariable() }
        try s.add(Constraint(v(w[0]) + v(w[1]) + v(w[2]), .equal, k(250)))
        for x in w { try s.add(Constraint(v(x), .equal, k(100), strength: Strength.medium)) }
        XCTAssertEqual(s.ambiguousVariables(w).count, 3)
        // A stronger preference on two of them settles all three.
        try s.add(Constraint(v(w[0]), .equal, k(100), strength: Strength.strong))
        try s.add(Constraint(v(w[1]), .equal, k(100), strength: Strength.strong))
        XCTAssertEqual(s.ambiguousVariables(w), [])
        s.updateVariables()
        XCTAssertEqual(s[w[2]], 50, accuracy: 1e-9)
        XCTAssertTrue(s.isPinned(s.symbolOf[w[2].index]) || s.rows[s.symbolOf[w[2].index]] == nil)
    }
}

final class LayoutDocExampleTests: XCTestCase {
    /// docs/layout.md's solver example gives the values the page says.
    func testDocExample() throws {
        var s = Solver()
        let x = s.makeVariable(named: "x"), w = s.makeVariable(named: "w")
        try s.add(Constraint(LinearExpression(x) + LinearExpression(w), .lessOrEqual, LinearExpression(constant: 375)))
        try s.add(Constraint(LinearExpression(w), .equal, LinearExpression(constant: 100), strength: Strength.strong))
        try s.addEditVariable(x, strength: Strength.medium)
        try s.suggestValue(x, 300)
        s.updateVariables()
        XCTAssertEqual(s[x], 275, accuracy: 1e-9)
        XCTAssertEqual(s[w], 100, accuracy: 1e-9)
    }
}
