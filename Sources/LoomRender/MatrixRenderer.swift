// Several laid-out screens side by side in one SVG (`host render --matrix`, docs/render.md).
import LoomCore
import LoomLayout
import LoomText

/// One picture of the matrix: its row (a user), its column (a device and orientation), and the
/// laid-out screen, or why there is none.
public struct MatrixCell: Sendable {
    public var row: String
    public var column: String
    public var result: LayoutResult?
    /// Shown in place of the screen when `result` is nil (e.g. "not laid out: 2 errors").
    public var note: String?
    /// What the styled look shows besides the layout (`ScreenContent(tree:)`).
    public var content: ScreenContent?
    public init(row: String, column: String, result: LayoutResult?, note: String? = nil, content: ScreenContent? = nil) {
        self.content = content
        self.row = row
        self.column = column
        self.result = result
        self.note = note
    }
}

/// Rows and columns in the order they first appear among the cells; each column as wide as its
/// widest screen, each row as tall as its tallest, 1 point drawn as `pixelScale` pixels. Each
/// screen has a caption `row · column` above it and a thin frame around it.
public struct MatrixRenderer: Sendable {
    public static let gap = 24.0
    public static let captionHeight = 22.0
    public static let captionFontSize = 13.0
    public var options: RenderOptions
    public var pixelScale: Double

    public init(options: RenderOptions = RenderOptions(), pixelScale: Double = 1) {
        self.options = options
        self.pixelScale = pixelScale > 0 && pixelScale.isFinite ? pixelScale : 1
    }

    public func render(_ cells: [MatrixCell], measurer: (any TextMeasuring)? = nil) -> SVGPicture {
        do {
            return try draw(cells, measurer: measurer)
        } catch {
            return SVGPicture(text: "", pixelWidth: 0, pixelHeight: 0, warnings: [], errors: [error.diagnostic])
        }
    }

    private func draw(_ cells: [MatrixCell], measurer: (any TextMeasuring)?) throws(SVGNumberError) -> SVGPicture {
        var rows: [String] = [], columns: [String] = []
        for c in cells {
            if !rows.contains(c.row) { rows.append(c.row) }
            if !columns.contains(c.column) { columns.append(c.column) }
        }
        // An empty cell takes the smallest phone's size so its note has room.
        let empty = (width: 320.0, height: 568.0)
        var colWidth = [Double](repeating: 0, count: columns.count)
        var rowHeight = [Double](repeating: 0, count: rows.count)
        for c in cells {
            let ci = columns.firstIndex(of: c.column)!, ri = rows.firstIndex(of: c.row)!
            colWidth[ci] = max(colWidth[ci], c.result?.width ?? empty.width)
            rowHeight[ri] = max(rowHeight[ri], c.result?.height ?? empty.height)
        }
        let g = MatrixRenderer.gap, cap = MatrixRenderer.captionHeight
        var colX: [Double] = [], rowY: [Double] = []
        var x = g
        for w in colWidth { colX.append(x); x += w + g }
        var y = g
        for h in rowHeight { rowY.append(y); y += cap + h + g }
        let (width, height) = (max(x, 2 * g), max(y, 2 * g))
        let pw = try SVGText.pixels(width * pixelScale), ph = try SVGText.pixels(height * pixelScale)

        var b = SVGBuilder()
        try b.beginDocument(width: width, height: height, pixelWidth: pw, pixelHeight: ph, title: options.title,
                            background: (class: "matrix-background", fill: "#E5E5EA"))
        var warnings: [Diagnostic] = []
        let screen = SVGRenderer(options: options)
        for (i, c) in cells.enumerated() {
            let cx = colX[columns.firstIndex(of: c.column)!], cy = rowY[rows.firstIndex(of: c.row)!]
            let (w, h) = (c.result?.width ?? empty.width, c.result?.height ?? empty.height)
            b.element("g", [("class", "cell"), ("data-row", c.row), ("data-column", c.column)], close: false)
            b.element("text", [("x", try SVGText.number(cx)), ("y", try SVGText.number(cy + cap - 7)),
                               ("font-family", "'DejaVu Sans', sans-serif"), ("font-size", try SVGText.number(MatrixRenderer.captionFontSize)),
                               ("fill", "#1C1C1E")], text: "\(c.row) · \(c.column)")
            b.element("rect", [("x", try SVGText.number(cx - 1)), ("y", try SVGText.number(cy + cap - 1)), ("width", try SVGText.number(w + 2)),
                               ("height", try SVGText.number(h + 2)), ("fill", "none"), ("stroke", "#3A3A3C"), ("stroke-width", "1")])
            b.element("svg", [("x", try SVGText.number(cx)), ("y", try SVGText.number(cy + cap)), ("width", try SVGText.number(w)),
                              ("height", try SVGText.number(h)), ("viewBox", "0 0 \(try SVGText.number(w)) \(try SVGText.number(h))"),
                              ("overflow", "hidden")], close: false)
            if let r = c.result {
                var cellWarnings: [Diagnostic] = []
                try screen.drawScreen(r, content: c.content, measurer: measurer, idPrefix: "m\(i)-", into: &b, warnings: &cellWarnings)
                warnings += cellWarnings.map { d in
                    var d = d
                    d.message = "\(c.row) · \(c.column): " + d.message
                    return d
                }
            } else {
                b.element("rect", [("x", "0"), ("y", "0"), ("width", try SVGText.number(w)), ("height", try SVGText.number(h)), ("fill", "#FFFFFF")])
                b.element("text", [("x", "12"), ("y", "28"), ("font-family", "'DejaVu Sans', sans-serif"), ("font-size", "13"),
                                   ("fill", WireframeLegend.findingOutline)], text: c.note ?? "not laid out")
            }
            b.end("svg")
            b.end("g")
        }
        b.end("svg")
        return SVGPicture(text: b.text, pixelWidth: pw, pixelHeight: ph, warnings: warnings)
    }
}
