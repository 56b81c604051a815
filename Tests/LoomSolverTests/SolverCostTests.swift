import XCTest

@testable import LoomSolver

/// The solver's work count and budget, row merges that do not pass over the whole row, and the
/// ambiguity of sums (docs/layout.md, "Cost" and "Ambiguity").
final class SolverCostTests: XCTestCase {
    /// A chain x0 = 0, x(k) = x(k−1) + w(k−1), every w(k) ≥ 10 and preferring 20, closed by
    /// x(n) == 1000: the shape that makes the tableau dense.
    func chain(_ s: inout Solver, _ n: Int) throws {
        let x = (0...n).map { _ in s.makeVariable() }, w = (0..<n).map { _ in s.makeVariable() }
        try s.add(Constraint(LinearExpression(x[0]), .equal))
        for k in 1...n { try s.add(Constraint(LinearExpression(x[k]), .equal, LinearExpression(x[k - 1]) + LinearExpression(w[k - 1]))) }
        for k in 0..<n {
            try s.add(Constraint(LinearExpression(w[k]), .greaterOrEqual, LinearExpression(constant: 10)))
            try s.add(Constraint(LinearExpression(w[k]), .equal, LinearExpression(constant: 20), strength: Strength.medium))
        }
        try s.add(Constraint(LinearExpression(x[n]), .equal, LinearExpression(constant: 1000)))
    }

    func testWorkIsCountedTheSameEveryTime() throws {
        var a = Solver(), b = Solver()
        try chain(&a, 60)
        try chain(&b, 60)
        XCTAssertGreaterThan(a.work, 0)
        XCTAssertEqual(a.work, b.work)
        XCTAssertEqual(a.pivots, b.pivots)
        XCTAssertGreaterThan(a.pivots, 0)
    }

    func testTheWorkLimitStopsTheSolverWithAnError() throws {
        var full = Solver()
        try chain(&full, 60)
        var s = Solver()
        s.workLimit = full.work / 3
        XCTAssertThrowsError(try chain(&s, 60)) { error in
            XCTAssertEqual(error as? SolverError, .workLimitExceeded(full.work / 3))
        }
        XCTAssertLessThan(s.work, full.work, "it stopped before doing all the work")
        // Every call after that fails the same way; the solver itself stays usable to read.
        XCTAssertThrowsError(try s.add(Constraint(LinearExpression(s.makeVariable()), .equal))) {
            XCTAssertEqual($0 as? SolverError, .workLimitExceeded(full.work / 3))
        }
        s.updateVariables()
        XCTAssertTrue((0..<s.variableCount).allSatisfy { s[Variable(index: $0)].isFinite })
    }

    /// `shouldStop` (a serve request's deadline) stops the solver at a pivot, inside one `add`;
    /// asked for nothing, it changes nothing.
    func testShouldStopStopsAtAPivot() throws {
        var full = Solver()
        try chain(&full, 60)
        var same = Solver()
        same.shouldStop = { false }
        try chain(&same, 60)
        XCTAssertEqual(same.work, full.work)
        XCTAssertEqual(same.pivots, full.pivots)
        var s = Solver()
        s.shouldStop = { true }
        XCTAssertThrowsError(try chain(&s, 60)) { XCTAssertEqual($0 as? SolverError, .stopped) }
        XCTAssertLessThan(s.pivots, full.pivots)
    }

    /// A two-cell row substituted into a long row costs its cells and the cells it moves, not a
    /// pass over the long row (the row merge finds its cells by galloping).
    func testARowMergeCostsTheCellsItTouches() {
        var long = Row(constant: 1)
        for s in 1...10_000 { long.insert(2 * s, 1) }
        var short = Row(constant: 2)
        short.insert(20_001, 1)
        short.insert(20_003, -1)
        var appended = long
        XCTAssertLessThanOrEqual(appended.insert(short, 2), 8, "new cells after the last: nothing moves")
        XCTAssertEqual(appended.ids.count, 10_002)
        XCTAssertEqual(appended.constant, 5)
        var inPlace = long
        var existing = Row()
        existing.insert(19_000, 1)
        existing.insert(19_002, 1)
        XCTAssertLessThanOrEqual(inPlace.insert(existing, 1), 4, "cells that exist are summed where they are")
        XCTAssertEqual(inPlace.coefficient(for: 19_000), 2)
        var middle = long
        var between = Row()
        between.insert(19_001, 1)
        between.insert(19_003, 1)
        let cost = middle.insert(between, 1)
        XCTAssertLessThanOrEqual(cost, 2 + 2 + 502, "only the cells after the first new one move")
        XCTAssertEqual(middle.ids, middle.ids.sorted())
    }

    /// Sums read off the tableau: x + y pinned by a required constraint is determined though x
    /// and y are not; x − y is not; a variable in no constraint never is.
    func testCombinationReaderReadsSums() throws {
        var s = Solver()
        let x = s.makeVariable(), y = s.makeVariable(), z = s.makeVariable(), lone = s.makeVariable()
        try s.add(Constraint(LinearExpression(x) + LinearExpression(y), .equal, LinearExpression(constant: 10)))
        try s.add(Constraint(LinearExpression(z), .equal, LinearExpression(constant: 3)))
        s.updateVariables()
        XCTAssertEqual(s.ambiguousVariables([x, y, z, lone]), [x, y, lone])
        var reader = Solver.CombinationReader(s)
        func verdict(_ e: LinearExpression) -> Solver.CombinationReader.Verdict {
            reader.reset()
            reader.add(e)
            return reader.verdict
        }
        XCTAssertEqual(verdict(LinearExpression(x) + LinearExpression(y)), .determined)
        XCTAssertEqual(verdict(LinearExpression(x) - LinearExpression(y)), .ambiguous)
        XCTAssertEqual(verdict(LinearExpression(z) * 2 + 7), .determined)
        XCTAssertEqual(verdict(LinearExpression(x) + LinearExpression(y) + LinearExpression(lone)), .ambiguous)
        XCTAssertEqual(verdict(LinearExpression(lone) - LinearExpression(lone)), .determined)
        // Added in two steps, as a chain adds one child's size after another.
        reader.reset()
        reader.add(LinearExpression(x))
        XCTAssertEqual(reader.verdict, .ambiguous)
        reader.add(LinearExpression(y))
        XCTAssertEqual(reader.verdict, .determined)
        // The probe on a sum agrees.
        var work = s
        XCTAssertFalse(work.moves(LinearExpression(x) + LinearExpression(y)))
        XCTAssertTrue(work.moves(LinearExpression(x) - LinearExpression(y)))
    }

    func testTheAmbiguityReportCountsWhatWasNotProbed() throws {
        // The generated systems of AmbiguityMethodTests: some have degenerate vertices, where the
        // tableau cannot tell and each undecided variable needs a probe.
        var withUndecided = 0
        for seed in 1...400 as ClosedRange<UInt64> {
            let (s, vars) = AmbiguityMethodTests.randomSystem(seed: seed)
            let none = s.ambiguity(vars, maxProbes: 0)
            XCTAssertEqual(none.probed, 0)
            XCTAssertEqual(none.unprobed, none.undecided)
            let all = s.ambiguity(vars, maxProbes: 64)
            XCTAssertEqual(all.undecided, none.undecided)
            XCTAssertEqual(all.probed, all.undecided, "seed \(seed)")
            XCTAssertEqual(all.variables, s.ambiguousVariablesByProbing(vars), "seed \(seed)")
            if none.undecided > 1 {
                withUndecided += 1
                let one = s.ambiguity(vars, maxProbes: 1)
                XCTAssertEqual(one.probed, 1)
                XCTAssertEqual(one.unprobed, none.undecided - 1)
                XCTAssertTrue(Set(all.variables).isSubset(of: Set(one.variables)), "an unprobed one is reported ambiguous")
            }
        }
        XCTAssertGreaterThan(withUndecided, 0)
    }
}
