import LoomCore
import LoomStyles
import LoomText
import XCTest

@testable import LoomLayout

/// Real glyph metrics (FontLibrary) for intrinsic sizes; hostile values never trap.
final class TextAndRobustnessTests: XCTestCase {
    func testLabelIntrinsicSizeComesFromTheMeasurer() throws {
        guard case .success(let fonts) = FontLibrary.shared else { throw XCTSkip("no fonts installed") }
        let json = """
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "label", "id": "t", "meta": {"text": "Hello, world"}, "constraints": ["top == parent.top", "left == parent.left"]}]}}
            """
        let (root, f, _) = try Harness.resolve(json, styles: ["t": ["font": ["name": "DejaVuSans-Bold", "size": 20], "padding": 4]])
        let o = LayoutEngine(factory: f, measurer: fonts).layout(root, device: DeviceCatalog.device(named: "iphone-8")!, orientation: .portrait)
        let m = fonts.measure("Hello, world", font: FontRequest(name: "DejaVuSans-Bold", size: 20), maxWidth: nil, lines: 1)
        let grid = PixelGrid(scale: 2)
        XCTAssertEqual(o.frame("t"), grid.round(Frame(x: 0, y: 0, width: m.width + 8, height: m.height + 8)))
        XCTAssertEqual(o.result.node("t")?.text?.face.name, "DejaVuSans-Bold")
        XCTAssertTrue(o.diagnostics.isEmpty, "\(o.messages)")
    }

    func testHostileValuesDoNotTrap() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "meta": {"spacing": 1e300}, "children": [
              {"type": "grid", "id": "g", "layout": {"span": "inf", "items-per-row": 1e30, "item-spacing": "nan"},
               "items": [{"id": "i", "size": {"width": -5, "height": "x"}}]},
              {"type": "label", "id": "l", "meta": {"text": ""}},
              {"type": "tab_bar", "meta": {"selected_index": 99}, "children": [{"type": "view", "id": "v"}]}]}}
            """, styles: ["l": ["lines": 1e300, "font": ["name": "", "size": -1], "background": ["r": 1e300, "g": 0, "b": 0, "a": 1]]])
        XCTAssertNotNil(o.result.node("i"))
        XCTAssertNotNil(o.result.node("v"))
        XCTAssertEqual(o.result.node("l")?.background, "#FF0000")
    }

    func testEmptyScreenLaysOutNothing() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "rule": "never", "children": []}}
            """, explain: true)
        XCTAssertNil(o.result.root)
        XCTAssertTrue(o.result.findings.isEmpty)
    }
}
