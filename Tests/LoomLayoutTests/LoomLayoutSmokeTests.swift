import XCTest
@testable import LoomLayout

final class LoomLayoutModuleTests: XCTestCase {
    func testModuleLinks() {
        XCTAssertTrue(true)
    }
}
