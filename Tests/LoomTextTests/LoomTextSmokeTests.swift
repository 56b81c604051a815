import XCTest
@testable import LoomText

final class LoomTextModuleTests: XCTestCase {
    func testModuleLinks() {
        XCTAssertTrue(true)
    }
}
