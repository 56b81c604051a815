import Foundation
import LoomCore
import LoomLayout
import LoomStyles
import XCTest
@testable import LoomRender

final class MatrixRendererTests: XCTestCase {
    private func result(_ device: String) -> LayoutResult {
        let d = DeviceCatalog.device(named: device)!
        var r = RenderFixtures.screen(device: d)
        (r.width, r.height) = (d.width, d.height)
        return r
    }

    func testUsersAreRowsDevicesAreColumnsInTheOrderGiven() throws {
        let cells = [
            MatrixCell(row: "gold", column: "iphone-se-1st portrait", result: result("iphone-se-1st")),
            MatrixCell(row: "gold", column: "ipad portrait", result: result("ipad")),
            MatrixCell(row: "free", column: "iphone-se-1st portrait", result: result("iphone-se-1st")),
            MatrixCell(row: "free", column: "ipad portrait", result: nil, note: "not laid out: 1 error"),
        ]
        let picture = MatrixRenderer().render(cells)
        let xml = XMLCollector.parse(picture.text)
        XCTAssertNil(xml.error, "not well-formed: \(String(describing: xml.error))")
        // Columns 320 and 768 wide, rows 568 and 1024 tall (the iPad's row is the taller), gaps
        // of 24 and 22-point captions: 24+320+24+768+24 × 24+22+1024+24+22+568+24.
        let svg = try XCTUnwrap(xml.elements.first)
        XCTAssertEqual(svg.attributes["viewBox"], "0 0 1160 1708")
        XCTAssertEqual([picture.pixelWidth, picture.pixelHeight], [1160, 1708])
        let screens = xml.all("svg").dropFirst()
        XCTAssertEqual(screens.map { "\($0.attributes["x"]!),\($0.attributes["y"]!) \($0.attributes["width"]!)×\($0.attributes["height"]!)" },
                       ["24,46 320×568", "368,46 768×1024", "24,1116 320×568", "368,1116 320×568"])
        XCTAssertEqual(xml.all("g").filter { $0.attributes["class"] == "cell" }.map { $0.attributes["data-row"]! },
                       ["gold", "gold", "free", "free"])
        XCTAssertTrue(xml.elements.contains { $0.name == "text" && $0.text == "gold · ipad portrait" })
        XCTAssertTrue(xml.elements.contains { $0.name == "text" && $0.text == "not laid out: 1 error" })
        // Ids stay unique across cells.
        let ids = xml.all("clipPath").map { $0.attributes["id"]! }
        XCTAssertEqual(ids.count, Set(ids).count)
        XCTAssertEqual(ids.first, "m0-clip1")
    }

    func testPixelScaleAndDeterminism() {
        let cells = [MatrixCell(row: "a", column: "x", result: result("iphone-8"))]
        let p = MatrixRenderer(pixelScale: 2).render(cells)
        XCTAssertEqual([p.pixelWidth, p.pixelHeight], [2 * (24 + 375 + 24), 2 * (24 + 22 + 667 + 24)])
        XCTAssertEqual(p.text, MatrixRenderer(pixelScale: 2).render(cells).text)
    }

    func testCellWarningsNameTheCell() {
        var r = result("iphone-8")
        r.root!.background = "blue"
        let p = MatrixRenderer().render([MatrixCell(row: "gold", column: "iphone-8 portrait", result: r)])
        XCTAssertEqual(p.warnings.map(\.message),
                       ["gold · iphone-8 portrait: root: background 'blue' is not #RRGGBB or #AARRGGBB; drawn with the legend's colour"])
    }
}
