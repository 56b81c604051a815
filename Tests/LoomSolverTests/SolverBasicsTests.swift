import XCTest
@testable import LoomSolver

final class SolverBasicsTests: XCTestCase {
    func v(_ x: Variable) -> LinearExpression { LinearExpression(x) }
    func k(_ c: Double) -> LinearExpression { LinearExpression(constant: c) }

    func testSimpleEqualities() throws {
        var s = Solver()
        let x = s.makeVariable(named: "x"), y = s.makeVariable(named: "y")
        try s.add(Constraint(v(x), .equal, k(20)))
        try s.add(Constraint(v(x) + v(y), .equal, k(50)))
        s.updateVariables()
        XCTAssertEqual(s[x], 20, accuracy: 1e-9)
        XCTAssertEqual(s[y], 30, accuracy: 1e-9)
    }
}
