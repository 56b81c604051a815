import XCTest
@testable import LoomCore
@testable import LoomLayout

/// A `host serve` request past its deadline stops laying out: counted in constraints the solver
/// accepted, not in time.
final class LayoutDeadlineTests: XCTestCase {
    func testAnExpiredDeadlineAddsNoConstraintsAndSkipsTheProbe() throws {
        let labels = (0..<80).map { #"{"type": "label", "id": "l\#($0)", "meta": {"text": "Label \#($0)"}}"# }.joined(separator: ", ")
        let screen = #"{"screen": "s", "root": {"type": "stack", "id": "root", "children": [\#(labels)]}}"#
        let full = try Harness.layout(screen)
        let accepted = full.system.constraints.filter(\.accepted).count
        XCTAssertGreaterThan(accepted, 80, "without a deadline the stack's constraints are solved")
        let cut = try Deadline.run(with: Deadline(seconds: 0)) { try Harness.layout(screen) }
        XCTAssertEqual(cut.system.constraints.filter(\.accepted).count, 0, "past the deadline no constraint reaches the solver")
        // A deadline not yet passed changes nothing.
        let same = try Deadline.run(with: Deadline(seconds: 3600)) { try Harness.layout(screen) }
        XCTAssertEqual(same.system.json.serialized(pretty: false), full.system.json.serialized(pretty: false))
        for id in ["root", "l0", "l40", "l79"] { XCTAssertEqual(same.frame(id)?.text, full.frame(id)?.text, id) }
    }
}
