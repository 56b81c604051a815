import XCTest

final class LoomPluginsTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
