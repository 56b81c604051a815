import XCTest
@testable import LoomRender

final class LoomRenderModuleTests: XCTestCase {
    func testModuleLinks() {
        XCTAssertTrue(true)
    }
}
