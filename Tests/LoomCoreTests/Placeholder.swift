import XCTest

final class LoomCoreTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
