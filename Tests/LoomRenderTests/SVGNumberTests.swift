import LoomCore
import LoomLayout
import LoomText
import XCTest
@testable import LoomRender

/// Every number written to SVG goes through `SVGText.number`, which refuses what SVG cannot
/// hold (docs/render.md, "Numbers"): the picture is then not drawn and the error names the node.
final class SVGNumberTests: XCTestCase {
    func testNumbersAreWrittenWithAtMostThreeDecimals() throws {
        XCTAssertEqual(try SVGText.number(12), "12")
        XCTAssertEqual(try SVGText.number(-0.0001), "0")
        XCTAssertEqual(try SVGText.number(1.23456), "1.235")
        XCTAssertEqual(try SVGText.number(-2.5), "-2.5")
        XCTAssertEqual(try SVGText.number(1e9), "1000000000")
        XCTAssertEqual(try SVGText.number(-1e9), "-1000000000")
    }

    func testNumbersSVGCannotHoldAreRefused() {
        for d in [Double.infinity, -.infinity, .nan, 1e308, -1e300, 1e9 + 1, .greatestFiniteMagnitude] {
            XCTAssertThrowsError(try SVGText.number(d), "\(d)") { XCTAssertEqual(($0 as? SVGNumberError)?.value.bitPattern, d.bitPattern) }
            XCTAssertThrowsError(try SVGText.pixels(d), "\(d)")
        }
    }

    /// A node whose frame or text holds a number SVG cannot hold: no picture, one error at the node.
    func testAPictureWithAnAbsurdNumberIsNotDrawn() throws {
        var r = RenderFixtures.screen()
        func with(_ change: (inout LaidOutNode) -> Void) -> LayoutResult {
            var copy = r
            change(&copy.root!.children[0].children[0])
            return copy
        }
        let cases: [(String, LayoutResult)] = [
            ("frame width 1e300", with { $0.frame.width = 1e300 }),
            ("frame x infinity", with { $0.frame.x = .infinity }),
            ("frame y NaN", with { $0.frame.y = .nan }),
            ("font size 1e308", with { n in n.text = TextMetrics(face: n.text!.face, lines: ["x"], width: 10, height: 1e308, lineHeight: 1e308,
                                                                 ascender: 1e308, neededLines: 1, truncated: false, size: 1e308) }),
        ]
        for (what, bad) in cases {
            let picture = SVGRenderer().render(bad)
            XCTAssertEqual(picture.text, "", what)
            XCTAssertEqual(picture.errors.count, 1, what)
            let e = try XCTUnwrap(picture.errors.first)
            XCTAssertEqual(e.severity, .error)
            XCTAssertTrue(e.message.hasPrefix("root/children[0]/children[0] would be drawn with the number "), "\(what): \(e.message)")
            XCTAssertTrue(e.message.contains("which an SVG picture cannot hold"), e.message)
            XCTAssertFalse(e.message.contains("inf") && !e.message.contains("infinity"), e.message)
            XCTAssertEqual(e.location?.line, 3, what)
            let matrix = MatrixRenderer().render([MatrixCell(row: "u", column: "d", result: bad)])
            XCTAssertEqual(matrix.text, "", what)
            XCTAssertEqual(matrix.errors.count, 1, what)
        }
        r.width = .infinity
        XCTAssertEqual(SVGRenderer().render(r).errors.count, 1, "the canvas itself")
        // A sound picture has no errors and no number that is not one.
        let fine = SVGRenderer().render(RenderFixtures.screen())
        XCTAssertEqual(fine.errors, [])
        XCTAssertFalse(fine.text.contains("inf") || fine.text.contains("nan"))
    }
}
