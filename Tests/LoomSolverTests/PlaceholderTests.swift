import XCTest
@testable import LoomSolver
final class LoomSolverPlaceholderTests: XCTestCase { func testModuleLinks() { _ = LoomSolver.self } }
