import LoomCore

/// Pairs the children (or items) of one parent in the old and new tree.
///
/// Nodes with an `id` are matched by id. Nodes without one are matched first by equal content
/// (a longest common subsequence over the whole node, so an item prepended or removed does not
/// turn every later item into an update), then the rest in order within each gap between
/// those anchors (an edited item is an update, not a delete plus an insert). Anything left is
/// inserted or deleted. Among matched pairs, those outside the longest run that kept its order
/// are reported as moved.
struct SiblingMatch {
    /// (old index, new index) pairs, in new order.
    var pairs: [(old: Int, new: Int)] = []
    var deleted: [Int] = []
    var inserted: [Int] = []
    /// New indices of matched nodes that moved.
    var moved: Set<Int> = []

    init(old: [JSONValue], new: [JSONValue]) {
        var newByID: [String: Int] = [:]
        for (i, n) in new.enumerated() { if let id = n["id"]?.string, newByID[id] == nil { newByID[id] = i } }
        var oldByID: [String: Int] = [:]
        for (i, n) in old.enumerated() { if let id = n["id"]?.string, oldByID[id] == nil { oldByID[id] = i } }

        var oldMatched = [Int?](repeating: nil, count: old.count)   // old → new
        var newMatched = [Int?](repeating: nil, count: new.count)   // new → old
        for (i, n) in old.enumerated() {
            guard let id = n["id"]?.string, oldByID[id] == i, let j = newByID[id] else { continue }
            oldMatched[i] = j
            newMatched[j] = i
        }
        // Unkeyed nodes (or keyed ones whose id is absent on the other side are not paired by
        // content: an id that disappeared is a deletion).
        let oldFree = old.indices.filter { oldMatched[$0] == nil && old[$0]["id"]?.string == nil }
        let newFree = new.indices.filter { newMatched[$0] == nil && new[$0]["id"]?.string == nil }
        let anchors = SiblingMatch.lcs(oldFree.map { old[$0] }, newFree.map { new[$0] })
        for (a, b) in anchors {
            oldMatched[oldFree[a]] = newFree[b]
            newMatched[newFree[b]] = oldFree[a]
        }
        // Pair the rest in order within each gap between anchors.
        var bounds = anchors.map { (oldFree[$0.0], newFree[$0.1]) }
        bounds.append((old.count, new.count))
        var lo = (old: -1, new: -1)
        for (ho, hn) in bounds {
            let os = oldFree.filter { $0 > lo.old && $0 < ho && oldMatched[$0] == nil }
            let ns = newFree.filter { $0 > lo.new && $0 < hn && newMatched[$0] == nil }
            for (o, n) in zip(os, ns) {
                oldMatched[o] = n
                newMatched[n] = o
            }
            lo = (ho, hn)
        }

        for j in new.indices {
            if let i = newMatched[j] { pairs.append((i, j)) } else { inserted.append(j) }
        }
        deleted = old.indices.filter { oldMatched[$0] == nil }
        // Moves: matched pairs not on the longest increasing run of old indices.
        let keep = SiblingMatch.longestIncreasing(pairs.map(\.old))
        for (k, p) in pairs.enumerated() where !keep.contains(k) { moved.insert(p.new) }
    }

    /// Index pairs of a longest common subsequence (by equality), in order.
    static func lcs(_ a: [JSONValue], _ b: [JSONValue]) -> [(Int, Int)] {
        if a.isEmpty || b.isEmpty { return [] }
        // Sibling lists are short (a screen's children or a collection's items); the quadratic
        // table is bounded by the screen limits.
        let w = b.count + 1
        var t = [Int](repeating: 0, count: (a.count + 1) * w)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                t[i * w + j] = a[i] == b[j] ? t[(i + 1) * w + j + 1] + 1 : max(t[(i + 1) * w + j], t[i * w + j + 1])
            }
        }
        var out: [(Int, Int)] = []
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if a[i] == b[j] { out.append((i, j)); i += 1; j += 1 }
            else if t[(i + 1) * w + j] >= t[i * w + j + 1] { i += 1 }
            else { j += 1 }
        }
        return out
    }

    /// Positions (into `xs`) of one longest strictly increasing subsequence; ties keep the
    /// earliest positions so the choice is deterministic.
    static func longestIncreasing(_ xs: [Int]) -> Set<Int> {
        if xs.isEmpty { return [] }
        var tails: [Int] = []          // positions
        var prev = [Int](repeating: -1, count: xs.count)
        for (k, x) in xs.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if xs[tails[mid]] < x { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { prev[k] = tails[lo - 1] }
            if lo == tails.count { tails.append(k) } else { tails[lo] = k }
        }
        var out: Set<Int> = []
        var k = tails.last ?? -1
        while k >= 0 { out.insert(k); k = prev[k] }
        return out
    }
}
