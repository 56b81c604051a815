/// A text cut into drawn lines: hard line breaks, wrapping, then the line limit (docs/text.md).
struct TextLayout {
    /// The drawn lines' clusters (spaces at line ends removed; the last one ends with "…" when truncated).
    private(set) var lines: [[Cluster]] = []
    private(set) var neededLines = 0
    private(set) var truncated = false

    init(text: String, shape: ([Character]) -> [Cluster], breaker: LineBreaker, limit: Int?) {
        guard !text.isEmpty else { return }
        var all: [[Cluster]] = []
        for hardLine in TextLayout.hardLines(text) {
            let clusters = shape(hardLine)
            for range in breaker.wrap(clusters) { all.append(Array(clusters[range])) }
        }
        neededLines = all.count
        if let limit, limit > 0, all.count > limit {
            truncated = true
            all.removeLast(all.count - limit)
            let ellipsis = shape(["…"]).first ?? Cluster(text: "…", advance: 0)
            all[limit - 1] = breaker.truncate(all[limit - 1][...], ellipsis: ellipsis)
        }
        lines = all
    }

    /// The text split at "\n", "\r\n" and "\r" (each one Swift `Character`): n breaks, n + 1 lines.
    static func hardLines(_ text: String) -> [[Character]] {
        var result: [[Character]] = [[]]
        for character in text {
            // CR and LF never combine with other scalars: a Character starting with one is
            // "\n", "\r" or "\r\n".
            let first = character.unicodeScalars.first?.value
            if first == 0x0A || first == 0x0D {
                result.append([])
            } else {
                result[result.count - 1].append(character)
            }
        }
        return result
    }
}
