// A laid-out screen as an SVG wireframe (docs/render.md).
import LoomCore
import LoomLayout
import LoomStyles
import LoomText

/// How nodes are drawn (docs/render.md): `styled` shows the content (item titles, bar titles,
/// tab labels, image names) and the resolved styles; `wire` is the plain wireframe by role.
public enum RenderLook: String, Sendable, Hashable, CaseIterable {
    case styled, wire
}

/// What to draw besides the boxes.
public struct RenderOptions: Sendable, Hashable {
    /// `styled` (the default) or `wire`.
    public var look: RenderLook
    /// Thin dashed lines at the safe area's edges.
    public var safeAreaGuides: Bool
    /// A red outline (with the message as a tooltip) on each node a finding names.
    public var findings: Bool
    /// The action of each tappable node as a badge at its top right.
    public var badges: Bool
    /// The document's `<title>` (nil: none).
    public var title: String?
    public init(safeAreaGuides: Bool = true, findings: Bool = true, badges: Bool = true, title: String? = nil,
                look: RenderLook = .styled) {
        self.look = look
        self.safeAreaGuides = safeAreaGuides
        self.findings = findings
        self.badges = badges
        self.title = title
    }
}

/// An SVG document and the size in pixels it is drawn at.
public struct SVGPicture: Sendable, Hashable {
    public var text: String
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// What could not be drawn as written (a colour that is not `#RRGGBB`/`#AARRGGBB`, a
    /// finding naming no node), located at the node's source when known.
    public var warnings: [Diagnostic]
    /// Why the picture was not drawn (a number SVG cannot hold: not finite, or beyond 1e9);
    /// `text` is then empty and nothing should be written.
    public var errors: [Diagnostic] = []
}

/// Draws a `LayoutResult`: the canvas is the device's pixel size (points × scale), the viewBox
/// the screen in points. Same result and options → the same bytes.
public struct SVGRenderer: Sendable {
    public var options: RenderOptions
    public init(options: RenderOptions = RenderOptions()) { self.options = options }

    /// The device's pixel size of a result's screen.
    public static func pixelSize(_ r: LayoutResult) -> (width: Int, height: Int) {
        ((try? SVGText.pixels(r.width * r.device.scale)) ?? 0, (try? SVGText.pixels(r.height * r.device.scale)) ?? 0)
    }

    /// `content`: what the styled look shows besides the layout (`ScreenContent(tree:)` of the
    /// resolved tree laid out); `measurer`: the text metrics it is measured with (default the
    /// layout's, `FontLibrary.shared`). The wire look reads neither.
    public func render(_ r: LayoutResult, content: ScreenContent? = nil, measurer: (any TextMeasuring)? = nil) -> SVGPicture {
        do {
            return try draw(r, content: content, measurer: measurer)
        } catch {
            let (pw, ph) = SVGRenderer.pixelSize(r)
            return SVGPicture(text: "", pixelWidth: pw, pixelHeight: ph, warnings: [], errors: [error.diagnostic])
        }
    }

    private func draw(_ r: LayoutResult, content: ScreenContent?, measurer: (any TextMeasuring)?) throws(SVGNumberError) -> SVGPicture {
        let pw = try SVGText.pixels(r.width * r.device.scale), ph = try SVGText.pixels(r.height * r.device.scale)
        var b = SVGBuilder()
        try b.beginDocument(width: r.width, height: r.height, pixelWidth: pw, pixelHeight: ph, title: options.title)
        var warnings: [Diagnostic] = []
        try drawScreen(r, content: content, measurer: measurer, idPrefix: "", into: &b, warnings: &warnings)
        b.end("svg")
        return SVGPicture(text: b.text, pixelWidth: pw, pixelHeight: ph, warnings: warnings)
    }

    /// The screen's content in points (0…width × 0…height); ids start with `idPrefix` so several
    /// screens can share one document.
    func drawScreen(_ r: LayoutResult, content: ScreenContent? = nil, measurer: (any TextMeasuring)? = nil, idPrefix: String,
                    into b: inout SVGBuilder, warnings: inout [Diagnostic]) throws(SVGNumberError) {
        var drawing = ScreenDrawing(idPrefix: idPrefix, fonts: FontSizes())
        if options.look == .styled {
            drawing.styled = StyledLook(content: content ?? ScreenContent(), measurer: measurer ?? (try? FontLibrary.shared.get()),
                                        safeArea: r.safeArea)
        }
        var background = SVGColor(rgb: WireframeLegend.screenBackground, opacity: 1)
        if let bg = r.root?.background, let c = drawing.color(bg, of: r.root!, what: "background", warnings: &warnings) {
            background = c
        }
        b.element("rect", [("class", "screen"), ("x", "0"), ("y", "0"), ("width", try SVGText.number(r.width)),
                           ("height", try SVGText.number(r.height)), ("fill", WireframeLegend.screenBackground)])
        if background.rgb != WireframeLegend.screenBackground || background.opacity != 1 {
            b.element("rect", [("class", "screen-background"), ("x", "0"), ("y", "0"), ("width", try SVGText.number(r.width)),
                               ("height", try SVGText.number(r.height))] + (try ScreenDrawing.fill(background)))
        }
        if let root = r.root { try drawing.node(root, isRoot: true, into: &b, warnings: &warnings) }
        if options.safeAreaGuides { try safeArea(r, into: &b) }
        if options.badges, let root = r.root { try drawing.badges(root, into: &b) }
        if options.findings { try drawing.findings(r, into: &b, warnings: &warnings) }
    }

    private func safeArea(_ r: LayoutResult, into b: inout SVGBuilder) throws(SVGNumberError) {
        let s = r.safeArea
        var lines: [(Double, Double, Double, Double)] = []
        if s.top > 0 { lines.append((0, s.top, r.width, s.top)) }
        if s.bottom > 0 { lines.append((0, r.height - s.bottom, r.width, r.height - s.bottom)) }
        if s.left > 0 { lines.append((s.left, 0, s.left, r.height)) }
        if s.right > 0 { lines.append((r.width - s.right, 0, r.width - s.right, r.height)) }
        guard !lines.isEmpty else { return }
        b.element("g", [("class", "safe-area"), ("stroke", WireframeLegend.safeAreaGuide), ("stroke-width", "0.5"),
                        ("stroke-dasharray", "2 2"), ("fill", "none")], close: false)
        for (x1, y1, x2, y2) in lines {
            b.element("line", [("x1", try SVGText.number(x1)), ("y1", try SVGText.number(y1)),
                               ("x2", try SVGText.number(x2)), ("y2", try SVGText.number(y2))])
        }
        b.end("g")
    }
}
