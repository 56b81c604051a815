import LoomCore
import XCTest

@testable import LoomLayout

/// Each role's rules: the root fills the screen (a root stack the safe area's top and sides), stacks (distributions, alignments, spacing,
/// hugging), containers by constraints only, navigation and tab bars, collections.
final class ContainerLayoutTests: XCTestCase {
    func testRootStackIsPinnedToTheSafeAreaAndVStackPlacesChildrenBySpacing() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "meta": {"spacing": 8}, "children": [
              {"type": "label", "id": "a", "meta": {"text": "Hello"}},
              {"type": "label", "id": "b", "meta": {"text": "Hi"}},
              {"type": "view", "id": "c"}]}}
            """)
        // Below the status bar, as tall as its content (issue 39).
        XCTAssertFrame(o.frame("root"), 0, 59, 393, 56)
        XCTAssertFrame(o.frame("a"), 0, 59, 393, 20)
        XCTAssertFrame(o.frame("b"), 0, 87, 393, 20)
        // c has no intrinsic size: the stack hugs its content, so it takes no room.
        XCTAssertFrame(o.frame("c"), 0, 115, 393, 0)
        XCTAssertTrue(o.findings(.ambiguous).isEmpty, o.messages.joined(separator: "\n"))
    }

    func testStackHugsItsContentAndAlignsAcrossItsAxis() throws {
        let json = """
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "vstack", "id": "s", "meta": {"spacing": 4, "alignment": "%@"},
               "constraints": ["top == parent.top + 100", "left == parent.left + 10"],
               "children": [{"type": "label", "id": "a", "meta": {"text": "abcdef"}},
                            {"type": "label", "id": "b", "meta": {"text": "abc"}}]}]}}
            """
        let cases: [(String, Double)] = [("leading", 10), ("center", 25), ("trailing", 40)]
        for (alignment, bx) in cases {
            let o = try Harness.layout(json.replacingOccurrences(of: "%@", with: alignment))
            XCTAssertFrame(o.frame("s"), 10, 100, 60, 44)
            XCTAssertFrame(o.frame("a"), 10, 100, 60, 20)
            XCTAssertFrame(o.frame("b"), bx, 124, 30, 20)
            XCTAssertTrue(o.diagnostics.isEmpty, "\(alignment): \(o.messages)")
        }
        let fill = try Harness.layout(json.replacingOccurrences(of: "%@", with: "fill"))
        XCTAssertFrame(fill.frame("b"), 10, 124, 60, 20)
    }

    func testHStackDistributions() throws {
        let json = """
            {"screen": "s", "root": {"type": "hstack", "meta": {"spacing": 10, "distribution": "%@", "alignment": "top"}, "children": [
              {"type": "label", "id": "a", "meta": {"text": "ab"}},
              {"type": "label", "id": "b", "meta": {"text": "abcd"}},
              {"type": "label", "id": "c", "meta": {"text": "a"}}]}}
            """
        let eq = try Harness.layout(json.replacingOccurrences(of: "%@", with: "fill_equally"))
        // (393 − 20) / 3 = 124.333…, edges rounded to 1/3 pt.
        XCTAssertEqual(eq.frame("a")?.width ?? 0, 124.333, accuracy: 0.01)
        XCTAssertEqual(eq.frame("b")?.x ?? 0, 134.333, accuracy: 0.01)
        XCTAssertEqual(eq.frame("c")?.maxX, 393)
        XCTAssertEqual(eq.frame("a")?.height, 20)
        let sp = try Harness.layout(json.replacingOccurrences(of: "%@", with: "equal_spacing"))
        // intrinsic widths 20, 40, 10; two equal gaps of (393 − 70) / 2.
        XCTAssertFrame(sp.frame("a"), 0, 59, 20, 20)
        XCTAssertFrame(sp.frame("b"), 181.667, 59, 40, 20)  // 181.5 on the 1/3 grid
        XCTAssertFrame(sp.frame("c"), 383, 59, 10, 20)
    }

    func testContainerPlacesChildrenByTheirConstraintsOnlyWithMargins() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "view", "id": "v", "constraints": ["edges == parent.edge_margins"]},
              {"type": "view", "id": "w", "constraints": ["sides == parent.side_margins", "top == prev.bottom_margin", "height == 10"]}]}}
            """, styles: ["v": ["layout_margins": ["top": 1, "left": 2, "bottom": 3, "right": 4]]])
        XCTAssertFrame(o.frame("v"), 8, 8, 377, 836)
        // v's bottom_margin = 844 − 3.
        XCTAssertFrame(o.frame("w"), 8, 841, 377, 10)
    }

    func testNavigationPutsItsChildBelowTheBarAndSafeArea() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "navigation", "children": [{"type": "view", "id": "v"}]}}
            """)
        XCTAssertFrame(o.frame("v"), 0, 103, 393, 749)
        let x = try Harness.layout("""
            {"screen": "s", "root": {"type": "navigation", "children": [{"type": "view", "id": "v"}]}}
            """, device: "iphone-8")
        XCTAssertFrame(x.frame("v"), 0, 64, 375, 603)
    }

    func testTabBarLaysOutOnlyTheSelectedTabAboveTheBar() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "tab_bar", "meta": {"selected_index": 1}, "children": [
              {"type": "view", "id": "one", "constraints": ["width == 5000"]}, {"type": "view", "id": "two"}]}}
            """)
        XCTAssertNil(o.result.node("one"))
        XCTAssertFrame(o.frame("two"), 0, 0, 393, 769)
        XCTAssertTrue(o.diagnostics.isEmpty, "\(o.messages)")
    }

    func testGridPlacesItemsInRowsBySpanWithSpacingAndInset() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "children": [
              {"type": "grid", "id": "g", "layout": {"span": 2, "item-spacing": 10, "line-spacing": 6, "inset": {"top": 4, "left": 16, "bottom": 4, "right": 16}},
               "items": [{"id": "i0", "title": "a"}, {"id": "i1", "title": "b"}, {"id": "i2", "title": "c", "size": {"width": 50, "height": 30}}]},
              {"type": "view", "id": "rest"}]}}
            """)
        // cell = (393 − 32 − 10) / 2 = 175.5, square.
        // Solved: i0 16…191.5, i1 201.5…377, row 2 at 4 + 175.5 + 6 = 185.5; on the 1/3 grid.
        // The root stack starts at the safe area's top (59) and is as tall as its content.
        XCTAssertFrame(o.frame("i0"), 16, 63, 175.667, 175.667)
        XCTAssertFrame(o.frame("i1"), 201.667, 63, 175.333, 175.667)
        XCTAssertFrame(o.frame("i2"), 16, 244.667, 50, 30)
        XCTAssertFrame(o.frame("g"), 0, 59, 393, 219.667)
        XCTAssertEqual(o.result.node("i0")?.role, .item)
        XCTAssertFrame(o.frame("rest"), 0, 278.667, 393, 0)
        let d = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "children": [
              {"type": "grid", "id": "g", "layout": {"span": 2, "item-spacing": 10, "line-spacing": 6, "inset": {"top": 4, "left": 16, "bottom": 4, "right": 16}},
               "items": [{"id": "i0", "title": "a"}, {"id": "i1", "title": "b"}]}, {"type": "view"}]}}
            """, device: "iphone-8")
        // scale 2: cell (375 − 42) / 2 = 166.5.
        XCTAssertFrame(d.frame("i1"), 192.5, 24, 166.5, 166.5)
    }

    func testListRowsHeaderFooterAndCarousel() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "children": [
              {"type": "list", "id": "l", "header": {"type": "label", "id": "h", "meta": {"text": "Head"}},
               "footer": {"type": "view", "id": "f", "constraints": ["height == 10"]},
               "items": [{"id": "r0", "title": "a"}, {"id": "r1", "title": "b"}]},
              {"type": "carousel", "id": "c", "layout": {"span": 2, "item-spacing": 8},
               "items": [{"id": "k0", "size": {"width": 100, "height": 60}}, {"id": "k1", "size": {"width": 120, "height": 50}}]},
              {"type": "view", "id": "rest"}]}}
            """)
        XCTAssertFrame(o.frame("h"), 0, 59, 393, 20)
        XCTAssertFrame(o.frame("r0"), 0, 79, 393, 44)
        XCTAssertFrame(o.frame("r1"), 0, 123, 393, 44)
        XCTAssertFrame(o.frame("f"), 0, 167, 393, 10)
        XCTAssertFrame(o.frame("l"), 0, 59, 393, 118)
        XCTAssertFrame(o.frame("k0"), 0, 177, 100, 60)
        XCTAssertFrame(o.frame("k1"), 108, 177, 120, 50)
        XCTAssertFrame(o.frame("c"), 0, 177, 393, 60)
    }
}
