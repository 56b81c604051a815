import LoomCore
import LoomDiff
import OrderedCollections

/// What changes for one user between two resolutions of a screen, node by node: the facts
/// `host diff --users FILE` counts (each at most once per user).
public struct PopulationDiffFact: Hashable, Sendable {
    public enum Kind: String, Sendable, CaseIterable { case component, item, edge }
    /// Alphabetical: rows are ordered by segment, then id, then change.
    public enum Change: String, Sendable, CaseIterable, Comparable {
        case gained, lost, moved, updated
        public static func < (a: Change, b: Change) -> Bool { a.rawValue < b.rawValue }
    }
    public var id: String
    public var kind: Kind
    public var change: Change
    public init(id: String, kind: Kind, change: Change) {
        self.id = id
        self.kind = kind
        self.change = change
    }

    /// Every fact of one user: `old` / `new` the visible trees (`TreeOutput.json`, no hidden
    /// nodes), `oldGraph` / `newGraph` the navigation graphs' JSON (`edges`).
    ///
    /// Components and items come from `TreeDiffer` (matched by id, else content, else place, as
    /// `host diff` matches them): inserted → gained, deleted → lost, hard or soft → updated,
    /// moved → moved; a node that appears or disappears brings every node inside it (its
    /// children, header, footer and items, at any depth) as gained or lost too. A node is named
    /// by its id; one without an id by `item N of list 'x'` (an item, N its index on the side
    /// it is on) or by its path (`root/children[1]`). Edges are named `FROM -STEP-> TO`: gained
    /// or lost when only one side has the edge, updated when both have it with a different
    /// presentation.
    public static func facts(old: JSONValue?, new: JSONValue?, oldGraph: JSONValue?, newGraph: JSONValue?) -> Set<PopulationDiffFact> {
        var out = Set<PopulationDiffFact>()
        let differ = TreeDiffer(old: old, new: new)
        for c in differ.changes {
            let kind: Kind = c.node == "item" ? .item : .component
            switch c.change {
            case .inserted:
                if let n = new.flatMap({ node(at: c.path, in: $0) }) {
                    subtree(n, name: name(of: c, index: c.newIndex), kind: kind, path: c.path, change: .gained, into: &out)
                }
            case .deleted:
                if let n = old.flatMap({ node(at: c.path, in: $0) }) {
                    subtree(n, name: name(of: c, index: c.oldIndex), kind: kind, path: c.path, change: .lost, into: &out)
                }
            case .hard, .soft:
                out.insert(PopulationDiffFact(id: name(of: c, index: c.newIndex), kind: kind, change: .updated))
            case .moved:
                out.insert(PopulationDiffFact(id: name(of: c, index: c.newIndex), kind: kind, change: .moved))
            }
        }
        let a = edges(oldGraph), b = edges(newGraph)
        for (id, how) in b {
            if let was = a[id] {
                if was != how { out.insert(PopulationDiffFact(id: id, kind: .edge, change: .updated)) }
            } else {
                out.insert(PopulationDiffFact(id: id, kind: .edge, change: .gained))
            }
        }
        for id in a.keys where b[id] == nil { out.insert(PopulationDiffFact(id: id, kind: .edge, change: .lost)) }
        return out
    }

    /// A change's node name: its id, else an item's place in its collection, else its path.
    static func name(of c: TreeChange, index: Int?) -> String {
        if let id = c.id { return id }
        if c.node == "item", let i = index { return TreeChange.itemName(index: i, collection: c.collection) }
        return c.path
    }

    /// `n` (named `name`) and every node inside it, as `change`.
    private static func subtree(_ n: JSONValue, name: String, kind: Kind, path: String, change: Change, into out: inout Set<PopulationDiffFact>) {
        out.insert(PopulationDiffFact(id: name, kind: kind, change: change))
        for slot in ["header", "footer"] {
            if let h = n[slot], h.object != nil {
                let p = path + "/" + slot
                subtree(h, name: h["id"]?.string ?? p, kind: h["type"] == nil && h["kind"] != nil ? .item : .component,
                        path: p, change: change, into: &out)
            }
        }
        for (i, c) in (n["children"]?.array ?? []).enumerated() where c.object != nil {
            let p = "\(path)/children[\(i)]"
            subtree(c, name: c["id"]?.string ?? p, kind: c["type"] == nil && c["kind"] != nil ? .item : .component,
                    path: p, change: change, into: &out)
        }
        let collection = TreeChange.collectionName(type: n["type"]?.string ?? n["kind"]?.string, id: n["id"]?.string)
        for (i, c) in (n["items"]?.array ?? []).enumerated() where c.object != nil {
            subtree(c, name: c["id"]?.string ?? TreeChange.itemName(index: i, collection: collection), kind: .item,
                    path: "\(path)/items[\(i)]", change: change, into: &out)
        }
    }

    /// The node at a differ's path (`root/children[0]/items[3]/header`) in `tree`.
    static func node(at path: String, in tree: JSONValue) -> JSONValue? {
        var parts = path.split(separator: "/").map(String.init)
        guard parts.first == "root" else { return nil }
        parts.removeFirst()
        var cur = tree
        for p in parts {
            if p == "header" || p == "footer" {
                guard let h = cur[p], h.object != nil else { return nil }
                cur = h
                continue
            }
            guard let open = p.firstIndex(of: "["), p.hasSuffix("]"),
                  let i = Int(p[p.index(after: open)..<p.index(before: p.endIndex)]),
                  let a = cur[String(p[..<open])]?.array, a.indices.contains(i) else { return nil }
            cur = a[i]
        }
        return cur
    }

    /// A graph's edges by `FROM -STEP-> TO`, each with its presentations (sorted, joined).
    static func edges(_ graph: JSONValue?) -> [String: String] {
        var out: [String: Set<String>] = [:]
        for e in graph?["edges"]?.array ?? [] {
            let from = e["from"]?.string ?? "?", to = e["to"]?.string ?? "?"
            let step = e["step"]?.string ?? "?", how = e["presentation"]?.string ?? "?"
            out["\(from) -\(step)-> \(to)", default: []].insert(how)
        }
        return out.mapValues { $0.sorted().joined(separator: ",") }
    }
}

/// The counts of a population diff: per segment (the `--by` attributes' values, `null` for an
/// attribute a user lacks), its users and, per fact, how many of them it holds for. Only counts
/// are kept (memory grows with segments and nodes, never with users); adding counts made from
/// any split of the users gives the same counts.
public struct PopulationDiffCounts: Sendable {
    public struct Segment: Sendable {
        public var users = 0
        public var facts: [PopulationDiffFact: Int] = [:]
    }
    public var by: [String]
    public var segments: [[JSONValue]: Segment] = [:]
    /// `--by` attributes some user has (an attribute no user has is an error: a typo).
    public var seenBy: Set<String> = []

    public init(by: [String]) { self.by = by }

    public var users: Int { segments.values.reduce(0) { $0 + $1.users } }

    /// Adds one user: its attributes and its facts.
    public mutating func add(attributes: OrderedDictionary<String, JSONValue>, facts: Set<PopulationDiffFact>) {
        let key = by.map { name -> JSONValue in
            if let v = attributes[name] { seenBy.insert(name); return v }
            return .null
        }
        var s = segments[key] ?? Segment()
        s.users += 1
        for f in facts { s.facts[f, default: 0] += 1 }
        segments[key] = s
    }

    public mutating func merge(_ other: PopulationDiffCounts) {
        seenBy.formUnion(other.seenBy)
        for (key, o) in other.segments {
            var s = segments[key] ?? Segment()
            s.users += o.users
            for (f, n) in o.facts { s.facts[f, default: 0] += n }
            segments[key] = s
        }
    }

    /// A segment value's place in the order: its compact JSON text.
    static func text(_ v: JSONValue) -> String { v.serialized(pretty: false) }

    /// Text order by Unicode scalar values (code points), not Swift's `<` on `String` (which
    /// compares canonical forms): the order any other tool reproduces (`scripts/spark-eval
    /// diff` sorts Python strings, which compare by code points).
    static func precedes(_ a: String, _ b: String) -> Bool { a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) }

    /// The segments in order: attribute by attribute, by their values' compact JSON text.
    public var orderedSegments: [(key: [JSONValue], segment: Segment)] {
        Self.inSegmentOrder(segments).map { ($0.key, $0.value) }
    }

    /// A segment's facts in the order rows list them: by id, then kind, then change.
    static func inFactOrder(_ facts: [PopulationDiffFact: Int]) -> [(key: PopulationDiffFact, value: Int)] {
        facts.sorted { a, b in
            if a.key.id != b.key.id { return Self.precedes(a.key.id, b.key.id) }
            if a.key.kind != b.key.kind { return a.key.kind.rawValue < b.key.kind.rawValue }
            return a.key.change < b.key.change
        }
    }

    /// Entries keyed by segment in the order population diffs and calendar sweeps list segments
    /// (`orderedSegments`).
    static func inSegmentOrder<V>(_ bySegment: [[JSONValue]: V]) -> [(key: [JSONValue], value: V)] {
        let keyed = bySegment.map { (texts: $0.key.map(Self.text), key: $0.key, value: $0.value) }
        return keyed.sorted { $0.texts.lexicographicallyPrecedes($1.texts, by: Self.precedes) }.map { ($0.key, $0.value) }
    }

    public struct Row: Sendable {
        public var segment: [JSONValue]
        public var segmentUsers: Int
        public var fact: PopulationDiffFact
        public var count: Int
    }

    /// Every row: by segment, then id, then kind, then change.
    public var rows: [Row] {
        var out: [Row] = []
        for (key, s) in orderedSegments {
            for (f, n) in Self.inFactOrder(s.facts) { out.append(Row(segment: key, segmentUsers: s.users, fact: f, count: n)) }
        }
        return out
    }

    public var changed: Bool { segments.values.contains { !$0.facts.isEmpty } }
}
