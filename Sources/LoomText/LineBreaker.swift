/// One unit the breaker never splits, as shaping left it: a grapheme cluster (a Swift
/// `Character`), or several when HarfBuzz made one glyph cluster of them (a ligature such as
/// `fi`), with its shaped advance.
struct Cluster: Equatable {
    /// The characters drawn.
    var text: String
    /// The shaped glyphs' advances (GPOS kerning with the next character included), in the
    /// requested face's design units (a fallback face's advances are scaled to them).
    var advance: Double
    /// U+0020 alone: a break opportunity, not drawn at a line's end.
    var isSpace: Bool
    /// U+002D alone: a line may break after it.
    var isHyphen: Bool

    init(text: String, advance: Double) {
        self.text = text
        self.advance = advance
        isSpace = text == " "
        isHyphen = text == "-"
    }
}

/// Greedy line breaking and tail truncation over clusters, in design units (docs/text.md,
/// "Wrapping"). Pure: the caller gives the width test; clusters come shaped.
struct LineBreaker {
    /// Whether a width in design units fits the line (always true without `maxWidth`).
    var fits: (Double) -> Bool

    /// The width of `clusters` drawn in a row: their shaped advances.
    func width(_ clusters: ArraySlice<Cluster>) -> Double {
        var total = 0.0
        for cluster in clusters { total += cluster.advance }
        return total
    }

    /// The lines of one hard line (no line breaks inside): ranges of `clusters`, each without the
    /// spaces at its end (they do not count toward its width and are not drawn). At least one
    /// line, empty when `clusters` holds nothing but spaces.
    func wrap(_ clusters: [Cluster]) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var start = 0
        let count = clusters.count
        nextLine: while true {
            var width = 0.0
            var hasContent = false
            // Where the line may end (`end`, spaces excluded) and the next one start (`next`).
            var lastBreak: (end: Int, next: Int)?
            var index = start
            while index < count {
                if clusters[index].isSpace {
                    var runEnd = index
                    while runEnd < count && clusters[runEnd].isSpace { runEnd += 1 }
                    if runEnd == count {
                        lines.append(start..<index)
                        return lines
                    }
                    if hasContent { lastBreak = (index, runEnd) }
                    for space in clusters[index..<runEnd] { width += space.advance }
                    index = runEnd
                    continue
                }
                let widened = width + clusters[index].advance
                if hasContent && !fits(widened) {
                    if let lastBreak {
                        lines.append(start..<lastBreak.end)
                        start = lastBreak.next
                    } else {
                        // One word wider than the line: break it between characters.
                        lines.append(start..<index)
                        start = index
                    }
                    continue nextLine
                }
                width = widened
                if clusters[index].isHyphen && hasContent && !clusters[index - 1].isSpace && index + 1 < count {
                    lastBreak = (index + 1, index + 1)
                }
                hasContent = true
                index += 1
            }
            lines.append(start..<count)
            return lines
        }
    }

    /// The last kept line cut so that it plus the ellipsis fits: the longest prefix (spaces at its
    /// end dropped) that fits with the ellipsis after it, then the ellipsis. Only the ellipsis when
    /// no prefix fits.
    func truncate(_ line: ArraySlice<Cluster>, ellipsis: Cluster) -> [Cluster] {
        var prefixWidths: [Double] = [0]
        for cluster in line { prefixWidths.append(prefixWidths[prefixWidths.count - 1] + cluster.advance) }
        let clusters = Array(line)
        var keep = clusters.count
        while keep > 0 {
            var end = keep
            while end > 0 && clusters[end - 1].isSpace { end -= 1 }
            if end == 0 { break }
            let total = prefixWidths[end] + ellipsis.advance
            if fits(total) { return Array(clusters[0..<end]) + [ellipsis] }
            keep = end - 1
        }
        return [ellipsis]
    }
}
