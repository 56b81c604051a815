// The styled look (docs/render.md, "Styled look"): each node with its content and resolved
// styles: item titles and subtitles, navigation bar titles, tab-bar labels, collection titles,
// image names; background and text colours, fonts, corner radius, borders.
import LoomCore
import LoomLayout
import LoomStyles
import LoomText

/// What the styled look reads besides the layout.
struct StyledLook {
    let content: ScreenContent
    /// The layout's text metrics (`FontLibrary`); nil only when no font could be loaded, and then
    /// the content's text is drawn on one line, clipped, without measuring.
    let measurer: (any TextMeasuring)?
    let safeArea: EdgeInsets

    static let barFill = "#F9F9F9"
    static let barSeparator = "#C6C6C8"
    static let secondaryText = "#8E8E93"
    static let selectedTab = "#007AFF"
    static let itemFill = "#FFFFFF"
    static let itemStroke = "#D1D1D6"
    static let regular = "DejaVuSans"
    static let bold = "DejaVuSans-Bold"

    /// `text` in `font`, wrapped to `maxWidth` and cut to `lines` with "…", as the layout measures.
    func measure(_ text: String, _ font: FontRequest, maxWidth: Double, lines: Int) -> TextMetrics {
        if let measurer { return measurer.measure(text, font: font, maxWidth: max(0, maxWidth), lines: lines) }
        // No font at all (the layout would have failed first): DejaVu Sans's proportions, one line.
        let lh = font.size * 2384 / 2048
        return TextMetrics(face: FontFace(requested: font.name, name: font.name, file: "", isFallback: true), lines: [text],
                           width: maxWidth, height: lh, lineHeight: lh, ascender: font.size * 1901 / 2048, neededLines: 1,
                           truncated: false, size: font.size)
    }
}

extension ScreenDrawing {
    /// How a role is drawn when no style says otherwise: the fill, the outline and its width,
    /// the corner radius. Layout-only roles (stacks, containers, collections, bars' boxes) are
    /// invisible, as in the app.
    static func styledDefaults(_ role: LayoutRole) -> (fill: String?, stroke: String?, width: Double, radius: Double) {
        switch role {
        case .button: return ("#E5F0FF", "#007AFF", 1, 6)
        case .image: return ("#EFEFF4", "#8E8E93", 1, 0)
        case .view: return ("#F2F2F7", "#C7C7CC", 0.5, 0)
        case .item: return (StyledLook.itemFill, StyledLook.itemStroke, 0.5, 8)
        case .screen, .label, .stack, .vstack, .hstack, .container, .navigation, .tabBar, .collection: return (nil, nil, 0, 0)
        }
    }

    mutating func styledNode(_ n: LaidOutNode, isRoot: Bool, look: StyledLook, into b: inout SVGBuilder,
                             warnings: inout [Diagnostic]) throws(SVGNumberError) {
        let e = look.content[n.path] ?? ScreenContent.Entry()
        let d = ScreenDrawing.styledDefaults(n.role)
        var group: [(String, String)] = [("class", n.hidden ? "node hidden" : "node"), ("data-role", n.role.rawValue),
                                         ("data-path", n.path)]
        if let id = n.id { group.append(("data-id", id)) }
        if n.hidden { group.append(("opacity", try SVGText.number(WireframeLegend.ghostOpacity))) }
        b.element("g", group, close: false)
        b.element("title", [], text: n.id.map { "\(n.type) \($0) (\(n.view)) \(n.path)" } ?? "\(n.type) (\(n.view)) \(n.path)")

        // The style's background, else the props' `background_color`, else the role's.
        let screenRoot = isRoot && n.role == .screen
        var fill: [(String, String)] = d.fill.map { [("fill", $0)] } ?? [("fill", "none")]
        var styledFill = false
        if !screenRoot, let bg = n.background ?? e.background, let c = color(bg, of: n, what: "background", warnings: &warnings) {
            fill = try ScreenDrawing.fill(c)
            styledFill = true
        }
        // A border from the style replaces the role's outline; a button with a background of
        // its own has none (a filled button).
        var stroke: [(String, String)] = []
        var width = 0.0
        if let w = e.borderWidth, w > 0 {
            let c = e.borderColor.flatMap { color($0, of: n, what: "border_color", warnings: &warnings) } ?? SVGColor(rgb: "#000000", opacity: 1)
            stroke = [("stroke", c.rgb)] + (c.opacity == 1 ? [] : [("stroke-opacity", try SVGText.number(c.opacity))])
            width = w
        } else if let s = d.stroke, !(n.role == .button && styledFill) {
            stroke = [("stroke", s)]
            width = d.width
        }
        if n.hidden && stroke.isEmpty {
            stroke = [("stroke", "#8E8E93")]
            width = 0.5
        }
        if !screenRoot && (fill[0].1 != "none" || !stroke.isEmpty) {
            var rect = try ScreenDrawing.inset(n.frame, width) + fill
            if !stroke.isEmpty {
                rect += stroke + [("stroke-width", try SVGText.number(width))]
                if n.hidden { rect.append(("stroke-dasharray", WireframeLegend.ghostDash)) }
            }
            let radius = min(e.cornerRadius ?? d.radius, n.frame.height / 2, n.frame.width / 2)
            if radius > 0 { rect.append(("rx", try SVGText.number(radius))) }
            b.element("rect", rect)
        }

        switch n.role {
        case .image:
            try placeholder(n.frame, style: WireframeLegend.style(.image), into: &b)
            if let name = e.image { try imageName(name, in: n.frame, look: look, into: &b) }
        case .label, .button:
            if let m = n.text, !m.lines.isEmpty {
                var style = WireframeLegend.style(n.role)
                // A button's title takes the style's tint when it has no text colour (UIButton).
                if n.role == .button, n.textColor == nil, let t = e.tint, let c = SVGColor.parse(t), c.opacity == 1 { style.textColor = c.rgb }
                try text(m, of: n, style: style, into: &b, warnings: &warnings)
            }
        case .item, .view:
            try titleBlock(e, in: n.frame, large: n.role == .view, look: look, into: &b)
        // The bars: the layout places the children beside them (below the navigation bar,
        // above the tab bar), so they are drawn first and a title tag may overlap them.
        case .navigation: try navigationBar(e, frame: n.frame, look: look, into: &b)
        case .tabBar: try tabBar(e, frame: n.frame, look: look, into: &b, warnings: &warnings)
        default:
            break
        }
        for c in n.children { try node(c, isRoot: false, into: &b, warnings: &warnings) }
        // A collection's title above its items.
        if n.role == .collection, let t = e.title { try collectionTitle(t, frame: n.frame, look: look, into: &b) }
        b.end("g")
    }

    /// A clip path of `f`; its id.
    mutating func clip(_ f: Frame, into b: inout SVGBuilder) throws(SVGNumberError) -> String {
        clipCount += 1
        let id = "\(idPrefix)clip\(clipCount)"
        b.element("clipPath", [("id", id)], close: false)
        b.element("rect", [("x", try SVGText.number(f.x)), ("y", try SVGText.number(f.y)),
                           ("width", try SVGText.number(max(0, f.width))), ("height", try SVGText.number(max(0, f.height)))])
        b.end("clipPath")
        return id
    }

    /// Measured lines as one `<text>` (a `<tspan>` per line at its baseline), clipped to `clipTo`;
    /// `x` is the left edge, or the centre with `centred`.
    mutating func lines(_ m: TextMetrics, cls: String, x: Double, top: Double, centred: Bool, fill: String, clipTo: Frame,
                        into b: inout SVGBuilder) throws(SVGNumberError) {
        guard !m.lines.isEmpty else { return }
        let clipID = try clip(clipTo, into: &b)
        var attrs: [(String, String)] = [("xml:space", "preserve"), ("class", cls), ("clip-path", "url(#\(clipID))"),
                                         ("font-family", family(m.face)), ("font-size", try SVGText.number(fonts.size(of: m)))]
        let name = m.face.name.lowercased()
        if name.contains("bold") { attrs.append(("font-weight", "bold")) }
        if name.contains("italic") || name.contains("oblique") { attrs.append(("font-style", "italic")) }
        if centred { attrs.append(("text-anchor", "middle")) }
        attrs.append(("fill", fill))
        var line = SVGBuilder.tag("text", attrs) + ">"
        for (k, t) in m.lines.enumerated() {
            line += SVGBuilder.tag("tspan", [("x", try SVGText.number(x)), ("y", try SVGText.number(top + Double(k) * m.lineHeight + m.ascender))])
                + ">" + SVGText.escaped(t) + "</tspan>"
        }
        b.raw(line + "</text>")
    }

    /// An item's or a view's title and subtitle, left aligned, the block centred vertically
    /// (from the top when it does not fit); the title takes as many lines as the height leaves
    /// (at most 3), the subtitle one.
    mutating func titleBlock(_ e: ScreenContent.Entry, in f: Frame, large: Bool, look: StyledLook, into b: inout SVGBuilder) throws(SVGNumberError) {
        guard e.title != nil || e.subtitle != nil else { return }
        let narrow = f.width < 120
        let padX = narrow ? 6.0 : 12.0, padY = min(8.0, f.height / 6)
        let inner = max(0, f.width - 2 * padX), avail = max(0, f.height - 2 * padY)
        let titleFont = FontRequest(name: large ? StyledLook.bold : StyledLook.regular, size: large ? 17 : (narrow ? 12 : 15))
        let subFont = FontRequest(name: StyledLook.regular, size: narrow ? 11 : 13)
        let sub = e.subtitle.map { look.measure($0, subFont, maxWidth: inner, lines: 1) }
        let subHeight = sub?.height ?? 0
        var title: TextMetrics?
        if let t = e.title {
            let lh = look.measure("M", titleFont, maxWidth: inner, lines: 1).lineHeight
            let fit = lh > 0 ? Int(((avail - subHeight) / lh).rounded(.down)) : 1
            title = look.measure(t, titleFont, maxWidth: inner, lines: min(3, max(1, fit)))
        }
        let gap = title != nil && sub != nil ? 2.0 : 0
        let block = (title?.height ?? 0) + gap + subHeight
        var top = block <= avail ? f.y + padY + (avail - block) / 2 : f.y + padY
        if let title {
            try lines(title, cls: "title", x: f.x + padX, top: top, centred: false, fill: "#000000", clipTo: f, into: &b)
            top += title.height + gap
        }
        if let sub { try lines(sub, cls: "subtitle", x: f.x + padX, top: top, centred: false, fill: StyledLook.secondaryText, clipTo: f, into: &b) }
    }

    /// An image's name on a band across the placeholder's middle (up to 2 lines).
    mutating func imageName(_ name: String, in f: Frame, look: StyledLook, into b: inout SVGBuilder) throws(SVGNumberError) {
        let m = look.measure(name, FontRequest(name: StyledLook.regular, size: 11), maxWidth: max(0, f.width - 8), lines: 2)
        guard !m.lines.isEmpty else { return }
        let w = min(f.width, m.width + 8), h = min(f.height, m.height + 4)
        let x = f.x + (f.width - w) / 2, y = f.y + (f.height - h) / 2
        b.element("rect", [("class", "image-name-band"), ("x", try SVGText.number(x)), ("y", try SVGText.number(y)),
                           ("width", try SVGText.number(w)), ("height", try SVGText.number(h)), ("fill", "#EFEFF4"), ("rx", "2")])
        try lines(m, cls: "image-name", x: f.x + f.width / 2, top: f.y + (f.height - m.height) / 2, centred: true, fill: "#3A3A3C",
                  clipTo: f, into: &b)
    }

    /// The navigation bar: the status bar area and the 44-point bar (docs/layout.md) with the
    /// title centred in bold 17 points.
    mutating func navigationBar(_ e: ScreenContent.Entry, frame f: Frame, look: StyledLook, into b: inout SVGBuilder) throws(SVGNumberError) {
        let barTop = f.y + look.safeArea.top
        let bottom = min(f.maxY, barTop + 44)
        guard bottom > f.y else { return }
        b.element("g", [("class", "navigation-bar")], close: false)
        b.element("rect", [("x", try SVGText.number(f.x)), ("y", try SVGText.number(f.y)), ("width", try SVGText.number(f.width)),
                           ("height", try SVGText.number(bottom - f.y)), ("fill", StyledLook.barFill)])
        b.element("line", [("x1", try SVGText.number(f.x)), ("y1", try SVGText.number(bottom - 0.25)), ("x2", try SVGText.number(f.maxX)),
                           ("y2", try SVGText.number(bottom - 0.25)), ("stroke", StyledLook.barSeparator), ("stroke-width", "0.5")])
        if let t = e.title {
            let bar = Frame(x: f.x, y: barTop, width: f.width, height: bottom - barTop)
            let m = look.measure(t, FontRequest(name: StyledLook.bold, size: 17), maxWidth: max(0, f.width - 32), lines: 1)
            try lines(m, cls: "navigation-title", x: f.x + f.width / 2, top: barTop + (44 - m.height) / 2, centred: true,
                      fill: "#000000", clipTo: bar, into: &b)
        }
        b.end("g")
    }

    /// The tab bar: 49 points above the safe area's bottom (docs/layout.md), one slot per tab with
    /// an icon placeholder and the label; the selected tab in the tint (default #007AFF).
    mutating func tabBar(_ e: ScreenContent.Entry, frame f: Frame, look: StyledLook, into b: inout SVGBuilder,
                         warnings: inout [Diagnostic]) throws(SVGNumberError) {
        let height = min(f.height, 49 + look.safeArea.bottom)
        let top = f.maxY - height
        b.element("g", [("class", "tab-bar")], close: false)
        b.element("rect", [("x", try SVGText.number(f.x)), ("y", try SVGText.number(top)), ("width", try SVGText.number(f.width)),
                           ("height", try SVGText.number(height)), ("fill", StyledLook.barFill)])
        b.element("line", [("x1", try SVGText.number(f.x)), ("y1", try SVGText.number(top + 0.25)), ("x2", try SVGText.number(f.maxX)),
                           ("y2", try SVGText.number(top + 0.25)), ("stroke", StyledLook.barSeparator), ("stroke-width", "0.5")])
        if !e.tabs.isEmpty {
            let selected = min(max(e.selectedTab, 0), e.tabs.count - 1)
            var tint = StyledLook.selectedTab
            if let t = e.tint, let c = SVGColor.parse(t), c.opacity == 1 { tint = c.rgb }
            let slot = f.width / Double(e.tabs.count)
            for (k, tab) in e.tabs.enumerated() {
                let on = k == selected
                let colour = on ? tint : StyledLook.secondaryText
                let x = f.x + Double(k) * slot, cx = x + slot / 2
                var attrs: [(String, String)] = [("class", on ? "tab selected" : "tab"), ("data-index", String(k))]
                if let icon = tab.icon { attrs.append(("data-icon", icon)) }
                b.element("g", attrs, close: false)
                b.element("rect", [("x", try SVGText.number(cx - 11)), ("y", try SVGText.number(top + 5)), ("width", "22"), ("height", "22"),
                                   ("rx", "5"), ("fill", on ? colour : "none"), ("stroke", colour), ("stroke-width", "1.5")])
                let m = look.measure(tab.title, FontRequest(name: StyledLook.regular, size: 10), maxWidth: max(0, slot - 4), lines: 1)
                try lines(m, cls: "tab-title", x: cx, top: top + 31, centred: true, fill: colour,
                          clipTo: Frame(x: x, y: top, width: slot, height: height), into: &b)
                b.end("g")
            }
        }
        b.end("g")
    }

    /// A collection's title as a tag at its top left, just above its frame so it hides none of
    /// its items (inside the frame when the frame starts at the screen's top), clipped to the
    /// tag's band, as wide as the collection.
    mutating func collectionTitle(_ t: String, frame f: Frame, look: StyledLook, into b: inout SVGBuilder) throws(SVGNumberError) {
        let m = look.measure(t, FontRequest(name: StyledLook.bold, size: 9), maxWidth: max(0, f.width - 8), lines: 1)
        guard !m.lines.isEmpty, f.width > 4 else { return }
        let w = min(f.width, m.width + 8), h = m.height + 2
        let y = f.y - h >= 0 ? f.y - h : f.y
        let band = Frame(x: f.x, y: y, width: w, height: h)
        b.element("g", [("class", "collection-title")], close: false)
        b.element("rect", [("x", try SVGText.number(band.x)), ("y", try SVGText.number(band.y)), ("width", try SVGText.number(w)),
                           ("height", try SVGText.number(h)), ("rx", "3"), ("fill", WireframeLegend.style(.collection).stroke ?? "#30B0C7")])
        try lines(m, cls: "collection-title-text", x: f.x + 4, top: y + 1, centred: false, fill: "#FFFFFF", clipTo: band, into: &b)
        b.end("g")
    }
}
