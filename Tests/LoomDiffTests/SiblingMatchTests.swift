import XCTest
import LoomCore
@testable import LoomDiff

/// Sibling matching (Heckel's technique, SiblingMatching.swift): the same pairs as the earlier
/// quadratic longest-common-subsequence matcher whenever content is distinct, the rule that
/// decides when it is not, and work linear in the lists (counted, not timed).
final class SiblingMatchTests: XCTestCase {
    /// A small deterministic generator (the same cases on every machine and run).
    struct Rand {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(1, n)))
        }
    }

    private func movie(_ title: String, id: String? = nil) -> JSONValue {
        var o: [(String, JSONValue)] = []
        if let id { o.append(("id", .string(id))) }
        o.append(("kind", "movie"))
        o.append(("props", .object(["title": .string(title)])))
        return .object(.init(uniqueKeysWithValues: o))
    }

    private func summary(_ m: SiblingMatch) -> String {
        "pairs [\(m.pairs.map { "\($0.old)>\($0.new)" }.joined(separator: ", "))] inserted \(m.inserted) deleted \(m.deleted) moved \(m.moved.sorted())"
    }

    private func summary(_ m: QuadraticSiblingMatch) -> String {
        "pairs [\(m.pairs.map { "\($0.old)>\($0.new)" }.joined(separator: ", "))] inserted \(m.inserted) deleted \(m.deleted) moved \(m.moved.sorted())"
    }

    /// Random edits (insert, delete, update, move, swap; some nodes keyed) of lists whose
    /// content is distinct: every result equals the quadratic matcher's, pair for pair — by
    /// Heckel's passes alone (`exactCells: 0`, no table at all) and as configured.
    func testSameAsTheQuadraticMatcherWhenContentIsDistinct() {
        var r = Rand(state: 36)
        var serial = 0
        func fresh(_ keyed: Bool) -> JSONValue {
            serial += 1
            return movie("M\(serial)", id: keyed ? "k\(serial)" : nil)
        }
        for round in 0..<1040 {
            // Mostly short lists; the last forty past the table's size (300 to 400 nodes).
            let n = round < 800 ? r.next(12) : round < 1000 ? r.next(60) : 300 + r.next(100)
            let keyedShare = r.next(3)   // none, some or half keyed
            var old: [JSONValue] = (0..<n).map { _ in fresh(keyedShare > 0 && r.next(4) < keyedShare) }
            var new = old
            for _ in 0..<(1 + r.next(6)) {
                switch r.next(5) {
                case 0: new.insert(fresh(r.next(3) == 0), at: r.next(new.count + 1))
                case 1: if !new.isEmpty { new.remove(at: r.next(new.count)) }
                case 2: if !new.isEmpty { let i = r.next(new.count); new[i] = movie("edited \(round) \(i)", id: new[i]["id"]?.string) }
                case 3: if !new.isEmpty { let x = new.remove(at: r.next(new.count)); new.insert(x, at: r.next(new.count + 1)) }
                default: if new.count > 1 { new.swapAt(r.next(new.count), r.next(new.count)) }
                }
            }
            if r.next(5) == 0 { swap(&old, &new) }
            let slow = summary(QuadraticSiblingMatch(old: old, new: new))
            XCTAssertEqual(summary(SiblingMatch(old: old, new: new)), slow)
            XCTAssertEqual(summary(SiblingMatch(old: old, new: new, exactCells: 0)), slow, "round \(round): \(old.map { $0["props"]?["title"]?.string ?? "" }) → \(new.map { $0["props"]?["title"]?.string ?? "" })")
        }
    }

    /// The common edits of lists with repeated content (placeholders, separators) keep their
    /// classification even by Heckel's passes alone: an item added or removed at either end or
    /// next to a distinct item.
    func testRepeatedContentAtTheEndsAndBesideDistinctItems() {
        let p = movie("placeholder"), a = movie("A"), b = movie("B"), z = movie("Z")
        let cases: [([JSONValue], [JSONValue])] = [
            ([p, p], [z, p, p]), ([p, p], [p, p, z]), ([p, p, p], [p, p]), ([p, p, p], [p, p, p, p]),
            ([a, p, p, b], [a, p, p, z, b]), ([a, p, b, p], [a, p, b]), ([p, a, p], [p, a, p, p]),
            ([a, p, p, b], [a, p, z, p, b]),
        ]
        for (old, new) in cases {
            XCTAssertEqual(summary(SiblingMatch(old: old, new: new, exactCells: 0)), summary(QuadraticSiblingMatch(old: old, new: new)))
        }
    }

    /// Where content repeats in a list past the table's size, several answers are as good, and
    /// the rule that now decides (docs/changes.md) is Heckel's: the common start and end first,
    /// then content found once on each side, extended to equal neighbours. Shown on small lists
    /// with the table turned off: of A B B → B the table kept the first B (deleting A and the
    /// second B), Heckel's common end keeps the last; of A → B C A A X the table found A,
    /// Heckel's passes find no anchor (A is not once in the new list), and content matching
    /// then finds the first A.
    func testRepeatedContentPastTheTableIsDecidedByHeckelsRule() {
        let a = movie("A"), b = movie("B"), c = movie("C"), x = movie("X")
        XCTAssertEqual(summary(SiblingMatch(old: [a, b, b], new: [b], exactCells: 0)), "pairs [2>0] inserted [] deleted [0, 1] moved []")
        XCTAssertEqual(summary(QuadraticSiblingMatch(old: [a, b, b], new: [b])), "pairs [1>0] inserted [] deleted [0, 2] moved []")
        // Heckel's passes anchor nothing here (A is not once in the new list); A is then found
        // by its content, as the table finds it (before content matching: paired with B).
        XCTAssertEqual(summary(SiblingMatch(old: [a], new: [b, c, a, a, x], exactCells: 0)), "pairs [0>2] inserted [0, 1, 3, 4] deleted [] moved []")
        XCTAssertEqual(summary(QuadraticSiblingMatch(old: [a], new: [b, c, a, a, x])), "pairs [0>2] inserted [0, 1, 3, 4] deleted [] moved []")
        // Within the table's size both are matched as before.
        XCTAssertEqual(summary(SiblingMatch(old: [a, b, b], new: [b])), "pairs [1>0] inserted [] deleted [0, 2] moved []")
        XCTAssertEqual(summary(SiblingMatch(old: [a], new: [b, c, a, a, x])), "pairs [0>2] inserted [0, 1, 3, 4] deleted [] moved []")
        // Past it, a gap between anchors small enough for the table is matched by it: 400
        // distinct items around the same repeated run keep the run matched as the table would.
        let distinct = (0..<400).map { movie("M\($0)") }
        let old = Array(distinct[..<200]) + [a] + Array(distinct[200...])
        let new = Array(distinct[..<200]) + [b, c, a, a, x] + Array(distinct[200...])
        XCTAssertEqual(summary(SiblingMatch(old: old, new: new)), summary(QuadraticSiblingMatch(old: old, new: new)))
    }

    /// 20,000 items on each side (the old matcher's table: 400 million entries, 3 GB): the work
    /// counted is a few units per item — one table lookup per node, and the two
    /// longest-increasing-run passes' binary searches.
    func testWorkIsLinearInTheLists() {
        let n = 20_000
        let base = (0..<n).map { movie("M\($0)") }
        var r = Rand(state: 7)
        var shuffled = base
        for i in stride(from: n - 1, to: 0, by: -1) { shuffled.swapAt(i, r.next(i + 1)) }
        let same = [JSONValue](repeating: movie("same"), count: n)
        let variants: [(String, [JSONValue], [JSONValue])] = [
            ("one inserted, one edited", base, [movie("New")] + base.dropLast() + [movie("Last")]),
            ("every item identical, one more", same, same + [movie("same")]),
            ("reversed", base, base.reversed()),
            ("shuffled", base, shuffled),
            ("disjoint", base, (0..<n).map { movie("Other \($0)") }),
            ("half keyed, edited", base.enumerated().map { $0 % 2 == 0 ? movie("M\($0)", id: "k\($0)") : $1 },
             base.enumerated().map { $0 % 3 == 0 ? movie("E\($0)", id: $0 % 2 == 0 ? "k\($0)" : nil) : ($0 % 2 == 0 ? movie("M\($0)", id: "k\($0)") : $1) }),
        ]
        for (name, old, new) in variants {
            let m = SiblingMatch(old: old, new: new)
            let size = old.count + new.count
            var log = 1
            while 1 << log < size { log += 1 }
            XCTAssertLessThanOrEqual(m.lookups, 2 * size, name)
            // The passes: a few steps per node and two binary searches; the table in the gaps:
            // at most √exactCells / 2 = 128 cells per node.
            XCTAssertLessThanOrEqual(m.steps, size * (2 * log + 8 + 128), "\(name): \(m.steps) steps for \(size) nodes")
            XCTAssertEqual(m.pairs.count + m.deleted.count, old.count, name)
            XCTAssertEqual(m.pairs.count + m.inserted.count, new.count, name)
        }
        // The classification of the first: one insertion, one update, nothing else.
        let old: JSONValue = ["type": "list", "id": "l", "items": .array(base)]
        let new: JSONValue = ["type": "list", "id": "l", "items": .array([movie("New")] + base.dropLast() + [movie("Last")])]
        let d = TreeDiffer(old: old, new: new)
        XCTAssertEqual(d.changes.map { "\($0.change.rawValue) \($0.path)" }, ["soft root/items[20000]", "inserted root/items[0]"])
        XCTAssertEqual(d.unchanged, n)
    }

    /// An id repeated among siblings (an invalid screen, or nodes a builder made): the k-th
    /// with it is paired with the k-th, so a list compared with itself has no change (the
    /// first-only pairing reported the second as deleted and inserted).
    func testRepeatedIDsPairInOrder() {
        let a1 = movie("A", id: "a"), a2 = movie("A again", id: "a"), b = movie("B")
        XCTAssertEqual(summary(SiblingMatch(old: [a1, b, a2], new: [a1, b, a2])), "pairs [0>0, 1>1, 2>2] inserted [] deleted [] moved []")
        XCTAssertEqual(summary(SiblingMatch(old: [a1, a2], new: [a1])), "pairs [0>0] inserted [] deleted [1] moved []")
        let tree: JSONValue = ["type": "list", "id": "l", "items": .array([a1, b, a2])]
        XCTAssertEqual(TreeDiffer(old: tree, new: tree).changes, [])
    }

    /// Spots' DiffManagerTests.testComparingWhenMovingItems: a b c → c b a without ids is two
    /// moves (a 0 → 2, c 2 → 0; b stays), not two deletions and two insertions — by the table,
    /// by Heckel's passes alone, and past the table's size.
    func testReorderWithoutIDsIsMovesAsInSpots() {
        let a = movie("a"), b = movie("b"), c = movie("c")
        let expected = "pairs [2>0, 1>1, 0>2] inserted [] deleted [] moved [0, 2]"
        XCTAssertEqual(summary(SiblingMatch(old: [a, b, c], new: [c, b, a])), expected)
        XCTAssertEqual(summary(SiblingMatch(old: [a, b, c], new: [c, b, a], exactCells: 0)), expected)
        let old: JSONValue = ["type": "carousel", "id": "teams", "items": [a, b, c]]
        let new: JSONValue = ["type": "carousel", "id": "teams", "items": [c, b, a]]
        let d = TreeDiffer(old: old, new: new)
        XCTAssertEqual(d.changes.map(\.line), ["moved    item movie (root/items[0]) 2 → 0", "moved    item movie (root/items[2]) 0 → 2"])
        XCTAssertEqual(d.counts.moved, 2)
        XCTAssertEqual(d.counts.inserted + d.counts.deleted, 0)
        XCTAssertEqual(d.unchanged, 4)
        // A moved item that was also edited cannot be told from a new one (no id, new content):
        // a is found again, c is gone and c2 is new.
        let edited: JSONValue = ["type": "carousel", "id": "teams", "items": [movie("c2"), b, a]]
        XCTAssertEqual(TreeDiffer(old: old, new: edited).changes.map { "\($0.change.rawValue) \($0.path)" },
                       ["deleted root/items[2]", "moved root/items[2]", "inserted root/items[0]"])
        // Past the table: 2,000 distinct items reversed are 1,999 moves and nothing else.
        let many = (0..<2_000).map { movie("M\($0)") }
        let m = SiblingMatch(old: many, new: many.reversed())
        XCTAssertEqual(m.pairs.count, 2_000)
        XCTAssertEqual(m.moved.count, 1_999)
        XCTAssertEqual(m.inserted.count + m.deleted.count, 0)
        // The same with ids (unchanged rule, the kept index now the one that stayed).
        let keyed = [movie("a", id: "a"), movie("b", id: "b"), movie("c", id: "c")]
        XCTAssertEqual(summary(SiblingMatch(old: keyed, new: keyed.reversed())), expected)
    }

    func testEarliestLongestIncreasing() {
        var steps = 0
        XCTAssertEqual(SiblingMatch.earliestLongestIncreasing([1, 0], steps: &steps), [0])
        XCTAssertEqual(SiblingMatch.earliestLongestIncreasing([3, 1, 2, 0, 4], steps: &steps), [1, 2, 4])
        XCTAssertEqual(SiblingMatch.earliestLongestIncreasing([2, 3, 0, 1], steps: &steps), [0, 1])
        XCTAssertEqual(SiblingMatch.earliestLongestIncreasing([], steps: &steps), [])
    }
}

/// The sibling matcher as it was before Heckel's technique (a longest common subsequence by a
/// quadratic table), then content left out of it paired by a scan (as Spots' differ finds a
/// moved item), kept here as the reference the linear one is checked against.
struct QuadraticSiblingMatch {
    var pairs: [(old: Int, new: Int)] = []
    var deleted: [Int] = []
    var inserted: [Int] = []
    var moved: Set<Int> = []

    init(old: [JSONValue], new: [JSONValue]) {
        var newByID: [String: Int] = [:]
        for (i, n) in new.enumerated() { if let id = n["id"]?.string, newByID[id] == nil { newByID[id] = i } }
        var oldByID: [String: Int] = [:]
        for (i, n) in old.enumerated() { if let id = n["id"]?.string, oldByID[id] == nil { oldByID[id] = i } }
        var oldMatched = [Int?](repeating: nil, count: old.count)
        var newMatched = [Int?](repeating: nil, count: new.count)
        for (i, n) in old.enumerated() {
            guard let id = n["id"]?.string, oldByID[id] == i, let j = newByID[id] else { continue }
            oldMatched[i] = j
            newMatched[j] = i
        }
        let oldFree = old.indices.filter { oldMatched[$0] == nil && old[$0]["id"]?.string == nil }
        let newFree = new.indices.filter { newMatched[$0] == nil && new[$0]["id"]?.string == nil }
        let anchors = Self.lcs(oldFree.map { old[$0] }, newFree.map { new[$0] })
        for (a, b) in anchors {
            oldMatched[oldFree[a]] = newFree[b]
            newMatched[newFree[b]] = oldFree[a]
        }
        // Content left out of the common subsequence: each new node, in order, takes the first
        // unpaired old node of equal content (a scan, as Spots' differ looks an item up).
        for n in newFree where newMatched[n] == nil {
            if let o = oldFree.first(where: { oldMatched[$0] == nil && old[$0] == new[n] }) {
                oldMatched[o] = n
                newMatched[n] = o
            }
        }
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
        var steps = 0
        moved = SiblingMatch.moves(pairs, steps: &steps)
    }

    static func lcs(_ a: [JSONValue], _ b: [JSONValue]) -> [(Int, Int)] {
        if a.isEmpty || b.isEmpty { return [] }
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
}
