import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import LoomCore
import LoomLayout
import LoomStyles
import LoomText
import XCTest
@testable import LoomRender

/// Hand-made layout results (the renderer's input), on the smallest phone: 320×568 points at
/// 2× (640×1136 pixels), safe area top 20.
enum RenderFixtures {
    static let device = DeviceCatalog.device(named: "iphone-se-1st")!
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// DejaVu Sans at `size` points: unitsPerEm 2048, hhea ascender 1901, height 2384 units.
    static func metrics(_ lines: [String], size: Double = 17, face: String = "DejaVuSans", file: String = dejaVu) -> TextMetrics {
        let lh = 2384 * size / 2048
        return TextMetrics(face: FontFace(requested: face, name: face, file: file, isFallback: false), lines: lines,
                           width: 100, height: Double(lines.count) * lh, lineHeight: lh, ascender: 1901 * size / 2048,
                           neededLines: lines.count, truncated: false)
    }

    static func node(_ path: String, _ role: LayoutRole, _ x: Double, _ y: Double, _ w: Double, _ h: Double,
                     id: String? = nil, text: [String]? = nil, action: String? = nil, background: String? = nil,
                     hidden: Bool = false, children: [LaidOutNode] = []) -> LaidOutNode {
        LaidOutNode(path: path, type: role.rawValue, id: id, view: "View", role: role, frame: Frame(x: x, y: y, width: w, height: h),
                    text: text.map { metrics($0) }, action: action, background: background,
                    location: SourceLocation(file: "screens/home.json", line: 3, column: 5), hidden: hidden, children: children)
    }

    /// A screen with one node of most roles; `hidden: true` adds a hidden view (as the engine
    /// lays it out for --show-hidden).
    static func screen(title: String = "Hello <&\"> world", action: String = "buy<&\">", hidden: Bool = false,
                       findings: [LayoutFinding] = [], device: Device = device) -> LayoutResult {
        var stack: [LaidOutNode] = [
            node("root/children[0]/children[0]", .label, 16, 40, 288, 40, id: "title", text: [title]),
            node("root/children[0]/children[1]", .button, 16, 96, 288, 44, id: "buy", text: ["Buy"], action: action),
            node("root/children[0]/children[2]", .image, 16, 156, 288, 120, id: "poster"),
        ]
        if hidden { stack.append(node("root/children[0]/children[3]", .view, 16, 292, 288, 60, id: "promo", hidden: true)) }
        stack.append(node("root/children[0]/children[4]", .collection, 16, 360, 288, 80, id: "list", children: [
            node("root/children[0]/children[4]/items[0]", .item, 16, 360, 140, 80, background: "#FFEFD5"),
            node("root/children[0]/children[4]/items[1]", .item, 164, 360, 140, 80, action: "open"),
        ]))
        let root = node("root", .screen, 0, 0, 320, 568, children: [
            node("root/children[0]", .vstack, 16, 40, 288, 400, children: stack),
            node("root/children[1]", .tabBar, 0, 519, 320, 49, id: "tabs"),
        ])
        return LayoutResult(device: device, orientation: .portrait, width: 320, height: 568,
                            safeArea: EdgeInsets(top: 20), root: root, findings: findings)
    }
}

/// Parses XML with FoundationXML; collects elements with their attributes and character data.
final class XMLCollector: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
    }
    var elements: [Element] = []
    private var open: [Int] = []
    var error: Error?

    static func parse(_ xml: String) -> XMLCollector {
        let c = XMLCollector()
        let p = XMLParser(data: Data(xml.utf8))
        p.delegate = c
        if !p.parse() { c.error = p.parserError ?? NSError(domain: "xml", code: 1) }
        return c
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        open.append(elements.count)
        elements.append(Element(name: name, attributes: attributes))
    }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let i = open.last { elements[i].text += string }
    }
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }

    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }
}
