import XCTest
@testable import LoomCore
@testable import LoomNavigation

/// A `host serve` request past its deadline stops exploring: counted in screens resolved, not
/// in time.
final class ExplorationDeadlineTests: XCTestCase {
    /// A chain of 500 screens, each leading to the next.
    func chain(_ n: Int) -> (StubApp, String) {
        var screens: [String: [String]] = [:]
        for i in 0..<n { screens["s\(i)"] = i + 1 < n ? ["go\(i + 1)"] : [] }
        let steps = (1..<n).map { #""go\#($0)": {"push": "s\#($0)"}"# }.joined(separator: ", ")
        let flows = #"{"flows": {"main": {"start": "s0", "steps": {\#(steps)}}}}"#
        return (StubApp(screens: screens), flows)
    }

    func explore(_ app: StubApp, _ flowsJSON: String, resolved: inout Int) -> NavigationGraph {
        let (flows, errors) = loadFlows(flowsJSON)
        XCTAssertEqual(errors, [])
        var count = 0
        let g = NavigationExplorer.explore(flows: flows, entry: flows.entryPoint()!, screens: app.locations) { s in
            count += 1
            return app.actions(s)
        }
        resolved = count
        return g
    }

    func testAnExpiredDeadlineStopsTheExplorationAfterTheEntry() {
        let (app, flows) = chain(500)
        var resolved = 0
        let full = explore(app, flows, resolved: &resolved)
        XCTAssertEqual(full.nodes.count, 500, "without a deadline every screen is reached")
        XCTAssertEqual(resolved, 500)
        let cut = Deadline.run(with: Deadline(seconds: 0)) { explore(app, flows, resolved: &resolved) }
        XCTAssertEqual(resolved, 1, "past the deadline only the entry is resolved")
        XCTAssertLessThanOrEqual(cut.nodes.count, 1)
        // A deadline not yet passed changes nothing.
        let same = Deadline.run(with: Deadline(seconds: 3600)) { explore(app, flows, resolved: &resolved) }
        XCTAssertEqual(resolved, 500)
        XCTAssertEqual(same.nodes.map(\.id), full.nodes.map(\.id))
    }
}
