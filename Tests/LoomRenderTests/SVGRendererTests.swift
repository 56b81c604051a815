import Foundation
import LoomCore
import LoomLayout
import LoomStyles
import LoomText
import XCTest
@testable import LoomRender

final class SVGRendererTests: XCTestCase {
    func testCanvasIsTheDevicePixelSizeWithAViewBoxInPoints() throws {
        let picture = SVGRenderer().render(RenderFixtures.screen())
        let xml = XMLCollector.parse(picture.text)
        XCTAssertNil(xml.error, "not well-formed: \(String(describing: xml.error))")
        let svg = try XCTUnwrap(xml.elements.first)
        XCTAssertEqual(svg.name, "svg")
        XCTAssertEqual(svg.attributes["width"], "640")
        XCTAssertEqual(svg.attributes["height"], "1136")
        XCTAssertEqual(svg.attributes["viewBox"], "0 0 320 568")
        XCTAssertEqual(picture.pixelWidth, 640)
        XCTAssertEqual(picture.pixelHeight, 1136)
        XCTAssertEqual(picture.warnings, [])
    }

    func testLandscapeUsesTheOrientedSizeTimesScale() {
        var r = RenderFixtures.screen(device: DeviceCatalog.device(named: "iphone-15")!)
        r.orientation = .landscape
        (r.width, r.height) = (852, 393)
        let picture = SVGRenderer().render(r)
        XCTAssertEqual(picture.pixelWidth, 2556)
        XCTAssertEqual(picture.pixelHeight, 1179)
        XCTAssertTrue(picture.text.contains("width=\"2556\" height=\"1179\" viewBox=\"0 0 852 393\""))
    }

    func testEveryNodeIsAGroupWithItsRoleAndPath() {
        let xml = XMLCollector.parse(SVGRenderer().render(RenderFixtures.screen()).text)
        let groups = xml.all("g").filter { $0.attributes["class"] == "node" }
        XCTAssertEqual(groups.map { $0.attributes["data-role"]! },
                       ["screen", "vstack", "label", "button", "image", "collection", "item", "item", "tab_bar"])
        XCTAssertEqual(groups[3].attributes["data-path"], "root/children[0]/children[1]")
        // The image placeholder: two diagonals inside its frame (16,156 288×120, stroke 1).
        let lines = xml.all("line").filter { $0.attributes["stroke"] == "#8E8E93" }
        XCTAssertEqual(lines.map { [$0.attributes["x1"]!, $0.attributes["y1"]!, $0.attributes["x2"]!, $0.attributes["y2"]!] },
                       [["16.5", "156.5", "303.5", "275.5"], ["16.5", "275.5", "303.5", "156.5"]])
    }

    func testTextAndActionsAreEscaped() {
        let title = "Hello <&\"'> world"
        let action = "buy<&\">"
        let text = SVGRenderer().render(RenderFixtures.screen(title: title, action: action)).text
        XCTAssertFalse(text.contains("<&"), "raw markup characters in the SVG")
        XCTAssertTrue(text.contains("Hello &lt;&amp;&quot;&apos;&gt; world"))
        let xml = XMLCollector.parse(text)
        XCTAssertNil(xml.error)
        XCTAssertEqual(xml.all("tspan").map(\.text), [title, "Buy"])
        let badge = xml.all("g").first { $0.attributes["class"] == "badge" }
        XCTAssertEqual(badge?.attributes["data-path"], "root/children[0]/children[1]")
        XCTAssertTrue(xml.elements.contains { $0.name == "text" && $0.text == action }, "the badge shows the action as written")
        XCTAssertTrue(xml.all("title").contains { $0.text == "action: \(action)" })
    }

    func testCharactersXMLCannotHoldBecomeReplacementCharacters() {
        let text = SVGRenderer().render(RenderFixtures.screen(title: "a\u{1}b\u{FFFF}c")).text
        let xml = XMLCollector.parse(text)
        XCTAssertNil(xml.error)
        XCTAssertEqual(xml.all("tspan").first?.text, "a\u{FFFD}b\u{FFFD}c")
    }

    func testSpacesInALineAreKept() throws {
        let xml = XMLCollector.parse(SVGRenderer().render(RenderFixtures.screen(title: "  two  spaces ")).text)
        XCTAssertNil(xml.error)
        XCTAssertEqual(xml.all("tspan").first?.text, "  two  spaces ")
        XCTAssertEqual(xml.all("text").first?.attributes["xml:space"], "preserve")
        XCTAssertEqual(xml.all("text").first?.text, "", "nothing but the tspans inside <text>")
    }

    func testTheSameResultDrawsTheSameBytes() {
        let r = RenderFixtures.screen(hidden: true, findings: [LayoutFinding(kind: .truncated, path: "root/children[0]/children[0]", message: "cut")])
        let a = SVGRenderer().render(r).text
        let b = SVGRenderer().render(r).text
        XCTAssertEqual(a, b)
        XCTAssertEqual(a, SVGRenderer().render(RenderFixtures.screen(hidden: true, findings: r.findings)).text)
    }

    func testHiddenNodesAreGhostedOnlyWhenPresent() {
        let plain = SVGRenderer().render(RenderFixtures.screen()).text
        XCTAssertFalse(plain.contains("hidden"))
        XCTAssertFalse(plain.contains("opacity=\"0.35\""))
        XCTAssertFalse(plain.contains("stroke-dasharray=\"4 3\""))
        let xml = XMLCollector.parse(SVGRenderer().render(RenderFixtures.screen(hidden: true)).text)
        let ghosts = xml.all("g").filter { $0.attributes["class"] == "node hidden" }
        XCTAssertEqual(ghosts.map { $0.attributes["data-id"] }, ["promo"])
        XCTAssertEqual(ghosts.first?.attributes["opacity"], "0.35")
        XCTAssertEqual(xml.all("rect").filter { $0.attributes["stroke-dasharray"] == "4 3" }.count, 1)
    }

    func testTextIsDrawnWithTheMeasuredFaceAtEachBaselineClippedToTheNode() throws {
        let m = RenderFixtures.metrics(["one", "two"])
        let label = LaidOutNode(path: "root/children[0]", type: "label", id: "l", view: "Label", role: .label,
                                frame: Frame(x: 10, y: 100, width: 200, height: 50), text: m)
        let r = LayoutResult(device: RenderFixtures.device, orientation: .portrait, width: 320, height: 568, safeArea: EdgeInsets(),
                             root: LaidOutNode(path: "root", type: "screen", id: nil, view: "Screen", role: .screen,
                                               frame: Frame(x: 0, y: 0, width: 320, height: 568), children: [label]), findings: [])
        let xml = XMLCollector.parse(SVGRenderer().render(r).text)
        let text = try XCTUnwrap(xml.all("text").first)
        XCTAssertEqual(text.attributes["font-family"], "'DejaVuSans', 'DejaVu Sans', sans-serif")
        XCTAssertEqual(text.attributes["font-size"], "17")
        XCTAssertEqual(text.attributes["clip-path"], "url(#clip1)")
        // Two lines of 19.789 points centred in 50: top 100 + (50 − 39.578)/2 = 105.211;
        // baselines at top + k × lineHeight + ascender (15.78).
        let top = 100 + (50 - m.height) / 2
        XCTAssertEqual(xml.all("tspan").map { $0.attributes["y"]! },
                       [try SVGText.number(top + m.ascender), try SVGText.number(top + m.lineHeight + m.ascender)])
        XCTAssertEqual(xml.all("tspan").map { $0.attributes["x"]! }, ["10", "10"])
        let clip = try XCTUnwrap(xml.all("clipPath").first)
        XCTAssertEqual(clip.attributes["id"], "clip1")
    }

    func testFontSizeComesFromTheFaceFileElseFromTheLineHeight() {
        guard FileManager.default.fileExists(atPath: RenderFixtures.dejaVu) else {
            return XCTFail("DejaVu Sans is not installed at \(RenderFixtures.dejaVu) (Debian fonts-dejavu-core)")
        }
        XCTAssertEqual(FontSizes().size(of: RenderFixtures.metrics(["x"], size: 13.5)), 13.5, accuracy: 1e-9)
        let unreadable = RenderFixtures.metrics(["x"], size: 20, file: "/nonexistent.ttf")
        XCTAssertEqual(FontSizes().size(of: unreadable), unreadable.lineHeight / 1.2, accuracy: 1e-9)
        XCTAssertEqual(FontFileInfo.read("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")?.family, "DejaVu Sans")
        XCTAssertNil(FontFileInfo.read("/etc/hostname"), "not a font")
    }

    func testFontSizeAndFamilyOfWhatFontLibraryMeasured() throws {
        let library = try FontLibrary.shared.get()
        for (name, size) in [("DejaVuSans-Bold", 13.0), ("DejaVuSans", 17.0), ("DejaVuSerif", 22.5)] {
            let m = library.measure("Hello", font: FontRequest(name: name, size: size), maxWidth: nil, lines: nil)
            XCTAssertEqual(FontSizes().size(of: m), size, accuracy: 1e-9, m.face.name)
        }
        let m = library.measure("Hi", font: FontRequest(name: "DejaVuSans-Bold", size: 13), maxWidth: nil, lines: nil)
        let drawing = ScreenDrawing(idPrefix: "", fonts: FontSizes())
        XCTAssertEqual(drawing.family(m.face), "'\(m.face.name)', 'DejaVu Sans', sans-serif")
    }

    func testStyleColoursAndAColourThatIsNotOne() {
        var r = RenderFixtures.screen()
        r.root!.children[1].background = "#80FF0000"
        r.root!.children[1].textColor = "red"
        r.root!.children[1].text = RenderFixtures.metrics(["Tabs"])
        // The wireframe draws any measured text; the styled look draws a tab bar's own tabs instead.
        let picture = SVGRenderer(options: RenderOptions(look: .wire)).render(r)
        XCTAssertTrue(picture.text.contains("fill=\"#FF0000\" fill-opacity=\"0.502\""))
        XCTAssertTrue(picture.text.contains("fill=\"#FFEFD5\""), "an item's background")
        XCTAssertEqual(picture.warnings.map(\.description),
                       ["screens/home.json:3:5: warning: root/children[1]: text_color 'red' is not #RRGGBB or #AARRGGBB; drawn with the legend's colour"])
    }

    func testFindingsAreRedOutlinesAndAnUnknownPathIsAWarning() {
        let findings = [
            LayoutFinding(kind: .smallTapTarget, path: "root/children[0]/children[4]/items[1]", message: "40×40 < 44×44"),
            LayoutFinding(kind: .overlap, path: "root/nowhere", message: "x", location: SourceLocation(file: "s.json", line: 1, column: 2)),
        ]
        let picture = SVGRenderer().render(RenderFixtures.screen(findings: findings))
        let rects = XMLCollector.parse(picture.text).all("rect").filter { $0.attributes["class"] == "finding" }
        XCTAssertEqual(rects.map { $0.attributes["data-kind"] }, ["small_tap_target"])
        XCTAssertEqual(rects.first.map { [$0.attributes["x"]!, $0.attributes["y"]!, $0.attributes["width"]!, $0.attributes["height"]!] },
                       ["164.75", "360.75", "138.5", "78.5"])
        XCTAssertEqual(picture.warnings.map(\.description),
                       ["s.json:1:2: warning: finding overlap names 'root/nowhere', which is not laid out; not drawn"])
        let off = SVGRenderer(options: RenderOptions(findings: false)).render(RenderFixtures.screen(findings: findings))
        XCTAssertFalse(off.text.contains("finding"))
        XCTAssertEqual(off.warnings, [])
    }

    func testSafeAreaGuidesAndOptions() {
        let on = XMLCollector.parse(SVGRenderer().render(RenderFixtures.screen()).text)
        let guides = on.all("g").first { $0.attributes["class"] == "safe-area" }
        XCTAssertEqual(guides?.attributes["stroke-dasharray"], "2 2")
        let guideLines = on.all("line").filter { $0.attributes["y1"] == "20" && $0.attributes["y2"] == "20" }
        XCTAssertEqual(guideLines.count, 1)
        let off = SVGRenderer(options: RenderOptions(safeAreaGuides: false, badges: false)).render(RenderFixtures.screen()).text
        XCTAssertFalse(off.contains("safe-area"))
        XCTAssertFalse(off.contains("badge"))
    }

    func testAnEmptyScreenIsJustTheBackground() {
        let r = LayoutResult(device: RenderFixtures.device, orientation: .portrait, width: 320, height: 568,
                             safeArea: EdgeInsets(), root: nil, findings: [])
        let xml = XMLCollector.parse(SVGRenderer().render(r).text)
        XCTAssertNil(xml.error)
        XCTAssertEqual(xml.elements.map(\.name), ["svg", "rect"])
    }
}
