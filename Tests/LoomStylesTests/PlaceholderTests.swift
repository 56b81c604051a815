import XCTest
@testable import LoomStyles
final class LoomStylesPlaceholderTests: XCTestCase { func testModuleLinks() { _ = LoomStyles.self } }
