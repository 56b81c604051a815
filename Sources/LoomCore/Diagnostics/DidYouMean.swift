/// "did you mean" suggestions by edit distance (Damerau-Levenshtein, optimal string alignment),
/// at a cost bounded by the input.
///
/// A suggestion is a name within a small distance (1 to 3, by the word's length), so most
/// candidates are ruled out by their length alone (the distance is at least the difference of
/// the lengths); the others are compared inside a band of that width around the diagonal
/// (Ukkonen), stopping as soon as a row is past the limit: O(limit × length) per candidate
/// instead of O(length²). Each suggestion has a work budget (candidates looked at plus table
/// cells computed); past it there is no suggestion rather than a slow one. A 20,000-character
/// unknown profile among 5,000 names of ordinary length computes no cell at all.
///
/// Names equally close break the tie by the longest common prefix with the word (`gold2`
/// suggests `gold`, not `bold2`), then by the candidates' own order when it means something (the
/// device catalog, users.json: `ordered`; `--device iphone-16` suggests `iphone-15`, listed
/// before `iphone-11`, which is as close and shares as much), else alphabetically, so that the
/// answer is stable whatever order a set or dictionary gives.
///
/// When no name is close to the whole word, a word that begins exactly one longer name (or
/// nearly does) suggests it: `--user new_oslo` → `new_oslo_lunch`. That comparison looks at the
/// names' first letters only, in the same band and budget: at most twice the work.
public enum DidYouMean {
    /// The work one suggestion may do (candidates looked at + distance-table cells computed)
    /// before it gives up with no suggestion: about ten milliseconds of an optimized build.
    /// 5,000 candidates of 10 characters cost at most 5,000 × (1 + 7 × 10) = 355,000.
    public static let defaultBudget = 4_000_000
    /// The work the did-you-means of one batch (`Candidates`) may do together.
    public static let batchBudget = 4 * defaultBudget

    /// The edit distance of `a` and `b`, compared case-insensitively.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased().unicodeScalars), b = Array(b.lowercased().unicodeScalars)
        var cells = 0
        // Within max(|a|, |b|) the band is the whole table: the exact distance.
        return distance(a, b, limit: max(a.count, b.count), cells: &cells) ?? max(a.count, b.count)
    }

    /// The distance of `a` and `b` when it is at most `limit`, else nil; `cells` grows by the
    /// number of table cells computed (0 when the lengths alone rule it out). Past `maxCells`
    /// (checked after each row) it stops with nil.
    ///
    /// Only cells with |i − j| ≤ limit are computed: a path through the table that leaves that
    /// band costs more than `limit` (each step off the diagonal costs 1, a transposition stays on
    /// it), so cells outside it are treated as "more than limit". A row whose smallest cell is
    /// past the limit ends the comparison (no later cell can come back under it: a
    /// transposition from row i − 2 to row i passes a cell of row i − 1 no dearer than itself).
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit k: Int, cells: inout Int, maxCells: Int = .max) -> Int? {
        let m = a.count, n = b.count
        guard k >= 0, abs(m - n) <= k else { return nil }
        if m == 0 || n == 0 { return max(m, n) }
        let over = k + 1  // "more than the limit"; every value is kept at most `over`
        var prev2 = [Int](repeating: over, count: n + 1)
        var prev = [Int](repeating: over, count: n + 1)
        var cur = [Int](repeating: over, count: n + 1)
        for j in 0...min(n, k) { prev[j] = j }
        for i in 1...m {
            let lo = max(1, i - k), hi = min(n, i + k)
            cur[0] = i <= k ? i : over
            if lo > 1 { cur[lo - 1] = over }
            var rowMin = cur[0]
            let ai = a[i - 1]
            for j in lo...hi {
                let cost = ai == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, ai == b[j - 2], a[i - 2] == b[j - 1] {
                    v = min(v, prev2[j - 2] + 1)
                }
                v = min(v, over)
                cur[j] = v
                if v < rowMin { rowMin = v }
            }
            cells += hi - lo + 1
            // The next row reads one cell past this row's band.
            if hi < n { cur[hi + 1] = over }
            if rowMin > k || cells > maxCells { return nil }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[n] <= k ? prev[n] : nil
    }

    /// The closest candidate within a distance that scales with the word's length, if any.
    /// Ties break by the longest common prefix with the word, then by the candidates' order when
    /// `ordered` (a catalog, users.json), else alphabetically so the answer is stable. Nil too
    /// when the work budget runs out.
    public static func suggest(_ word: String, among candidates: some Sequence<String>, ordered: Bool = false) -> String? {
        var names = Candidates(candidates, budget: defaultBudget, ordered: ordered)
        return names.suggest(word)
    }

    /// `; did you mean 'x'?` or the empty string.
    public static func hint(_ word: String, among candidates: some Sequence<String>, ordered: Bool = false) -> String {
        suggest(word, among: candidates, ordered: ordered).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// How many leading characters `a` and `b` share (lowercased scalars).
    static func commonPrefix(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var n = 0
        while n < a.count, n < b.count, a[n] == b[n] { n += 1 }
        return n
    }

    static func normalized(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" }.map(Character.init))
    }

    /// Candidates prepared once (lowercased and normalized) for many suggestions that share one
    /// work budget: a batch of diagnostics where both the unknown words and the names come from
    /// the input (every named rule of a project naming an unknown rule, among all the rules), so
    /// that the batch costs at most its budget however many words it has.
    public struct Candidates {
        struct Name {
            let text: String
            let lowercase: String
            let lowered: [Unicode.Scalar]
            let normalized: String
        }
        let names: [Name]
        /// Whether the candidates' order breaks the last ties (else the alphabet does).
        let ordered: Bool
        /// Work left (candidates looked at + table cells computed); suggestions stop at 0.
        public private(set) var budget: Int
        /// Table cells computed so far (for tests: the cost of what was asked).
        public private(set) var cells = 0

        public init(_ candidates: some Sequence<String>, budget: Int = DidYouMean.defaultBudget, ordered: Bool = false) {
            self.ordered = ordered
            names = candidates.map {
                let lowercase = $0.lowercased()
                return Name(text: $0, lowercase: lowercase, lowered: Array(lowercase.unicodeScalars), normalized: DidYouMean.normalized($0))
            }
            self.budget = budget
        }

        /// The closest name within the word's limit (0 for the same name up to case, `_` and
        /// `-`), ties broken by the longest common prefix, then by the candidates' order
        /// (`ordered`) or alphabetically; nil when none is close or the budget ran out during
        /// this word. The work a word does does not depend on the order of the names (the limit
        /// does not shrink as closer names are found), so whether the budget runs out, and the
        /// answer, are the same in any order.
        public mutating func suggest(_ word: String) -> String? {
            guard budget > 0 else { return nil }
            let limit = max(1, min(3, word.count / 3))
            let lowercase = word.lowercased()
            let lowered = Array(lowercase.unicodeScalars)
            let normalized = DidYouMean.normalized(word)
            var best: (distance: Int, prefix: Int, text: String)?
            for c in names {
                budget -= 1
                if budget < 0 { return nil }
                guard c.text != word else { continue }
                let d: Int
                if c.lowercase == lowercase || c.normalized == normalized {
                    d = 0
                } else {
                    // The length window: cheaper than any table cell.
                    guard abs(c.lowered.count - lowered.count) <= limit else { continue }
                    var spent = 0
                    let found = DidYouMean.distance(lowered, c.lowered, limit: limit, cells: &spent, maxCells: budget)
                    cells += spent
                    budget -= spent
                    if budget < 0 { return nil }
                    guard let found else { continue }
                    d = found
                }
                let prefix = DidYouMean.commonPrefix(lowered, c.lowered)
                if let b = best {
                    // Later candidates win a full tie only alphabetically (`ordered`: the first stays).
                    let better = d < b.distance || (d == b.distance && (prefix > b.prefix || (prefix == b.prefix && !ordered && c.text < b.text)))
                    if better { best = (d, prefix, c.text) }
                } else {
                    best = (d, prefix, c.text)
                }
            }
            if let best { return best.text }
            return suggestPrefix(lowered)
        }

        /// Names equally close break the tie by the longest common prefix with the word (`gold2`
/// suggests `gold`, not `bold2`), then by the candidates' own order when it means something (the
/// device catalog, users.json: `ordered`; `--device iphone-16` suggests `iphone-15`, listed
/// before `iphone-11`, which is as close and shares as much), else alphabetically, so that the
/// answer is stable whatever order a set or dictionary gives.
///
/// When no name is close to the whole word: the one name the word begins, as a typed
        /// but unfinished name (`new_oslo` for `new_oslo_lunch`), or nearly begins (within the
        /// word's limit, its first letters compared with the word, for words of 4 characters or
        /// more). Only when exactly one name is closest: `new` among `new_oslo_lunch` and
        /// `new_york` suggests neither. Words under 2 characters get no prefix suggestion. The
        /// same budget as `suggest`: each name looked at and each table cell counts.
        mutating func suggestPrefix(_ word: [Unicode.Scalar]) -> String? {
            guard word.count >= 2 else { return nil }
            let limit = word.count >= 4 ? max(1, min(3, word.count / 3)) : 0
            var best: (distance: Int, names: [String])?
            for c in names where c.lowered.count > word.count {
                budget -= 1
                if budget < 0 { return nil }
                let d: Int
                if c.lowered.starts(with: word) {
                    d = 0
                } else {
                    guard limit > 0 else { continue }
                    var spent = 0
                    let found = DidYouMean.distance(word, Array(c.lowered.prefix(word.count)), limit: limit, cells: &spent, maxCells: budget)
                    cells += spent
                    budget -= spent
                    if budget < 0 { return nil }
                    guard let found else { continue }
                    d = found
                }
                if best == nil || d < best!.distance {
                    best = (d, [c.text])
                } else if d == best!.distance, !best!.names.contains(c.text) {
                    best!.names.append(c.text)
                }
            }
            guard let best, best.names.count == 1 else { return nil }
            return best.names[0]
        }

        /// `; did you mean 'x'?` or the empty string.
        public mutating func hint(_ word: String) -> String {
            suggest(word).map { "; did you mean '\($0)'?" } ?? ""
        }
    }
}
