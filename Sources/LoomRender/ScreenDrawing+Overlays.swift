// What is drawn above every node: action badges and findings.
import LoomCore
import LoomLayout

extension ScreenDrawing {
    static let badgeFontSize = 8.0
    static let badgeHeight = 12.0
    /// Longer action names are cut with "…" (the full name is the badge's tooltip).
    static let badgeMaxCharacters = 28

    /// Each tappable node's action, depth first, as a dark rounded badge at the node's top
    /// right (the screen's edge clips it).
    func badges(_ root: LaidOutNode, into b: inout SVGBuilder) throws(SVGNumberError) {
        var tappable: [LaidOutNode] = []
        root.walk { n in if n.action != nil { tappable.append(n) } }
        guard !tappable.isEmpty else { return }
        b.element("g", [("class", "badges"), ("font-family", "'DejaVu Sans', sans-serif"),
                        ("font-size", try SVGText.number(ScreenDrawing.badgeFontSize))], close: false)
        for n in tappable {
            let action = n.action!
            let shown = action.count > ScreenDrawing.badgeMaxCharacters
                ? String(action.prefix(ScreenDrawing.badgeMaxCharacters - 1)) + "…" : action
            // DejaVu Sans: about 0.65 em per character, punctuation included.
            let w = Double(shown.count) * ScreenDrawing.badgeFontSize * 0.65 + 6
            let x = max(0, n.frame.maxX - w - 2)
            let y = n.frame.y + 2
            var group: [(String, String)] = [("class", "badge"), ("data-path", n.path)]
            if n.hidden { group.append(("opacity", try SVGText.number(WireframeLegend.ghostOpacity))) }
            b.element("g", group, close: false)
            b.element("title", [], text: "action: \(action)")
            b.element("rect", [("x", try SVGText.number(x)), ("y", try SVGText.number(y)), ("width", try SVGText.number(w)),
                               ("height", try SVGText.number(ScreenDrawing.badgeHeight)), ("rx", "3"),
                               ("fill", WireframeLegend.badgeFill)])
            b.element("text", [("x", try SVGText.number(x + 3)), ("y", try SVGText.number(y + 9)), ("fill", WireframeLegend.badgeText)],
                      text: shown)
            b.end("g")
        }
        b.end("g")
    }

    /// A red outline inside the frame of each node a finding names, with the finding as its
    /// tooltip; a finding whose path names no laid-out node is a warning.
    func findings(_ r: LayoutResult, into b: inout SVGBuilder, warnings: inout [Diagnostic]) throws(SVGNumberError) {
        guard !r.findings.isEmpty else { return }
        var frames: [String: Frame] = [:]
        r.root?.walk { n in if frames[n.path] == nil { frames[n.path] = n.frame } }
        b.element("g", [("class", "findings"), ("fill", "none"), ("stroke", WireframeLegend.findingOutline),
                        ("stroke-width", "1.5")], close: false)
        for f in r.findings {
            guard let frame = frames[f.path] else {
                warnings.append(.warning("finding \(f.kind.rawValue) names '\(TextEscape.escaped(f.path))', which is not laid out; not drawn", at: f.location))
                continue
            }
            let h = min(0.75, frame.width / 2, frame.height / 2)
            b.element("rect", [("class", "finding"), ("data-kind", f.kind.rawValue), ("data-path", f.path),
                               ("x", try SVGText.number(frame.x + h)), ("y", try SVGText.number(frame.y + h)),
                               ("width", try SVGText.number(max(0, frame.width - 2 * h))),
                               ("height", try SVGText.number(max(0, frame.height - 2 * h)))], close: false)
            b.element("title", [], text: "\(f.kind.rawValue): \(f.message)")
            b.end("rect")
        }
        b.end("g")
    }
}
