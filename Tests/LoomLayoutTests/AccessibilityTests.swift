import Foundation
import LoomCore
import LoomStyles
import XCTest

@testable import LoomLayout

/// Dynamic Type sizes, WCAG contrast and the accessibility findings (docs/accessibility.md).
final class AccessibilityTests: XCTestCase {
    // MARK: Contrast

    /// Held-out pairs with the ratios WebAIM's contrast checker (https://webaim.org/resources/contrastchecker/)
    /// prints, to two decimals: the implementation must agree with them.
    func testContrastAgreesWithWebAIMsKnownPairs() throws {
        let pairs: [(String, String, Double)] = [
            ("#777777", "#FFFFFF", 4.48), ("#767676", "#FFFFFF", 4.54), ("#000000", "#FFFFFF", 21.00),
            ("#FFFFFF", "#FFFFFF", 1.00), ("#0000FF", "#FFFFFF", 8.59), ("#FF0000", "#FFFFFF", 4.00),
            ("#00FF00", "#000000", 15.30), ("#808080", "#000000", 5.32), ("#595959", "#FFFFFF", 7.00),
        ]
        for (fg, bg, want) in pairs {
            let r = RGBA.contrastRatio(try XCTUnwrap(RGBA.hex(fg)), try XCTUnwrap(RGBA.hex(bg)))
            XCTAssertEqual((r * 100).rounded() / 100, want, "\(fg) on \(bg): \(r)")
        }
        // #777777 is just below AA: the comparison uses the exact ratio, not the rounded one.
        XCTAssertLessThan(RGBA.contrastRatio(RGBA.hex("#777777")!, .white), 4.5)
    }

    /// An independent WCAG 2.2 computation, written from the definitions with byte channels
    /// and the linearisation tabulated once (not the implementation's code path), agrees on
    /// 2,000 pseudo-random pairs to 1e-12.
    func testContrastAgreesWithAnIndependentComputation() {
        let linear: [Double] = (0...255).map { b in
            let c = Double(b) / 255
            return c <= 0.04045 ? c / 12.92 : Foundation.pow((c + 0.055) / 1.055, 2.4)
        }
        func luminance(_ rgb: (Int, Int, Int)) -> Double { 0.2126 * linear[rgb.0] + 0.7152 * linear[rgb.1] + 0.0722 * linear[rgb.2] }
        var seed: UInt64 = 42
        func byte() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 56)
        }
        for _ in 0..<2000 {
            let a = (byte(), byte(), byte()), b = (byte(), byte(), byte())
            let la = luminance(a), lb = luminance(b)
            let want = (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
            let hexA = String(format: "#%02X%02X%02X", a.0, a.1, a.2), hexB = String(format: "#%02X%02X%02X", b.0, b.1, b.2)
            let got = RGBA.contrastRatio(RGBA.hex(hexA)!, RGBA.hex(hexB)!)
            XCTAssertEqual(got, want, accuracy: 1e-12, "\(hexA) on \(hexB)")
        }
    }

    func testColoursParseAsStylesWriteThemAndNothingElse() {
        XCTAssertEqual(RGBA.hex("#80FF0000"), RGBA(r: 1, g: 0, b: 0, a: 128.0 / 255))  // alpha first
        for bad in ["", "#", "#12345", "#12345G", "red", "#1234567", "FFFFFF", "#+12345"] { XCTAssertNil(RGBA.hex(bad), bad) }
        XCTAssertEqual(RGBA.parse(.object(["r": .double(1), "g": .double(0.5), "b": .int(0), "a": .double(1)])), RGBA(r: 1, g: 0.5, b: 0))
        XCTAssertNil(RGBA.parse(.object(["r": .string("x")])))
        XCTAssertNil(RGBA.parse(.double(3)))
        // Out of range is clamped, not trusted.
        XCTAssertEqual(RGBA.parse(.object(["r": .double(7), "g": .double(-1), "b": .double(0)])), RGBA(r: 1, g: 0, b: 0))
    }

    // MARK: Dynamic Type

    /// iOS's table (Apple HIG, "Typography"): Body at every size, and spot values of others.
    func testDynamicTypeSizesFollowIOSsTable() {
        XCTAssertEqual(TextSize.allCases.map { TextStyle.body.points(at: $0) }, [14, 15, 16, 17, 19, 21, 23, 28, 33, 40, 47, 53])
        XCTAssertEqual(TextSize.allCases.map { TextStyle.largeTitle.points(at: $0) }, [31, 32, 33, 34, 36, 38, 40, 44, 48, 52, 56, 60])
        XCTAssertEqual(TextSize.allCases.map { TextStyle.caption2.points(at: $0) }, [11, 11, 11, 11, 13, 15, 17, 20, 24, 29, 34, 40])
        XCTAssertEqual(TextStyle.footnote.points(at: .ax3), 33)
        XCTAssertEqual(TextStyle.title1.points(at: .l), 28)
        // Every style grows (or stays) with the size.
        for style in TextStyle.allCases {
            let sizes = TextSize.allCases.map { style.points(at: $0) }
            XCTAssertEqual(sizes, sizes.sorted(), style.rawValue)
        }
    }

    /// The rule: no font is Body; a font in points scales as Body; a text style takes its own
    /// size, or scales a given font by its own ratio.
    func testWhichSizeALabelGets() {
        func size(_ style: JSONValue?, _ t: TextSize) -> Double { IntrinsicSizer.font(style: style, textSize: t).size }
        XCTAssertEqual(size(nil, .l), 17)
        XCTAssertEqual(size(nil, .ax3), 40)
        XCTAssertEqual(size(nil, .xs), 14)
        let font15: JSONValue = .object(["font": .object(["name": .string("DejaVuSans"), "size": .double(15)])])
        XCTAssertEqual(size(font15, .l), 15)
        XCTAssertEqual(size(font15, .ax3), 15 * 40 / 17, accuracy: 1e-12)
        XCTAssertEqual(size(.object(["text_style": .string("headline")]), .xl), 19)
        XCTAssertEqual(size(.object(["text_style": .string("title1")]), .l), 28)
        let caption: JSONValue = .object(["text_style": .string("caption1"), "font": .object(["name": .string("X"), "size": .double(10)])])
        XCTAssertEqual(size(caption, .ax1), 10 * 22 / 12, accuracy: 1e-12)
        XCTAssertEqual(IntrinsicSizer.font(style: caption, textSize: .ax1).name, "X")
        // An unknown text style is Body text.
        XCTAssertEqual(size(.object(["text_style": .string("huge")]), .ax3), 40)
    }

    func testTextSizesParseInAnyCaseAndNameTheSizesOtherwise() {
        XCTAssertEqual(try? TextSize.parse("AX3").get(), .ax3)
        guard case .failure(let e) = TextSize.parse("xxxxl") else { return XCTFail("xxxxl parsed") }
        XCTAssertTrue(e.message.contains("found 'xxxxl'; did you mean 'xxxl'?"), e.message)
        XCTAssertTrue(e.message.contains("xs, s, m, l, xl"), e.message)
    }

    /// A label that fits its 150-point width at `l` (11 characters × 10 points) is cut at ax3
    /// (× 40/17: 259 points), and the layout is otherwise the same at `l` as without a size.
    func testATruncationThatOnlyAppearsAtAX3() throws {
        let json = """
            {"screen": "s", "root": {"type": "container", "children": [
              {"type": "label", "id": "cut", "meta": {"text": "Hello world"},
               "constraints": ["left == safe_area.left", "top == safe_area.top + 10", "width == 150"]}]}}
            """
        let atL = try Harness.layout(json, textSize: .l)
        XCTAssertTrue(atL.findings(.truncated).isEmpty, "\(atL.result.findings.map(\.message))")
        XCTAssertEqual(atL.frame("cut")?.height, 20)
        let atAX3 = try Harness.layout(json, textSize: .ax3)
        XCTAssertEqual(atAX3.findings(.truncated).map(\.path), ["root/children[0]"])
        for smaller in [TextSize.xs, .m, .xl, .xxxl] {
            XCTAssertTrue(try Harness.layout(json, textSize: smaller).findings(.truncated).isEmpty, smaller.rawValue)
        }
    }

    // MARK: Findings

    func testMissingLabelFoundWhereExpectedAndNotElsewhere() throws {
        let json = """
            {"screen": "s", "root": {"type": "vstack", "children": [
              {"type": "image", "id": "bare", "meta": {"size": {"width": 44, "height": 44}}},
              {"type": "image", "id": "named", "meta": {"size": {"width": 44, "height": 44}, "accessibility_label": "Poster"}},
              {"type": "image", "id": "blank", "meta": {"size": {"width": 44, "height": 44}, "accessibility_label": "  "}},
              {"type": "image", "id": "decor", "meta": {"size": {"width": 44, "height": 44}, "accessibility_hidden": true}},
              {"type": "button", "id": "icon", "action": "go", "meta": {}},
              {"type": "button", "id": "empty", "action": "go", "meta": {"title": ""}},
              {"type": "button", "id": "iconNamed", "action": "go", "meta": {"accessibility_label": "Search"}},
              {"type": "button", "id": "titled", "action": "go", "meta": {"title": "Play"}},
              {"type": "label", "id": "text", "meta": {"text": "Hi"}},
              {"type": "view", "id": "plain"}]}}
            """
        let o = try Harness.layout(json, accessibility: true)
        XCTAssertEqual(o.findings(.missingLabel).map { o.result.node($0.path)?.id }, ["bare", "blank", "icon", "empty"])
        XCTAssertTrue(o.findings(.missingLabel)[0].message.contains("an image"), o.findings(.missingLabel)[0].message)
        XCTAssertTrue(o.findings(.missingLabel)[0].fix?.contains("accessibility_label") == true)
        // Off unless asked for: the layout is otherwise the same.
        let plain = try Harness.layout(json)
        XCTAssertTrue(plain.findings(.missingLabel).isEmpty)
        XCTAssertEqual(plain.result.findings.map(\.kind), o.result.findings.filter { $0.kind != .missingLabel }.map(\.kind))
    }

    func testLowContrastOnTheEffectiveBackgroundWithLargeTextAt3To1() throws {
        let json = """
            {"screen": "s", "root": {"type": "vstack", "id": "root", "children": [
              {"type": "label", "id": "grey", "meta": {"text": "a"}},
              {"type": "label", "id": "darker", "meta": {"text": "b"}},
              {"type": "label", "id": "large", "meta": {"text": "c"}},
              {"type": "label", "id": "bold", "meta": {"text": "d"}},
              {"type": "label", "id": "regular14", "meta": {"text": "e"}},
              {"type": "vstack", "id": "panel", "children": [
                {"type": "label", "id": "onDark", "meta": {"text": "f"}},
                {"type": "label", "id": "veiled", "meta": {"text": "g"}}]},
              {"type": "label", "id": "default", "meta": {"text": "h"}}]}}
            """
        let grey: JSONValue = .string("#777777")  // 4.48:1 on white
        func font(_ name: String, _ size: Double) -> JSONValue { .object(["name": .string(name), "size": .double(size)]) }
        let styles: [String: JSONValue] = [
            "grey": .object(["text_color": grey]),
            "darker": .object(["text_color": .string("#767676")]),  // 4.54:1
            "large": .object(["text_color": grey, "font": font("DejaVuSans", 18)]),
            "bold": .object(["text_color": .string("#959595"), "font": font("DejaVuSans-Bold", 14)]),  // 2.98:1
            "regular14": .object(["text_color": grey, "font": font("DejaVuSans", 14)]),
            "panel": .object(["background": .string("#222222")]),
            "onDark": .object(["text_color": .string("#FFFFFF")]),
            // 50% white over #222222 is #919191, black on it 6.66:1: fine.
            "veiled": .object(["text_color": .string("#000000"), "background": .string("#80FFFFFF")]),
        ]
        let o = try Harness.layout(json, styles: styles, accessibility: true)
        let ids = o.findings(.lowContrast).map { o.result.node($0.path)?.id }
        XCTAssertEqual(ids, ["grey", "bold", "regular14"])
        let m = o.findings(.lowContrast)[0].message
        XCTAssertTrue(m.contains("(#777777 on #FFFFFF) has a contrast ratio of 4.48:1, below the 4.5:1"), m)
        XCTAssertTrue(o.findings(.lowContrast)[1].message.contains("below the 3:1"), o.findings(.lowContrast)[1].message)
        // The default text (black) on a dark screen background.
        let dark = try Harness.layout(json, styles: styles, accessibility: true, screenBackground: RGBA.hex("#000000"))
        XCTAssertTrue(dark.findings(.lowContrast).map { dark.result.node($0.path)?.id }.contains("default"))
        // At ax3 every label is large text (Body 40 points): #777777 passes at 3:1.
        let big = try Harness.layout(json, styles: styles, textSize: .ax3, accessibility: true)
        XCTAssertEqual(big.findings(.lowContrast).map { big.result.node($0.path)?.id }, ["bold"])
    }
}
