import XCTest

final class HostTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
