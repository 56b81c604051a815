/// One grapheme cluster (a Swift `Character`) as the breaker sees it: its glyphs' advance in design
/// units and the glyphs that kern with its neighbours.
struct Cluster: Equatable {
    var character: Character
    /// Glyph of the first and of the last scalar (kerning applies between clusters).
    var firstGlyph: UInt32
    var lastGlyph: UInt32
    /// Sum of the scalars' advances (a combining mark adds its own advance as the font gives it).
    var advance: Int
    /// U+0020 alone: a break opportunity, not drawn at a line's end.
    var isSpace: Bool
    /// U+002D alone: a line may break after it.
    var isHyphen: Bool

    init(character: Character, firstGlyph: UInt32, lastGlyph: UInt32, advance: Int) {
        self.character = character
        self.firstGlyph = firstGlyph
        self.lastGlyph = lastGlyph
        self.advance = advance
        let scalars = character.unicodeScalars
        let single = scalars.count == 1 ? scalars.first?.value : nil
        isSpace = single == 0x20
        isHyphen = single == 0x2D
    }
}

/// Greedy line breaking and tail truncation over clusters, in design units (docs/text.md,
/// "Wrapping"). Pure: the caller gives kerning and the width test.
struct LineBreaker {
    /// Kerning between two glyphs, design units.
    var kern: (UInt32, UInt32) -> Int
    /// Whether a width in design units fits the line (always true without `maxWidth`).
    var fits: (Int) -> Bool

    /// The width of `clusters` drawn in a row: advances plus kerning between neighbours.
    func width(_ clusters: ArraySlice<Cluster>) -> Int {
        var total = 0
        var previous: Cluster?
        for cluster in clusters {
            total = adding(cluster, after: previous, to: total)
            previous = cluster
        }
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
            var width = 0
            var previous: Cluster?
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
                    for space in clusters[index..<runEnd] {
                        width = adding(space, after: previous, to: width)
                        previous = space
                    }
                    index = runEnd
                    continue
                }
                let widened = adding(clusters[index], after: previous, to: width)
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
                previous = clusters[index]
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
        var prefixWidths: [Int] = [0]
        var previous: Cluster?
        for cluster in line {
            prefixWidths.append(adding(cluster, after: previous, to: prefixWidths[prefixWidths.count - 1]))
            previous = cluster
        }
        let clusters = Array(line)
        var keep = clusters.count
        while keep > 0 {
            var end = keep
            while end > 0 && clusters[end - 1].isSpace { end -= 1 }
            if end == 0 { break }
            let total = adding(ellipsis, after: clusters[end - 1], to: prefixWidths[end])
            if fits(total) { return Array(clusters[0..<end]) + [ellipsis] }
            keep = end - 1
        }
        return [ellipsis]
    }

    private func adding(_ cluster: Cluster, after previous: Cluster?, to width: Int) -> Int {
        guard let previous else { return width + cluster.advance }
        return width + kern(previous.lastGlyph, cluster.firstGlyph) + cluster.advance
    }
}
