import LoomCore

/// Pairs the children (or items) of one parent in the old and new tree, in time and memory
/// linear in the two lists (plus an n log n pass over the matched pairs for moves).
///
/// Nodes with an `id` are matched by id (the k-th with an id to the k-th with it, when an id is
/// repeated). Nodes without one are matched by equal content:
///
/// - lists of at most `exactCells` (old × new: 256 and 256) by a longest common subsequence
///   over a table, exactly as before (so an item prepended or removed does not turn every
///   later item into an update);
/// - larger lists by Heckel's technique (P. Heckel, "A technique for isolating differences
///   between files", CACM 21(4), 1978 — the family Spots' differ belongs to), each node's
///   content interned once in a table:
///   1. the common start and the common end of the two lists are matched;
///   2. between them, content that occurs exactly once on each side is a candidate pair; of
///      the candidates, the longest run in order is kept (when several are as long, the one
///      whose new positions come first) — these are the anchors;
///   3. each anchor is extended to equal neighbours, forward then backward (Heckel's passes 4
///      and 5), so a run of repeated items next to an anchor is matched too;
///   4. a gap between anchors within `exactCells` is matched by the table.
///
/// Then content left out of that run is paired with equal content on the other side (Spots
/// finds a moved item wherever it went: `a b c → c b a` is two moves, not two deletions and two
/// insertions); then the rest are paired in order within each gap between matches (an edited
/// item is an update, not a delete plus an insert); anything left is inserted or deleted.
/// Among matched pairs, those outside the longest run that kept its order are reported as
/// moved (the nodes that kept their index, when they are such a run: `moves`).
///
/// When every node's content is distinct within its list (a list of movies), steps 1–3 find the
/// very longest common subsequence the table finds, with the same tie rule, so the changes are
/// the same at any size; with repeated content in a list past `exactCells` the anchors can
/// differ from a longest common subsequence (docs/changes.md says which rule decides).
struct SiblingMatch {
    /// (old index, new index) pairs, in new order.
    var pairs: [(old: Int, new: Int)] = []
    var deleted: [Int] = []
    var inserted: [Int] = []
    /// New indices of matched nodes that moved.
    var moved: Set<Int> = []
    /// Work done, for the tests that bound it: `lookups` counts node contents hashed into the
    /// table and ids looked up (each node at most twice), `steps` every other loop iteration
    /// (including the binary searches of the two longest-increasing-run computations).
    var lookups = 0
    var steps = 0

    init(old: [JSONValue], new: [JSONValue], exactCells: Int = SiblingMatch.exactCells) {
        // Keyed nodes: the k-th node with an id in the old list is paired with the k-th with
        // that id in the new list (ids are unique among siblings in a valid screen; when one
        // is not, a tree compared with itself still has no change).
        var newByID: [String: [Int]] = [:]
        for (j, n) in new.enumerated() {
            lookups += 1
            if let id = n["id"]?.string { newByID[id, default: []].append(j) }
        }
        var oldMatched = [Int?](repeating: nil, count: old.count)   // old → new
        var newMatched = [Int?](repeating: nil, count: new.count)   // new → old
        var seen: [String: Int] = [:]
        for (i, n) in old.enumerated() {
            lookups += 1
            guard let id = n["id"]?.string else { continue }
            let k = seen[id, default: 0]
            seen[id] = k + 1
            guard let js = newByID[id], k < js.count else { continue }
            oldMatched[i] = js[k]
            newMatched[js[k]] = i
        }
        // Unkeyed nodes (or keyed ones whose id is absent on the other side are not paired by
        // content: an id that disappeared is a deletion).
        let oldFree = old.indices.filter { oldMatched[$0] == nil && old[$0]["id"]?.string == nil }
        let newFree = new.indices.filter { newMatched[$0] == nil && new[$0]["id"]?.string == nil }
        steps += old.count + new.count
        // Heckel's symbol table: each distinct content gets a number (one hash and, on a hit,
        // one equality test per node); from here on nodes are compared by number.
        var numbers: [JSONValue: Int] = [:]
        func number(_ v: JSONValue) -> Int {
            lookups += 1
            if let n = numbers[v] { return n }
            numbers[v] = numbers.count
            return numbers.count - 1
        }
        let x = oldFree.map { number(old[$0]) }, y = newFree.map { number(new[$0]) }
        let anchors = Self.anchors(x, y, symbolCount: numbers.count, exactCells: exactCells, steps: &steps)
        // Free positions (into oldFree / newFree) paired so far.
        var pairedOld = [Bool](repeating: false, count: x.count), pairedNew = [Bool](repeating: false, count: y.count)
        func pair(_ a: Int, _ b: Int) {
            oldMatched[oldFree[a]] = newFree[b]
            newMatched[newFree[b]] = oldFree[a]
            pairedOld[a] = true
            pairedNew[b] = true
        }
        for (a, b) in anchors { pair(a, b) }
        // Spots' differ finds an old item again in the new list wherever it went, and reports a
        // move, not a deletion and an insertion (of a b c → c b a, two moves). So content the
        // run in order left out is paired with equal content on the other side, the k-th
        // unpaired old node of a content with its k-th unpaired new node, before the rest
        // are paired as edits. One pass over each side (content already numbered).
        var waiting = [[Int]](repeating: [], count: numbers.count)
        var taken = [Int](repeating: 0, count: numbers.count)
        for a in x.indices where !pairedOld[a] { waiting[x[a]].append(a) }
        for b in y.indices where !pairedNew[b] {
            let c = y[b]
            if taken[c] < waiting[c].count {
                pair(waiting[c][taken[c]], b)
                taken[c] += 1
            }
        }
        steps += x.count + y.count
        // Pair the rest in order within each gap between anchors (an edited node is an update).
        // Anchors are increasing in both lists, so each gap is a run of the free lists: one
        // pass over both, stepping over nodes paired by content.
        var a = 0, b = 0
        for (ha, hb) in anchors + [(oldFree.count, newFree.count)] {
            while a < ha && b < hb {
                if pairedOld[a] {
                    a += 1
                } else if pairedNew[b] {
                    b += 1
                } else {
                    pair(a, b)
                    a += 1
                    b += 1
                }
                steps += 1
            }
            a = ha + 1
            b = hb + 1
        }

        for j in new.indices {
            if let i = newMatched[j] { pairs.append((i, j)) } else { inserted.append(j) }
        }
        deleted = old.indices.filter { oldMatched[$0] == nil }
        moved = Self.moves(pairs, steps: &steps)
    }

    /// New indices of the pairs (in new order) that moved: those not on the longest run whose
    /// old indices increase. When the nodes that kept their index are as many as that run,
    /// they are the run (Spots calls a node moved when its index changed: of a b c → c b a, a
    /// and c moved, b did not, where the first longest run found would keep a and move b
    /// "1 → 1"). Nodes that kept their index always form a run in order, so this only picks
    /// among runs of the same length.
    static func moves(_ pairs: [(old: Int, new: Int)], steps: inout Int) -> Set<Int> {
        var keep = longestIncreasing(pairs.map(\.old), steps: &steps)
        var fixed: Set<Int> = []
        for (k, p) in pairs.enumerated() where p.old == p.new { fixed.insert(k) }
        steps += pairs.count
        if fixed.count >= keep.count { keep = fixed }
        var out: Set<Int> = []
        for (k, p) in pairs.enumerated() where !keep.contains(k) { out.insert(p.new) }
        return out
    }

    /// Lists up to this many cells (old count × new count: 256 and 256) are matched exactly as
    /// before, by a longest common subsequence over a table; so are the gaps between Heckel's
    /// anchors in larger lists. Either way the table work is at most 128 cells per node (a
    /// table of n × m ≤ C cells costs at most √C/2 per node), and its memory at most 512 KiB.
    static let exactCells = 1 << 16

    /// Index pairs of equal nodes, increasing in both lists: steps 1–3 of the type's comment,
    /// or the exact table for small lists and gaps.
    /// `x` and `y` are the nodes' content numbers (equal content, equal number; each below
    /// `symbolCount`).
    static func anchors(_ x: [Int], _ y: [Int], symbolCount: Int, exactCells: Int = SiblingMatch.exactCells,
                        steps: inout Int) -> [(Int, Int)] {
        if x.isEmpty || y.isEmpty { return [] }
        struct Symbol { var oldCount = 0, newCount = 0, oldIndex = 0, newIndex = 0 }
        if fits(x.count, y.count, exactCells) {
            return lcs(x[...], y[...], steps: &steps)
        }
        var symbols = [Symbol](repeating: Symbol(), count: symbolCount)
        var oa = [Int](repeating: -1, count: x.count)   // old → new
        var nb = [Int](repeating: -1, count: y.count)   // new → old

        // 1. The common start and end.
        var lo = 0
        while lo < x.count && lo < y.count && x[lo] == y[lo] {
            oa[lo] = lo
            nb[lo] = lo
            lo += 1
            steps += 1
        }
        var hx = x.count, hy = y.count
        while hx > lo && hy > lo && x[hx - 1] == y[hy - 1] {
            hx -= 1
            hy -= 1
            oa[hx] = hy
            nb[hy] = hx
            steps += 1
        }

        // 2. Content once on each side, between them: the longest run in order.
        for i in lo..<hx {
            symbols[x[i]].oldCount += 1
            symbols[x[i]].oldIndex = i
            steps += 1
        }
        for j in lo..<hy {
            symbols[y[j]].newCount += 1
            symbols[y[j]].newIndex = j
            steps += 1
        }
        var candidates: [(old: Int, new: Int)] = []   // in new order
        for j in lo..<hy {
            let s = symbols[y[j]]
            if s.oldCount == 1 && s.newCount == 1 { candidates.append((s.oldIndex, j)) }
            steps += 1
        }
        for k in earliestLongestIncreasing(candidates.map(\.old), steps: &steps) {
            let (i, j) = candidates[k]
            oa[i] = j
            nb[j] = i
        }

        // 3. Anchors extended to equal neighbours that are not matched yet: forward, then
        // backward. An extension stays inside its gap (it stops at a matched node), so the
        // pairs stay increasing.
        var i = lo
        while i < hx {
            var j = oa[i]
            if j >= 0 {
                var k = i + 1
                j += 1
                while k < hx && j < hy && oa[k] < 0 && nb[j] < 0 && x[k] == y[j] {
                    oa[k] = j
                    nb[j] = k
                    k += 1
                    j += 1
                    steps += 1
                }
                i = max(k, i + 1)
            } else {
                i += 1
            }
            steps += 1
        }
        i = hx - 1
        while i >= lo {
            var j = oa[i]
            if j >= 0 {
                var k = i - 1
                j -= 1
                while k >= lo && j >= lo && oa[k] < 0 && nb[j] < 0 && x[k] == y[j] {
                    oa[k] = j
                    nb[j] = k
                    k -= 1
                    j -= 1
                    steps += 1
                }
                i = min(k, i - 1)
            } else {
                i -= 1
            }
            steps += 1
        }

        var out: [(Int, Int)] = []
        for i in 0..<x.count where oa[i] >= 0 { out.append((i, oa[i])) }
        steps += x.count

        // 4. A gap between anchors small enough for the table is matched exactly (a repeated
        // item inside it, which Heckel's passes cannot anchor, is then found).
        var refined: [(Int, Int)] = []
        var pa = 0, pb = 0
        for (ha, hb) in out + [(x.count, y.count)] {
            if ha > pa && hb > pb && fits(ha - pa, hb - pb, exactCells) {
                for (i, j) in lcs(x[pa..<ha], y[pb..<hb], steps: &steps) { refined.append((i, j)) }
            }
            if ha < x.count { refined.append((ha, hb)) }
            pa = ha + 1
            pb = hb + 1
        }
        return refined
    }

    static func fits(_ n: Int, _ m: Int, _ cells: Int) -> Bool {
        let (p, overflow) = n.multipliedReportingOverflow(by: m)
        return !overflow && p <= cells
    }

    /// Index pairs (into the slices' own indices) of a longest common subsequence by a table,
    /// the earlier matcher: on a mismatch the traceback skips the old node when that loses
    /// nothing, so it takes the earliest new nodes. Only for slices within `exactCells`.
    static func lcs(_ a: ArraySlice<Int>, _ b: ArraySlice<Int>, steps: inout Int) -> [(Int, Int)] {
        let n = a.count, m = b.count
        if n == 0 || m == 0 { return [] }
        let a0 = a.startIndex, b0 = b.startIndex
        let w = m + 1
        var t = [Int](repeating: 0, count: (n + 1) * w)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                t[i * w + j] = a[a0 + i] == b[b0 + j] ? t[(i + 1) * w + j + 1] + 1 : max(t[(i + 1) * w + j], t[i * w + j + 1])
            }
        }
        steps += n * m
        var out: [(Int, Int)] = []
        var i = 0, j = 0
        while i < n && j < m {
            if a[a0 + i] == b[b0 + j] { out.append((a0 + i, b0 + j)); i += 1; j += 1 }
            else if t[(i + 1) * w + j] >= t[i * w + j + 1] { i += 1 }
            else { j += 1 }
            steps += 1
        }
        return out
    }

    /// Positions (into `xs`) of the longest strictly increasing run whose positions come first
    /// (lexicographically smallest): the run a longest-common-subsequence traceback that takes
    /// the earliest new node picks when every node is distinct. O(n log n): `from[p]` is the
    /// length of the longest increasing run starting at `p`, found right to left by a
    /// patience sort of the negated values; the run is then read left to right greedily.
    static func earliestLongestIncreasing(_ xs: [Int], steps: inout Int) -> [Int] {
        if xs.isEmpty { return [] }
        var from = [Int](repeating: 0, count: xs.count)
        var tails: [Int] = []   // tails[l]: the largest value that starts an increasing run of length l + 1
        for p in stride(from: xs.count - 1, through: 0, by: -1) {
            // First l with tails[l] <= xs[p] (tails decreases with l).
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if tails[mid] > xs[p] { lo = mid + 1 } else { hi = mid }
                steps += 1
            }
            if lo == tails.count { tails.append(xs[p]) } else { tails[lo] = xs[p] }
            from[p] = lo + 1
            steps += 1
        }
        var need = tails.count, last = Int.min
        var out: [Int] = []
        out.reserveCapacity(need)
        for p in xs.indices where need > 0 && from[p] == need && xs[p] > last {
            out.append(p)
            last = xs[p]
            need -= 1
        }
        steps += xs.count
        return out
    }

    /// Positions (into `xs`) of one longest strictly increasing subsequence; ties keep the
    /// earliest positions so the choice is deterministic.
    static func longestIncreasing(_ xs: [Int]) -> Set<Int> {
        var steps = 0
        return longestIncreasing(xs, steps: &steps)
    }

    static func longestIncreasing(_ xs: [Int], steps: inout Int) -> Set<Int> {
        if xs.isEmpty { return [] }
        var tails: [Int] = []          // positions
        var prev = [Int](repeating: -1, count: xs.count)
        for (k, x) in xs.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if xs[tails[mid]] < x { lo = mid + 1 } else { hi = mid }
                steps += 1
            }
            if lo > 0 { prev[k] = tails[lo - 1] }
            if lo == tails.count { tails.append(k) } else { tails[lo] = k }
            steps += 1
        }
        var out: Set<Int> = []
        var k = tails.last ?? -1
        while k >= 0 { out.insert(k); k = prev[k] }
        return out
    }
}
