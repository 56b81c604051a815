@testable import LoomCore
import XCTest

/// did-you-mean: the same suggestions as a full comparison, at a cost bounded by the input
/// (counted in table cells, never timed).
final class DidYouMeanTests: XCTestCase {
    /// The full table (optimal string alignment), as the suggestions were computed before the
    /// length window and the band: the reference the bounded one must agree with.
    static func fullDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased().unicodeScalars), b = Array(b.lowercased().unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }

    /// The suggestion rule over the full table (the reference): the closest name within the
    /// limit (ties: the longest common prefix with the word, lowercased, then the alphabet),
    /// else the prefix rule.
    static func oldSuggest(_ word: String, among candidates: [String]) -> String? {
        func normalized(_ s: String) -> String { String(s.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" }.map(Character.init)) }
        func shared(_ c: String) -> Int { zip(c.lowercased().unicodeScalars, word.lowercased().unicodeScalars).prefix { $0 == $1 }.count }
        let limit = max(1, min(3, word.count / 3))
        var ranked: [(distance: Int, prefix: Int, name: String)] = []
        for c in candidates where c != word {
            let d = c.lowercased() == word.lowercased() || normalized(c) == normalized(word) ? 0 : fullDistance(word, c)
            guard d <= limit else { continue }
            ranked.append((d, shared(c), c))
        }
        if let best = ranked.min(by: { ($0.distance, -$0.prefix, $0.name) < ($1.distance, -$1.prefix, $1.name) }) { return best.name }
        return prefixSuggest(word, among: candidates)
    }

    /// The prefix rule over the full table: when no name is close to the whole word, the one
    /// longer name whose first letters are closest to the word (equal for words under 4
    /// characters; within the word's limit from 4 on), if exactly one is closest.
    static func prefixSuggest(_ word: String, among candidates: [String]) -> String? {
        let w = word.lowercased()
        let n = w.unicodeScalars.count
        guard n >= 2 else { return nil }
        let limit = n >= 4 ? max(1, min(3, n / 3)) : 0
        var found: [Int: Set<String>] = [:]
        for c in candidates where c.lowercased().unicodeScalars.count > n {
            let head = String(String.UnicodeScalarView(c.lowercased().unicodeScalars.prefix(n)))
            let d = fullDistance(w, head)
            if d <= limit { found[d, default: []].insert(c) }
        }
        guard let best = found.keys.min(), found[best]!.count == 1 else { return nil }
        return found[best]!.first
    }

    /// A typed but unfinished name gets the one name it begins (issue 37: `--user new_oslo`
    /// listed the profiles but suggested nothing).
    func testAnUnfinishedNameSuggestsTheOneItBegins() {
        let profiles = ["gold", "free", "new_oslo_lunch", "new_york_brunch"]
        XCTAssertEqual(DidYouMean.suggest("new_oslo", among: profiles), "new_oslo_lunch")
        XCTAssertEqual(DidYouMean.suggest("NEW_OSLO", among: profiles), "new_oslo_lunch")
        XCTAssertEqual(DidYouMean.suggest("new_olso", among: profiles), "new_oslo_lunch", "a typo in the part typed")
        XCTAssertEqual(DidYouMean.suggest("new_york", among: profiles), "new_york_brunch")
        XCTAssertNil(DidYouMean.suggest("new", among: profiles), "the beginning of two names: neither")
        XCTAssertNil(DidYouMean.suggest("new_", among: profiles))
        XCTAssertNil(DidYouMean.suggest("g", among: profiles), "one letter is no name")
        XCTAssertNil(DidYouMean.suggest("xyzw", among: profiles))
        // A name close to the whole word still wins over a longer one it begins.
        XCTAssertEqual(DidYouMean.suggest("gol", among: ["gold", "golden_hour"]), "gold")
        XCTAssertEqual(DidYouMean.hint("new_oslo", among: profiles), "; did you mean 'new_oslo_lunch'?")
    }

    /// Issue 37: `--device iphone-16` suggested `iphone-11` (alphabetically first of the names
    /// one edit away). Ties break by the longest common prefix, then by the candidates' order
    /// when it means something (the device catalog, users.json), else alphabetically.
    func testTiesBreakByCommonPrefixThenCatalogOrder() {
        let catalog = ["iphone-se-1st", "iphone-8", "iphone-8-plus", "iphone-x", "iphone-15", "iphone-xr", "iphone-11",
                       "iphone-xs-max", "iphone-11-pro-max", "iphone-15-pro-max", "ipad", "ipad-pro-12.9"]
        XCTAssertEqual(DidYouMean.suggest("iphone-16", among: catalog, ordered: true), "iphone-15")
        XCTAssertEqual(DidYouMean.hint("iphone-16", among: catalog, ordered: true), "; did you mean 'iphone-15'?")
        // Unordered (a dictionary's keys): the alphabet still breaks the last tie, whatever the order.
        XCTAssertEqual(DidYouMean.suggest("iphone-16", among: catalog), "iphone-11")
        XCTAssertEqual(DidYouMean.suggest("iphone-16", among: catalog.reversed()), "iphone-11")
        // The candidates' order decides only a full tie: a longer common prefix wins first.
        XCTAssertEqual(DidYouMean.suggest("gold2", among: ["bold2", "gold"], ordered: true), "gold")
        XCTAssertEqual(DidYouMean.suggest("gold2", among: ["bold2", "gold"]), "gold")
        XCTAssertEqual(DidYouMean.suggest("gold2", among: ["gold", "bold2"]), "gold")
        // A smaller distance still wins over a longer prefix.
        XCTAssertEqual(DidYouMean.suggest("premium_x", among: ["premium_xyz", "premiumx"], ordered: true), "premiumx")
        // users.json order: the first listed of two equally close profiles.
        XCTAssertEqual(DidYouMean.suggest("gold_c", among: ["gold_b", "gold_a"], ordered: true), "gold_b")
        XCTAssertEqual(DidYouMean.suggest("gold_c", among: ["gold_a", "gold_b"], ordered: true), "gold_a")
        XCTAssertEqual(DidYouMean.suggest("gold_c", among: ["gold_b", "gold_a"]), "gold_a")
        var batch = DidYouMean.Candidates(["gold_b", "gold_a"], ordered: true)
        XCTAssertEqual(batch.suggest("gold_c"), "gold_b")
    }

    func testSuggestionsAreTheOnesOfTheFullComparison() {
        XCTAssertEqual(DidYouMean.suggest("widht", among: ["width", "height"]), "width")
        XCTAssertEqual(DidYouMean.suggest("Gold", among: ["gold", "free"]), "gold")
        XCTAssertEqual(DidYouMean.suggest("gold-member", among: ["gold_member", "free"]), "gold_member")
        XCTAssertEqual(DidYouMean.suggest("GoldMember", among: ["gold_member"]), "gold_member")
        XCTAssertNil(DidYouMean.suggest("zzzz", among: ["gold", "free"]))
        XCTAssertEqual(DidYouMean.suggest("is_subscribr", among: ["is_subscriber", "equals"]), "is_subscriber")
        // Random words over a small alphabet (so that near misses are common), against the full
        // table: the same distance within every limit, the same suggestion.
        var rng = SplitMix(seed: 36)
        let alphabet = Array("abcAB_-é")
        func word() -> String { String((0..<rng.int(0...9)).map { _ in alphabet[rng.int(0...(alphabet.count - 1))] }) }
        for _ in 0..<3_000 {
            let a = word(), b = word()
            let full = Self.fullDistance(a, b)
            XCTAssertEqual(DidYouMean.distance(a, b), full, "\(a) / \(b)")
            let la = Array(a.lowercased().unicodeScalars), lb = Array(b.lowercased().unicodeScalars)
            for k in 0...4 {
                var cells = 0
                XCTAssertEqual(DidYouMean.distance(la, lb, limit: k, cells: &cells), full <= k ? full : nil, "\(a) / \(b) within \(k)")
                XCTAssertLessThanOrEqual(cells, (2 * k + 1) * la.count, "the band of \(a) / \(b) within \(k)")
            }
        }
        for _ in 0..<500 {
            let names = (0..<rng.int(0...12)).map { _ in word() }
            let w = word()
            XCTAssertEqual(DidYouMean.suggest(w, among: names), Self.oldSuggest(w, among: names), "\(w) among \(names)")
        }
    }

    /// A 20,000-character word among 5,000 names of about 8 characters: the length window rules
    /// every name out, so no table cell is computed (before: 5,000 tables of 20,000 × 8).
    func testALongWordAmongManyShortNamesComputesNoCell() {
        let names = (0..<5_000).map { "user\(String($0, radix: 36))x" }
        var candidates = DidYouMean.Candidates(names)
        let long = String(repeating: "q", count: 20_000)
        XCTAssertNil(candidates.suggest(long))
        XCTAssertEqual(candidates.cells, 0)
        XCTAssertEqual(candidates.budget, DidYouMean.defaultBudget - names.count, "one unit per name looked at")
        // A near miss among the same names is still found, in a band: at most 7 cells a row.
        XCTAssertEqual(candidates.suggest("usr1bx"), "user1bx")
        XCTAssertLessThanOrEqual(candidates.cells, names.count * 7 * 7)
    }

    /// Long names close in length: each comparison stays in its band and stops at the first row
    /// past the limit; the budget caps the rest (no suggestion rather than a slow one).
    func testTheWorkIsCappedByTheBudget() {
        let long = String(repeating: "ab", count: 10_000)
        // As long as the word, different from the first character on: each comparison stops at
        // its 4th row (the limit is 3), rows of at most 7 cells.
        let far = (0..<100).map { String(repeating: "x", count: 19_999 + $0 % 3) }
        var c = DidYouMean.Candidates(far)
        XCTAssertNil(c.suggest(long))
        // Each name is compared twice at most: whole, then (a longer one) by its first letters.
        XCTAssertLessThanOrEqual(c.cells, far.count * 2 * 4 * 7)
        // Two edits from the word: each comparison runs the whole band, 7 cells a row.
        let near = (0..<10).map { String(long.dropLast(2)) + "x\($0)" }
        var found = DidYouMean.Candidates(near, budget: near.count * (1 + 7 * 20_000))
        XCTAssertEqual(found.suggest(long), near[0], "all at 2 edits: the first alphabetically")
        XCTAssertLessThanOrEqual(found.cells, near.count * 7 * 20_000)
        var capped = DidYouMean.Candidates(near, budget: 300_000)
        XCTAssertNil(capped.suggest(long), "past the budget: no suggestion")
        XCTAssertLessThanOrEqual(capped.cells, 300_000 + 7, "stopped within a row of the budget")
        XCTAssertLessThanOrEqual(capped.budget, 0)
        // A batch whose budget is spent suggests nothing more, at no cost.
        let spent = capped.cells
        XCTAssertNil(capped.suggest(String(long.dropLast(2)) + "x1"))
        XCTAssertEqual(capped.cells, spent)
    }

    /// Whether the budget runs out, and the answer, do not depend on the order of the names.
    func testTheAnswerDoesNotDependOnTheOrder() {
        var rng = SplitMix(seed: 7)
        let names = (0..<400).map { i in "name\(i)" + String(repeating: "z", count: rng.int(0...3)) }
        for budget in [100, 1_000, 5_000, 20_000, 100_000] {
            var answers = Set<String?>()
            var order = names
            for _ in 0..<5 {
                order.shuffle(using: &rng)
                var c = DidYouMean.Candidates(order, budget: budget)
                answers.insert(c.suggest("nme17zz"))
            }
            XCTAssertEqual(answers.count, 1, "budget \(budget): \(answers)")
        }
    }
}

/// A small deterministic generator for tests (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &self) }
}
