/// "did you mean" suggestions by edit distance (Damerau-Levenshtein, optimal string alignment).
public enum DidYouMean {
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased().unicodeScalars), b = Array(b.lowercased().unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev2 = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    v = min(v, prev2[j - 2] + 1)
                }
                cur[j] = v
            }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[b.count]
    }

    /// The closest candidate within a distance that scales with the word's length, if any.
    /// Ties break alphabetically so the answer is stable.
    public static func suggest(_ word: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(1, min(3, word.count / 3))
        var best: (Int, String)?
        for c in candidates where c != word {
            let d: Int
            if c.lowercased() == word.lowercased() || normalized(c) == normalized(word) {
                d = 0
            } else {
                d = distance(word, c)
            }
            guard d <= limit else { continue }
            if best == nil || d < best!.0 || (d == best!.0 && c < best!.1) { best = (d, c) }
        }
        return best?.1
    }

    /// `; did you mean 'x'?` or the empty string.
    public static func hint(_ word: String, among candidates: some Sequence<String>) -> String {
        suggest(word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    private static func normalized(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" }.map(Character.init))
    }
}
