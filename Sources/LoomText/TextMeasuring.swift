// What the layout pass asks of text measurement (docs/layout.md, "Text"). The FreeType
// implementation is `FontLibrary`; tests may give a measurer of their own.

/// A font as a style names it: `{ "name": "DejaVuSans-Bold", "size": 17 }`.
public struct FontRequest: Sendable, Hashable {
    public var name: String
    /// Points.
    public var size: Double
    public init(name: String, size: Double) {
        self.name = name
        self.size = size
    }
}

/// Which installed font file a requested name resolved to.
public struct FontFace: Sendable, Hashable {
    /// The name the style asked for.
    public var requested: String
    /// The face used (`DejaVuSans-Bold`).
    public var name: String
    /// Its file (`/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf`).
    public var file: String
    /// True when the requested name is not installed and the documented fallback was used.
    public var isFallback: Bool
    public init(requested: String, name: String, file: String, isFallback: Bool) {
        self.requested = requested
        self.name = name
        self.file = file
        self.isFallback = isFallback
    }
}

/// A measured text: the lines it wraps to and the box they take, in points.
public struct TextMetrics: Sendable, Hashable {
    public var face: FontFace
    /// The text of each line drawn, after wrapping and the `lines` limit (the last one cut with
    /// "…" when truncated), without the spaces at its end. Empty for "" (docs/text.md).
    public var lines: [String]
    /// The widest drawn line's advance width.
    public var width: Double
    /// `lines.count` × line height.
    public var height: Double
    /// The font's line height: FreeType's `face->height` (hhea ascender − descender + line gap)
    /// scaled to the size.
    public var lineHeight: Double
    /// The font's ascender (`face->ascender`) at this size (the baseline of line k is at
    /// k × lineHeight + ascender).
    public var ascender: Double
    /// How many lines the text needs at the width given (without the limit).
    public var neededLines: Int
    /// True when `neededLines` exceeds the limit: the text is cut.
    public var truncated: Bool
    /// The font size measured at, in points (0 when a measurer does not say).
    public var size: Double
    public init(face: FontFace, lines: [String], width: Double, height: Double, lineHeight: Double, ascender: Double,
                neededLines: Int, truncated: Bool, size: Double = 0) {
        self.face = face
        self.lines = lines
        self.width = width
        self.height = height
        self.lineHeight = lineHeight
        self.ascender = ascender
        self.neededLines = neededLines
        self.truncated = truncated
        self.size = size
    }
}

/// Measures text. `maxWidth` nil: one line per hard line break, no wrapping. `lines` nil or 0:
/// no limit (UILabel's numberOfLines = 0).
public protocol TextMeasuring: AnyObject {
    func measure(_ text: String, font: FontRequest, maxWidth: Double?, lines: Int?) -> TextMetrics
    /// `measure(text, font: font, maxWidth: nil, lines: lines)`, with what it takes to know
    /// which widths would wrap it (the default knows none: every width is measured again).
    func measureUnwrapped(_ text: String, font: FontRequest, lines: Int?) -> UnwrappedText
}

extension TextMeasuring {
    public func measureUnwrapped(_ text: String, font: FontRequest, lines: Int?) -> UnwrappedText {
        UnwrappedText(metrics: measure(text, font: font, maxWidth: nil, lines: lines), widestTested: nil)
    }
}

/// A text measured without wrapping, and the widest width (points) the line breaker tested
/// while breaking it: measuring the same text, font and lines at a `maxWidth` every tested
/// width fits (`widestTested <= max(maxWidth, 0) + 1e-9`, the breaker's own test) breaks no
/// line and cuts nothing, so it gives these metrics exactly, and a layout need not measure
/// again. `widestTested` is nil when unknown or when the text is cut by the line limit.
public struct UnwrappedText: Sendable, Hashable {
    public var metrics: TextMetrics
    public var widestTested: Double?
    public init(metrics: TextMetrics, widestTested: Double?) {
        self.metrics = metrics
        self.widestTested = widestTested
    }

    /// What `measure(…, maxWidth: maxWidth, …)` gives when that is known to be these metrics;
    /// nil when the text must be measured again.
    public func metrics(atMaxWidth maxWidth: Double?) -> TextMetrics? {
        guard let widestTested else { return nil }
        guard let w = maxWidth, w.isFinite else { return metrics }
        return widestTested <= Swift.max(w, 0) + 1e-9 ? metrics : nil
    }
}
