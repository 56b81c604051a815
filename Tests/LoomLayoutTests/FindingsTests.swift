import LoomCore
import XCTest

@testable import LoomLayout

/// Findings, text wrapping and truncation, pixel rounding, hidden nodes.
final class FindingsTests: XCTestCase {
    func testOutsideScreenSafeAreaSmallTapTargetAndTruncatedText() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "view", "id": "off", "constraints": ["left == parent.right - 10", "top == parent.top + 100", "size == {20, 20}"]},
              {"type": "view", "id": "top", "constraints": ["left == parent.left", "top == parent.top", "size == {20, 20}"]},
              {"type": "button", "id": "tap", "action": "go", "meta": {"title": "Go"},
               "constraints": ["center == parent.center"]},
              {"type": "label", "id": "cut", "meta": {"text": "a very long text indeed"},
               "constraints": ["left == safe_area.left", "top == safe_area.top + 10", "width == 100"]}]}}
            """)
        XCTAssertEqual(o.findings(.outsideScreen).map(\.path), ["root/children[0]"])
        XCTAssertEqual(o.findings(.outsideSafeArea).map(\.path), ["root/children[1]"])
        // "Go": 20 + 24 wide, 20 + 12 tall.
        XCTAssertFrame(o.frame("tap"), 174.667, 410, 44, 32)
        XCTAssertEqual(o.findings(.smallTapTarget).map(\.path), ["root/children[2]"])
        let t = o.findings(.truncated)
        XCTAssertEqual(t.map(\.path), ["root/children[3]"])
        XCTAssertTrue(t[0].message.contains("needs 3 lines and has 1"), t[0].message)
        XCTAssertEqual(o.result.node("cut")?.text?.lines, ["a very"])
        // Order: preorder, then kind.
        XCTAssertEqual(o.result.findings.map(\.kind), [.outsideScreen, .outsideSafeArea, .smallTapTarget, .truncated])
    }

    /// A carousel's items past the screen's edge are reached by scrolling: no outside_screen or
    /// outside_safe_area for them; the carousel itself is still checked.
    func testItemsOfACollectionPastTheEdgeAreNotOutsideTheScreen() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "carousel", "id": "rail", "constraints": ["left == safe_area.left", "top == safe_area.top", "width == 393", "height == 120"],
               "items": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}, {"id": "c", "title": "C"}, {"id": "d", "title": "D"}]},
              {"type": "view", "id": "off", "constraints": ["left == parent.right - 10", "top == parent.top + 100", "size == {20, 20}"]}]}}
            """)
        XCTAssertGreaterThan(o.result.node("d")?.frame.x ?? 0, 393, "the last item lies past the screen's right edge")
        XCTAssertEqual(o.findings(.outsideScreen).map(\.path), ["root/children[1]"])
        XCTAssertEqual(o.findings(.outsideSafeArea).map(\.path), [])
    }

    func testOverlapAmongSiblingsOfAStackButNotOfAContainer() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "hstack", "meta": {"spacing": -10}, "children": [
              {"type": "label", "id": "a", "meta": {"text": "ab"}}, {"type": "view", "id": "b"}]}}
            """)
        XCTAssertEqual(o.findings(.overlap).map(\.path), ["root/children[1]"])
        let c = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "view", "id": "a", "constraints": ["edges == parent"]}, {"type": "view", "id": "b", "constraints": ["edges == parent"]}]}}
            """)
        XCTAssertTrue(c.findings(.overlap).isEmpty)
    }

    func testMultiLineLabelWrapsAtItsSolvedWidthInASecondPass() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "children": [
              {"type": "label", "id": "l", "meta": {"text": "one two three four five six seven eight nine ten eleven twelve"}},
              {"type": "view", "id": "rest"}]}}
            """, styles: ["l": ["lines": 0, "padding": ["top": 2, "left": 3, "bottom": 2, "right": 3]]])
        // 387 points of text: 38 characters a line → 2 lines of 20.
        XCTAssertFrame(o.frame("l"), 0, 59, 393, 44)
        XCTAssertEqual(o.result.node("l")?.text?.lines.count, 2)
        XCTAssertEqual(o.frame("rest")?.y, 103)
        XCTAssertTrue(o.findings(.truncated).isEmpty)
    }

    func testFramesAreRoundedToThePixelGrid() {
        let g = PixelGrid(scale: 3)
        let f = g.round(Frame(x: 10.1, y: 0.49, width: 100.1, height: 0.2))
        XCTAssertEqual(f.x, 10, accuracy: 1e-12)
        XCTAssertEqual(f.y, 1.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(f.width, 331.0 / 3 - 10, accuracy: 1e-12)   // right edge 110.2 → 110.333
        XCTAssertEqual(f.height, 2.0 / 3 - 1.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(PixelGrid(scale: 2).round(Frame(x: -0.2, y: 0, width: 0.2, height: 1)).x.sign, .plus)
    }

    func testHiddenNodesAreSkippedOrLaidOutAndMarked() throws {
        let json = """
            {"screen": "s", "root": {"type": "vstack", "children": [
              {"type": "label", "id": "gone", "rule": "never", "meta": {"text": "x"}}, {"type": "view", "id": "v"}]}}
            """
        let plain = try Harness.layout(json, explain: true)
        XCTAssertNil(plain.result.node("gone"))
        XCTAssertEqual(plain.frame("v")?.y, 59)
        let shown = try Harness.layout(json, showHidden: true, explain: true)
        XCTAssertEqual(shown.result.node("gone")?.hidden, true)
        XCTAssertEqual(shown.frame("v")?.y, 79)
    }

    func testSameInputSameOutput() throws {
        let json = """
            {"screen": "s", "root": {"type": "hstack", "children": [{"type": "view", "id": "a"}, {"type": "view", "id": "b"}]}}
            """
        let a = try Harness.layout(json), b = try Harness.layout(json)
        XCTAssertEqual(a.messages, b.messages)
        XCTAssertEqual(a.frame("a"), b.frame("a"))
        XCTAssertEqual(a.system.json.serialized(), b.system.json.serialized())
    }
}

