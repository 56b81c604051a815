import LoomCore
import XCTest

@testable import LoomLayout

/// Each role's rules: the root fills the screen, stacks (distributions, alignments, spacing,
/// hugging), containers by constraints only, navigation and tab bars, collections.
final class ContainerLayoutTests: XCTestCase {
    func testRootFillsTheScreenAndVStackPlacesLabelsBySpacing() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "meta": {"spacing": 8}, "children": [
              {"type": "label", "id": "a", "meta": {"text": "Hello"}},
              {"type": "label", "id": "b", "meta": {"text": "Hi"}},
              {"type": "view", "id": "c", "constraints": ["height == 100"]}]}}
            """)
        print(o.messages)
        XCTAssertFrame(o.frame("root"), 0, 0, 393, 852)
        XCTAssertFrame(o.frame("a"), 0, 0, 393, 20)
        XCTAssertFrame(o.frame("b"), 0, 28, 393, 20)
        XCTAssertEqual(o.frame("c")?.y, 56)
    }
}
