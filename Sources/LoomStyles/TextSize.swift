import LoomCore

/// A Dynamic Type size (iOS's `UIContentSizeCategory`): the seven standard sizes, then the five
/// larger accessibility sizes. `l` (Large) is iOS's default (docs/accessibility.md).
public enum TextSize: String, Sendable, Hashable, CaseIterable, Comparable {
    case xs, s, m, l, xl, xxl, xxxl, ax1, ax2, ax3, ax4, ax5

    public static let standard = TextSize.l

    public static func < (a: TextSize, b: TextSize) -> Bool { a.index < b.index }

    var index: Int { TextSize.allCases.firstIndex(of: self)! }

    /// `--text-size`, `?text_size=`, `t:open{text_size=}` and loom.json's `"text_sizes"`: the
    /// names above (any case); anything else is an error naming them.
    public static func parse(_ text: String) -> Result<TextSize, Diagnostic> {
        if let t = TextSize(rawValue: text.lowercased()) { return .success(t) }
        let names = allCases.map(\.rawValue)
        return .failure(.error("a text size is one of \(names.joined(separator: ", ")), found '\(TextEscape.escaped(text))'\(DidYouMean.hint(text.lowercased(), among: names))"))
    }
}

/// A Dynamic Type text style (`UIFont.TextStyle`), as a style's `text_style` names it.
public enum TextStyle: String, Sendable, Hashable, CaseIterable {
    case largeTitle = "large_title", title1, title2, title3, headline, body, callout, subheadline, footnote, caption1, caption2

    /// The point size of this text style at each text size, xs … ax5: Apple Human Interface
    /// Guidelines, "Typography", "Specifications" → "iOS, iPadOS Dynamic Type sizes" (the tables
    /// for xSmall, Small, Medium, Large (default), xLarge, xxLarge, xxxLarge and the larger
    /// accessibility type sizes AX1 … AX5), https://developer.apple.com/design/human-interface-guidelines/typography.
    /// Only the sizes are used; weight, leading and tracking are the font's own.
    static let table: [TextStyle: [Double]] = [
        //               xs  s   m   L   xl  xxl xxxl ax1 ax2 ax3 ax4 ax5
        .largeTitle:    [31, 32, 33, 34, 36, 38, 40,  44, 48, 52, 56, 60],
        .title1:        [25, 26, 27, 28, 30, 32, 34,  38, 43, 48, 53, 58],
        .title2:        [19, 20, 21, 22, 24, 26, 28,  34, 39, 44, 50, 56],
        .title3:        [17, 18, 19, 20, 22, 24, 26,  31, 37, 43, 49, 55],
        .headline:      [14, 15, 16, 17, 19, 21, 23,  28, 33, 40, 47, 53],
        .body:          [14, 15, 16, 17, 19, 21, 23,  28, 33, 40, 47, 53],
        .callout:       [13, 14, 15, 16, 18, 20, 22,  26, 32, 38, 44, 51],
        .subheadline:   [12, 13, 14, 15, 17, 19, 21,  25, 30, 36, 42, 49],
        .footnote:      [12, 12, 12, 13, 15, 17, 19,  23, 27, 33, 38, 44],
        .caption1:      [11, 11, 11, 12, 14, 16, 18,  22, 26, 32, 37, 43],
        .caption2:      [11, 11, 11, 11, 13, 15, 17,  20, 24, 29, 34, 40],
    ]

    /// This style's size in points at `size`.
    public func points(at size: TextSize) -> Double { TextStyle.table[self]![size.index] }

    /// A font given in points (no text style) at `size`: scaled as Body is, by Body's size at
    /// `size` over Body's at Large (17 pt), so at Large it is unchanged.
    public static func scaled(_ points: Double, at size: TextSize) -> Double {
        if size == .standard { return points }
        return points * TextStyle.body.points(at: size) / TextStyle.body.points(at: .standard)
    }
}
