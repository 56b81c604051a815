// The nodes of one screen: boxes by role, text, image placeholders, ghosts, badges, findings.
import LoomCore
import LoomLayout
import LoomText

struct ScreenDrawing {
    let idPrefix: String
    let fonts: FontSizes
    /// Set for the styled look (content and styles); nil draws the wireframe.
    var styled: StyledLook?
    var clipCount = 0

    init(idPrefix: String, fonts: FontSizes) {
        self.idPrefix = idPrefix
        self.fonts = fonts
    }

    static func fill(_ c: SVGColor) throws(SVGNumberError) -> [(String, String)] {
        c.opacity == 1 ? [("fill", c.rgb)] : [("fill", c.rgb), ("fill-opacity", try SVGText.number(c.opacity))]
    }

    /// A style colour, or nil with a warning when it is not one.
    func color(_ text: String, of n: LaidOutNode, what: String, warnings: inout [Diagnostic]) -> SVGColor? {
        if let c = SVGColor.parse(text) { return c }
        warnings.append(.warning("\(n.path): \(what) '\(TextEscape.escaped(text))' is not #RRGGBB or #AARRGGBB; drawn with the legend's colour", at: n.location))
        return nil
    }

    /// The frame inset by half a stroke, so the outline stays inside the frame.
    static func inset(_ f: Frame, _ stroke: Double) throws(SVGNumberError) -> [(String, String)] {
        let h = min(stroke / 2, f.width / 2, f.height / 2)
        return [("x", try SVGText.number(f.x + h)), ("y", try SVGText.number(f.y + h)),
                ("width", try SVGText.number(max(0, f.width - 2 * h))), ("height", try SVGText.number(max(0, f.height - 2 * h)))]
    }

    /// Draws the node and its children; a number SVG cannot hold is thrown with the (innermost)
    /// node whose drawing needed it.
    mutating func node(_ n: LaidOutNode, isRoot: Bool, into b: inout SVGBuilder, warnings: inout [Diagnostic]) throws(SVGNumberError) {
        do {
            try drawNode(n, isRoot: isRoot, into: &b, warnings: &warnings)
        } catch {
            var e = error
            if e.path == nil {
                e.path = n.path
                e.location = n.location
            }
            throw e
        }
    }

    private mutating func drawNode(_ n: LaidOutNode, isRoot: Bool, into b: inout SVGBuilder, warnings: inout [Diagnostic]) throws(SVGNumberError) {
        if let look = styled { return try styledNode(n, isRoot: isRoot, look: look, into: &b, warnings: &warnings) }
        let style = WireframeLegend.style(n.role)
        var group: [(String, String)] = [("class", n.hidden ? "node hidden" : "node"), ("data-role", n.role.rawValue),
                                         ("data-path", n.path)]
        if let id = n.id { group.append(("data-id", id)) }
        if n.hidden { group.append(("opacity", try SVGText.number(WireframeLegend.ghostOpacity))) }
        b.element("g", group, close: false)
        b.element("title", [], text: n.id.map { "\(n.type) \($0) (\(n.view)) \(n.path)" } ?? "\(n.type) (\(n.view)) \(n.path)")
        var fill: [(String, String)] = style.fill.map { [("fill", $0)] } ?? [("fill", "none")]
        if let bg = n.background, !(isRoot && n.role == .screen), let c = color(bg, of: n, what: "background", warnings: &warnings) {
            fill = try ScreenDrawing.fill(c)
        }
        // A ghost always gets an outline, dashed, so an unstyled hidden label still shows.
        let stroke = style.stroke ?? (n.hidden ? "#8E8E93" : nil)
        let width = style.stroke == nil ? (n.hidden ? 0.5 : 0) : style.strokeWidth
        let drawsBox = !(isRoot && n.role == .screen) && (fill[0].1 != "none" || stroke != nil)
        if drawsBox {
            var rect = try ScreenDrawing.inset(n.frame, width) + fill
            if let stroke {
                rect += [("stroke", stroke), ("stroke-width", try SVGText.number(width))]
                if n.hidden { rect.append(("stroke-dasharray", WireframeLegend.ghostDash)) }
            }
            if style.cornerRadius > 0 { rect.append(("rx", try SVGText.number(min(style.cornerRadius, n.frame.height / 2)))) }
            b.element("rect", rect)
        }
        if n.role == .image { try placeholder(n.frame, style: style, into: &b) }
        if let m = n.text, !m.lines.isEmpty { try text(m, of: n, style: style, into: &b, warnings: &warnings) }
        for c in n.children { try node(c, isRoot: false, into: &b, warnings: &warnings) }
        b.end("g")
    }

    /// An image: its box crossed by both diagonals.
    func placeholder(_ f: Frame, style: BoxStyle, into b: inout SVGBuilder) throws(SVGNumberError) {
        let h = min(style.strokeWidth / 2, f.width / 2, f.height / 2)
        let (x0, y0, x1, y1) = (f.x + h, f.y + h, f.maxX - h, f.maxY - h)
        let attrs: [(String, String)] = [("stroke", style.stroke ?? "#8E8E93"), ("stroke-width", try SVGText.number(style.strokeWidth))]
        b.element("line", [("x1", try SVGText.number(x0)), ("y1", try SVGText.number(y0)), ("x2", try SVGText.number(x1)), ("y2", try SVGText.number(y1))] + attrs)
        b.element("line", [("x1", try SVGText.number(x0)), ("y1", try SVGText.number(y1)), ("x2", try SVGText.number(x1)), ("y2", try SVGText.number(y0))] + attrs)
    }

    /// The measured lines, vertically centred in the frame, each at its baseline (line k at
    /// k × lineHeight + ascender below the text's top); buttons centre each line, other roles
    /// start at the frame's left. Clipped to the frame.
    mutating func text(_ m: TextMetrics, of n: LaidOutNode, style: BoxStyle, into b: inout SVGBuilder,
                       warnings: inout [Diagnostic]) throws(SVGNumberError) {
        clipCount += 1
        let clip = "\(idPrefix)clip\(clipCount)"
        b.element("clipPath", [("id", clip)], close: false)
        b.element("rect", [("x", try SVGText.number(n.frame.x)), ("y", try SVGText.number(n.frame.y)),
                           ("width", try SVGText.number(n.frame.width)), ("height", try SVGText.number(n.frame.height))])
        b.end("clipPath")
        var colour: [(String, String)] = [("fill", style.textColor)]
        if let t = n.textColor, let c = color(t, of: n, what: "text_color", warnings: &warnings) { colour = try ScreenDrawing.fill(c) }
        let centred = n.role == .button
        let x = centred ? n.frame.x + n.frame.width / 2 : n.frame.x
        let top = n.frame.y + (n.frame.height - m.height) / 2
        var attrs: [(String, String)] = [("clip-path", "url(#\(clip))"), ("font-family", family(m.face)),
                                         ("font-size", try SVGText.number(fonts.size(of: m)))]
        let name = m.face.name.lowercased()
        if name.contains("bold") { attrs.append(("font-weight", "bold")) }
        if name.contains("italic") || name.contains("oblique") { attrs.append(("font-style", "italic")) }
        if centred { attrs.append(("text-anchor", "middle")) }
        // One line of XML with xml:space="preserve": the spaces of a line are drawn as measured,
        // and no indentation gets between the lines.
        var line = SVGBuilder.tag("text", [("xml:space", "preserve")] + attrs + colour) + ">"
        for (k, text) in m.lines.enumerated() {
            let baseline = top + Double(k) * m.lineHeight + m.ascender
            line += SVGBuilder.tag("tspan", [("x", try SVGText.number(x)), ("y", try SVGText.number(baseline))]) + ">"
                + SVGText.escaped(text) + "</tspan>"
        }
        b.raw(line + "</text>")
    }

    /// The measured face first, then its family as the font file names it (`DejaVuSans-Bold` →
    /// `DejaVu Sans`) when that differs, then the generic `sans-serif`.
    func family(_ face: FontFace) -> String {
        var names = [face.name]
        if let f = fonts.family(of: face), f != face.name { names.append(f) }
        return names.map { "'\($0.replacingOccurrences(of: "'", with: ""))'" }.joined(separator: ", ") + ", sans-serif"
    }
}
