import LoomCore
import XCTest

@testable import LoomLayout

/// Layout that works by default (issue 39, item 3; docs/layout.md, "The root and top-level
/// stacks"): a root stack is pinned to the safe area's top and sides and is as tall as its
/// content; stacks pack their children at their own sizes unless told `"distribution": "fill"`;
/// collections are as tall as their items; every ambiguity says how to resolve it.
final class DefaultLayoutTests: XCTestCase {
    static let labelAndButtons = """
        {"screen": "s", "root": {"type": "vstack", "id": "main", "meta": {"spacing": 8}, "children": [
          {"type": "label", "id": "title", "meta": {"text": "Welcome"}},
          {"type": "button", "id": "b1", "meta": {"title": "Sign in"}, "action": "sign_in"},
          {"type": "button", "id": "b2", "meta": {"title": "Register"}, "action": "register"},
          {"type": "button", "id": "b3", "meta": {"title": "Later"}, "action": "close"}]}}
        """

    /// The issue's screen: on three devices no ambiguous, unsatisfiable or outside_* finding,
    /// each button at its intrinsic height (20 + 6 + 6 padding), the stack as tall as its
    /// content from the safe area's top; only the buttons' small tap targets remain.
    func testALabelAndThreeButtonsLayOutCleanlyOnEveryDevice() throws {
        let devices: [(String, top: Double, width: Double)] = [("iphone-se-1st", 20, 320), ("iphone-15", 59, 393), ("ipad", 20, 768)]
        for (device, top, width) in devices {
            let o = try Harness.layout(DefaultLayoutTests.labelAndButtons, device: device)
            XCTAssertTrue(o.diagnostics.isEmpty, "\(device): \(o.messages)")
            XCTAssertEqual(o.result.findings.map(\.kind), [.smallTapTarget, .smallTapTarget, .smallTapTarget], "\(device): \(o.result.findings.map(\.message))")
            XCTAssertFrame(o.frame("main"), 0, top, width, 20 + 3 * (8 + 32))
            XCTAssertFrame(o.frame("title"), 0, top, width, 20)
            for (k, b) in ["b1", "b2", "b3"].enumerated() {
                XCTAssertFrame(o.frame(b), 0, top + 28 + Double(k) * 40, width, 32)
            }
        }
    }

    /// The same stack made taller than its content by a constraint: packed, the buttons keep
    /// their heights and the room stays after the last one; with an explicit
    /// `"distribution": "fill"` the children stretch as UIStackView's fill does, which is
    /// ambiguous, and the finding says which choices resolve it.
    func testAStackTallerThanItsContentPacksUnlessToldToFill() throws {
        let tall = """
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "vstack", "id": "main", "meta": {"spacing": 8%@}, "constraints": ["edges == safe_area"], "children": [
                {"type": "label", "id": "title", "meta": {"text": "Welcome"}},
                {"type": "button", "id": "b1", "meta": {"title": "Sign in"}, "action": "sign_in"}]}]}}
            """
        let packed = try Harness.layout(tall.replacingOccurrences(of: "%@", with: ""))
        XCTAssertTrue(packed.diagnostics.isEmpty, packed.messages.joined(separator: "\n"))
        XCTAssertFrame(packed.frame("main"), 0, 59, 393, 759)
        XCTAssertFrame(packed.frame("b1"), 0, 87, 393, 32)
        let fill = try Harness.layout(tall.replacingOccurrences(of: "%@", with: #", "distribution": "fill""#))
        let ambiguous = fill.findings(.ambiguous)
        XCTAssertFalse(ambiguous.isEmpty, fill.messages.joined(separator: "\n"))
        for f in ambiguous {
            let fix = try XCTUnwrap(f.fix)
            XCTAssertTrue(fix.contains("#main (root/children[0]) stretches its children to its height of 759 points (\"distribution\": \"fill\")"), fix)
            XCTAssertTrue(fix.contains("drop \"distribution\": \"fill\""), fix)
        }
    }

    /// A list is as tall as its rows, in a root stack as anywhere; the stack as tall as the
    /// list and the label after it.
    func testAListInAStackIsAsTallAsItsItems() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "stack", "id": "main", "meta": {"spacing": 10}, "children": [
              {"type": "list", "id": "l", "items": [{"title": "A"}, {"title": "B"}, {"title": "C"}]},
              {"type": "label", "id": "after", "meta": {"text": "After"}}]}}
            """)
        XCTAssertTrue(o.diagnostics.isEmpty, o.messages.joined(separator: "\n"))
        XCTAssertTrue(o.result.findings.isEmpty, "\(o.result.findings.map(\.message))")
        XCTAssertFrame(o.frame("l"), 0, 59, 393, 3 * 44)
        XCTAssertFrame(o.frame("after"), 0, 59 + 132 + 10, 393, 20)
        XCTAssertFrame(o.frame("main"), 0, 59, 393, 132 + 10 + 20)
    }

    /// A stack nested in a stack hugs its content along its axis, and an hstack made as wide
    /// as its vstack packs its labels from the leading edge.
    func testNestedStacksHugTheirContent() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "vstack", "id": "main", "meta": {"spacing": 4}, "children": [
              {"type": "vstack", "id": "inner", "meta": {"spacing": 2}, "children": [
                {"type": "label", "id": "a", "meta": {"text": "One"}}, {"type": "label", "id": "b", "meta": {"text": "Two"}}]},
              {"type": "hstack", "id": "row", "meta": {"spacing": 6}, "children": [
                {"type": "label", "id": "c", "meta": {"text": "abc"}}, {"type": "label", "id": "d", "meta": {"text": "de"}}]}]}}
            """, device: "iphone-se-1st")
        XCTAssertTrue(o.diagnostics.isEmpty, o.messages.joined(separator: "\n"))
        XCTAssertTrue(o.result.findings.isEmpty, "\(o.result.findings.map(\.message))")
        XCTAssertFrame(o.frame("inner"), 0, 20, 320, 42)
        XCTAssertFrame(o.frame("b"), 0, 42, 320, 20)
        XCTAssertFrame(o.frame("row"), 0, 66, 320, 20)
        XCTAssertFrame(o.frame("c"), 0, 66, 30, 20)
        XCTAssertFrame(o.frame("d"), 36, 66, 20, 20)
        XCTAssertFrame(o.frame("main"), 0, 20, 320, 66)
    }

    /// A navigation's or tab bar's stack is pinned below the bar (a tab bar's below the top
    /// safe-area inset) and as tall as its content.
    func testABarsStackIsAsTallAsItsContent() throws {
        let nav = try Harness.layout("""
            {"screen": "s", "root": {"type": "navigation", "children": [
              {"type": "vstack", "id": "content", "children": [{"type": "label", "id": "a", "meta": {"text": "Hi"}}]}]}}
            """)
        XCTAssertTrue(nav.diagnostics.isEmpty, nav.messages.joined(separator: "\n"))
        XCTAssertFrame(nav.frame("content"), 0, 59 + 44, 393, 20)
        let tabs = try Harness.layout("""
            {"screen": "s", "root": {"type": "tab_bar", "children": [
              {"type": "vstack", "id": "content", "children": [{"type": "label", "id": "a", "meta": {"text": "Hi"}}]}]}}
            """)
        XCTAssertTrue(tabs.diagnostics.isEmpty, tabs.messages.joined(separator: "\n"))
        XCTAssertTrue(tabs.result.findings.isEmpty, "\(tabs.result.findings.map(\.message))")
        XCTAssertFrame(tabs.frame("content"), 0, 59, 393, 20)
    }

    /// A root stack whose content is taller than the safe area: its children below are
    /// reported, and the fix is the content (no constraint of theirs could move them).
    func testARootStackTallerThanTheSafeAreaSaysToShortenTheContent() throws {
        let labels = (0..<30).map { #"{"type": "label", "id": "l\#($0)", "meta": {"text": "Line \#($0)"}}"# }.joined(separator: ", ")
        let o = try Harness.layout(#"{"screen": "s", "root": {"type": "vstack", "id": "main", "children": [\#(labels)]}}"#, device: "iphone-se-1st")
        let outside = o.result.findings.filter { $0.kind == .outsideSafeArea || $0.kind == .outsideScreen }
        XCTAssertFalse(outside.isEmpty)
        XCTAssertNil(o.result.findings.first { $0.kind == .ambiguous })
        for f in outside {
            XCTAssertEqual(f.fix, "the root vstack 'main' is pinned to the safe area's top and sides and is as large as its content, which does not fit in the safe area: make the content smaller (fewer or smaller children, less spacing) or move part of it to another screen")
        }
    }

    /// A packed stack made larger than its content gives the room to its one child without a
    /// size (a view: what a UIStackView stretches), not to a label or button; `host init`'s
    /// template is such a stack.
    func testAChildWithoutASizeTakesThePackedStacksRoom() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "vstack", "id": "main", "constraints": ["edges == safe_area"], "children": [
                {"type": "view", "id": "v"}, {"type": "label", "id": "a", "meta": {"text": "Hi"}},
                {"type": "button", "id": "b", "meta": {"title": "More"}, "action": "more", "constraints": ["height >= 44"]}]}]}}
            """)
        XCTAssertTrue(o.diagnostics.isEmpty, o.messages.joined(separator: "\n"))
        XCTAssertFrame(o.frame("v"), 0, 59, 393, 759 - 64)
        XCTAssertFrame(o.frame("a"), 0, 59 + 695, 393, 20)
        XCTAssertFrame(o.frame("b"), 0, 59 + 715, 393, 44)
    }

    /// Every ambiguity finding carries a fix, and ambiguous children of a packed stack made
    /// larger than its content (two views without a size) are told to take a size.
    func testEveryAmbiguityHasAFix() throws {
        let o = try Harness.layout("""
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "vstack", "id": "main", "constraints": ["edges == safe_area"], "children": [
                {"type": "label", "id": "a", "meta": {"text": "Hi"}}, {"type": "view", "id": "v"}, {"type": "view", "id": "w"}]},
              {"type": "view", "id": "loose"}]}}
            """)
        let ambiguous = o.findings(.ambiguous)
        XCTAssertTrue(Set(ambiguous.map(\.path)).isSuperset(of: ["root/children[0]/children[1]", "root/children[1]"]), "\(ambiguous.map(\.message))")
        for f in ambiguous { XCTAssertNotNil(f.fix, f.message) }
        let v = try XCTUnwrap(ambiguous.first { $0.path == "root/children[0]/children[1]" })
        XCTAssertTrue(v.fix?.contains("#main (root/children[0]) is 759 points tall but its children do not say how much of it this one takes: give it a height") == true, v.fix ?? "")
        for f in o.findings(.unsatisfiable) { XCTAssertNotNil(f.fix, f.message) }
    }
}
