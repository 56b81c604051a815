/// A text cut into drawn lines: hard line breaks, wrapping, then the line limit (docs/text.md).
struct TextLayout {
    /// The drawn lines' clusters (spaces at line ends removed; the last one ends with "…" when truncated).
    private(set) var lines: [[Cluster]] = []
    private(set) var neededLines = 0
    private(set) var truncated = false

    init(text: String, face: FreeTypeFace, breaker: LineBreaker, limit: Int?) {
        guard !text.isEmpty else { return }
        var all: [[Cluster]] = []
        for hardLine in TextLayout.hardLines(text) {
            let clusters = hardLine.map { TextLayout.cluster($0, face: face) }
            for range in breaker.wrap(clusters) { all.append(Array(clusters[range])) }
        }
        neededLines = all.count
        if let limit, limit > 0, all.count > limit {
            truncated = true
            all.removeLast(all.count - limit)
            let ellipsis = TextLayout.cluster("…", face: face)
            all[limit - 1] = breaker.truncate(all[limit - 1][...], ellipsis: ellipsis)
        }
        lines = all
    }

    /// The text split at "\n", "\r\n" and "\r" (each one Swift `Character`): n breaks, n + 1 lines.
    static func hardLines(_ text: String) -> [[Character]] {
        var result: [[Character]] = [[]]
        for character in text {
            if character == "\n" || character == "\r\n" || character == "\r" {
                result.append([])
            } else {
                result[result.count - 1].append(character)
            }
        }
        return result
    }

    static func cluster(_ character: Character, face: FreeTypeFace) -> Cluster {
        let glyphs = character.unicodeScalars.map { face.glyph($0) }
        return Cluster(character: character, firstGlyph: glyphs.first?.index ?? 0, lastGlyph: glyphs.last?.index ?? 0,
                       advance: glyphs.reduce(0) { $0 + $1.advance })
    }
}
