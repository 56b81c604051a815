import XCTest

final class LuaRuntimeTestsPlaceholder: XCTestCase {
    func testPlaceholder() {}
}
