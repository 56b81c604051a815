// Before/after pictures (`host diff --render`, docs/diff.md "Pictures"): the old and the new
// screen side by side, each changed node outlined in its change's colour, and a legend.
import LoomCore
import LoomLayout
import LoomText

/// How a node changed, as the outline's `data-change` says it: the diff's hard and soft
/// updates are both `updated`.
public enum DiffOutlineChange: String, Sendable, Hashable, CaseIterable {
    case inserted, deleted, moved, updated

    /// The outline's colour (docs/diff.md, "Pictures").
    public var color: String {
        switch self {
        case .inserted: return "#34C759"
        case .deleted: return "#FF3B30"
        case .moved: return "#007AFF"
        case .updated: return "#FF9500"
        }
    }
}

/// One outline: a change's node on one side, at its laid-out frame.
public struct DiffOutline: Sendable, Hashable {
    public enum Side: String, Sendable, Hashable { case old, new }
    public var change: DiffOutlineChange
    public var side: Side
    /// The node's id (nil when it has none) and its path as the diff names it.
    public var id: String?
    public var path: String
    public var frame: Frame
    /// The tooltip: the diff's line for the change.
    public var detail: String
    public init(change: DiffOutlineChange, side: Side, id: String?, path: String, frame: Frame, detail: String) {
        self.change = change
        self.side = side
        self.id = id
        self.path = path
        self.frame = frame
        self.detail = detail
    }
}

/// One side of the picture: its caption, its layout and what the styled look shows.
public struct DiffPanel: Sendable {
    public var caption: String
    public var result: LayoutResult
    public var content: ScreenContent?
    public init(caption: String, result: LayoutResult, content: ScreenContent?) {
        self.caption = caption
        self.result = result
        self.content = content
    }
}

/// The two screens in one SVG, drawn as `host render` draws them (without findings: the
/// picture is about the change), outlines above them, the legend below with each colour's count
/// and the changes no laid-out node shows (another tab, a hidden parent).
public struct DiffRenderer: Sendable {
    public static let gap = 24.0
    public static let captionHeight = 22.0
    public static let legendHeight = 40.0
    public static let outlineWidth = 2.0
    public var options: RenderOptions
    public var pixelScale: Double

    public init(options: RenderOptions = RenderOptions(), pixelScale: Double = 2) {
        var o = options
        o.findings = false
        self.options = o
        self.pixelScale = pixelScale > 0 && pixelScale.isFinite ? pixelScale : 1
    }

    /// `offScreen`: how many changes have no outline (their node is not laid out).
    public func render(old: DiffPanel, new: DiffPanel, outlines: [DiffOutline], offScreen: Int = 0,
                       measurer: (any TextMeasuring)? = nil) -> SVGPicture {
        do {
            return try draw(old: old, new: new, outlines: outlines, offScreen: offScreen, measurer: measurer)
        } catch {
            return SVGPicture(text: "", pixelWidth: 0, pixelHeight: 0, warnings: [], errors: [error.diagnostic])
        }
    }

    private func draw(old: DiffPanel, new: DiffPanel, outlines: [DiffOutline], offScreen: Int,
                      measurer: (any TextMeasuring)?) throws(SVGNumberError) -> SVGPicture {
        let g = DiffRenderer.gap, cap = DiffRenderer.captionHeight
        let oldX = g, newX = g + old.result.width + g, top = g + cap
        let width = newX + new.result.width + g
        let legendTop = top + max(old.result.height, new.result.height) + g
        let height = legendTop + DiffRenderer.legendHeight
        let pw = try SVGText.pixels(width * pixelScale), ph = try SVGText.pixels(height * pixelScale)
        var b = SVGBuilder()
        try b.beginDocument(width: width, height: height, pixelWidth: pw, pixelHeight: ph, title: options.title,
                            background: (class: "diff-background", fill: "#E5E5EA"))
        var warnings: [Diagnostic] = []
        let screen = SVGRenderer(options: options)
        for (side, panel, x) in [(DiffOutline.Side.old, old, oldX), (.new, new, newX)] {
            let r = panel.result
            b.element("g", [("class", "side"), ("data-side", side.rawValue)], close: false)
            b.element("text", [("x", try SVGText.number(x)), ("y", try SVGText.number(top - 7)), ("font-family", "'DejaVu Sans', sans-serif"),
                               ("font-size", "13"), ("fill", "#1C1C1E")], text: "\(side.rawValue): \(panel.caption)")
            b.element("rect", [("x", try SVGText.number(x - 1)), ("y", try SVGText.number(top - 1)), ("width", try SVGText.number(r.width + 2)),
                               ("height", try SVGText.number(r.height + 2)), ("fill", "none"), ("stroke", "#3A3A3C"), ("stroke-width", "1")])
            b.element("svg", [("x", try SVGText.number(x)), ("y", try SVGText.number(top)), ("width", try SVGText.number(r.width)),
                              ("height", try SVGText.number(r.height)),
                              ("viewBox", "0 0 \(try SVGText.number(r.width)) \(try SVGText.number(r.height))"), ("overflow", "hidden")], close: false)
            var sideWarnings: [Diagnostic] = []
            try screen.drawScreen(r, content: panel.content, measurer: measurer, idPrefix: "\(side.rawValue)-", into: &b, warnings: &sideWarnings)
            warnings += sideWarnings.map { d in
                var d = d
                d.message = "\(side.rawValue): " + d.message
                return d
            }
            // The outlines, inside each frame (as findings are), above the screen.
            b.element("g", [("class", "changes"), ("fill", "none"), ("stroke-width", try SVGText.number(DiffRenderer.outlineWidth))], close: false)
            for o in outlines where o.side == side {
                let f = o.frame, h = min(DiffRenderer.outlineWidth / 2, f.width / 2, f.height / 2)
                b.element("rect", [("class", "change"), ("data-id", o.id ?? ""), ("data-change", o.change.rawValue), ("data-path", o.path),
                                   ("data-side", side.rawValue), ("x", try SVGText.number(f.x + h)), ("y", try SVGText.number(f.y + h)),
                                   ("width", try SVGText.number(max(0, f.width - 2 * h))), ("height", try SVGText.number(max(0, f.height - 2 * h))),
                                   ("stroke", o.change.color)], close: false)
                b.element("title", [], text: o.detail)
                b.end("rect")
            }
            b.end("g")
            b.end("svg")
            b.end("g")
        }
        try legend(outlines: outlines, offScreen: offScreen, x: g, y: legendTop, into: &b)
        b.end("svg")
        return SVGPicture(text: b.text, pixelWidth: pw, pixelHeight: ph, warnings: warnings)
    }

    /// A swatch per change colour with how many nodes it outlines (a node outlined on both sides
    /// counts once), then the changes not on screen.
    private func legend(outlines: [DiffOutline], offScreen: Int, x: Double, y: Double, into b: inout SVGBuilder) throws(SVGNumberError) {
        b.element("g", [("class", "legend"), ("font-family", "'DejaVu Sans', sans-serif"), ("font-size", "12"), ("fill", "#1C1C1E")], close: false)
        var cx = x
        for change in DiffOutlineChange.allCases {
            var seen = Set<String>()
            for o in outlines where o.change == change { seen.insert(o.id.map { "#" + $0 } ?? o.path) }
            let label = "\(change.rawValue) \(seen.count)"
            b.element("g", [("class", "legend-entry"), ("data-change", change.rawValue), ("data-count", String(seen.count))], close: false)
            b.element("rect", [("x", try SVGText.number(cx)), ("y", try SVGText.number(y + 4)), ("width", "14"), ("height", "14"), ("fill", "none"),
                               ("stroke", change.color), ("stroke-width", try SVGText.number(DiffRenderer.outlineWidth))])
            b.element("text", [("x", try SVGText.number(cx + 20)), ("y", try SVGText.number(y + 16))], text: label)
            b.end("g")
            // DejaVu Sans at 12 points: about 0.62 em per character.
            cx += 20 + Double(label.count) * 12 * 0.62 + 18
        }
        if offScreen > 0 {
            b.element("text", [("class", "legend-off-screen"), ("x", try SVGText.number(cx)), ("y", try SVGText.number(y + 16)), ("fill", "#3A3A3C")],
                      text: "\(offScreen) change\(offScreen == 1 ? "" : "s") not on screen (not laid out)")
        }
        b.end("g")
    }

    /// An HTML page holding `picture` and the diff's lines below it (every text escaped).
    public static func html(_ picture: SVGPicture, title: String, lines: [String]) -> String {
        var svg = Substring(picture.text)
        if svg.hasPrefix("<?xml"), let end = svg.firstIndex(of: "\n") { svg = svg[svg.index(after: end)...] }
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>\(SVGText.escaped(title))</title>\n"
        out += "<style>body{font-family:'DejaVu Sans',sans-serif;background:#F2F2F7;margin:16px} svg{max-width:100%;height:auto} "
        out += "li{font-family:'DejaVu Sans Mono',monospace;font-size:13px}</style>\n</head>\n<body>\n"
        out += "<h1>\(SVGText.escaped(title))</h1>\n" + svg + "<ul class=\"changes\">\n"
        for l in lines { out += "<li>\(SVGText.escaped(l))</li>\n" }
        return out + "</ul>\n</body>\n</html>\n"
    }
}
