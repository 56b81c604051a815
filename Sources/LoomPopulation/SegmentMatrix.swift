import LoomCore
import LoomNavigation
import LoomWorkspace
import OrderedCollections

/// What a matrix row counts: a visible component or item of the screen, an edge of the
/// navigation graph the user can walk from it, or (with clients.json) a node the user's client
/// cannot render and the user would otherwise receive (`unsupported`, named as a component;
/// replaced by its fallback or removed, docs/clients.md).
///
/// Names: a component by its id, else its path; an item by its id, else by its collection and
/// position (`trending/items[2]`: the component holding it, by id or path, and its index in
/// that component's items), so id-less items of two carousels are two rows even when their
/// actions are the same; an edge by screen ids, `from -step-> to`, with the flow showing its
/// target in `flow` (never the graph's `screen@flow` node ids, which depend on how many flows
/// one user's graph shows the screen in).
public struct MatrixKey: Hashable, Sendable {
    public enum Kind: String, Sendable { case component, item, edge, unsupported }
    public var kind: Kind
    public var name: String
    /// For an edge: the flow its target screen is shown in (nil outside any flow).
    public var flow: String?
    public init(kind: Kind, name: String, flow: String? = nil) { self.kind = kind; self.name = name; self.flow = flow }

    /// An id-less item's name: its collection (the component's id, else its path) and index.
    public static func itemName(collection: String, index: Int) -> String { "\(collection)/items[\(index)]" }

    /// The position an item is written at, from its path (`…/items[2]` → 2), when it has one.
    static func writtenIndex(_ path: String) -> Int? {
        guard let slash = path.lastIndex(of: "/") ?? Optional(path.startIndex) else { return nil }
        var last = path[slash...]
        if last.hasPrefix("/") { last = last.dropFirst() }
        guard last.hasPrefix("items["), last.hasSuffix("]") else { return nil }
        return Int(last.dropFirst(6).dropLast())
    }
}

/// One segment's counts: its users and, per key, how many of them see it.
public struct SegmentCounts: Sendable {
    public var users = 0
    public var seen: [MatrixKey: Int] = [:]
    public init() {}
}

/// Per segment (the distinct values of the `--by` attributes, or each user by name when there
/// is no `--by`), how many users see each component, item and graph edge. Keys and segments
/// keep the order they are first met in the input, so the matrix is the same at any `--jobs`.
public struct SegmentMatrix: Sendable {
    public var by: [String]
    public var segments: OrderedDictionary<[JSONValue], SegmentCounts> = [:]
    public var keys: OrderedSet<MatrixKey> = []
    public var population = 0
    /// Per `--by` attribute, whether any user counted so far has it: one nobody has is most
    /// likely misspelt, and the matrix says so (`host matrix`).
    public var byPresent: [Bool]
    /// Attribute names of the first users that lack a `--by` attribute (at most
    /// `namesSampleUsers` of them), for suggesting the name meant.
    public var namesSeen: Set<String> = []
    private var namesSampled = 0
    static let namesSampleUsers = 64

    public init(by: [String]) {
        self.by = by
        byPresent = by.map { _ in false }
    }

    /// The `--by` attributes no user has.
    public var absentBy: [String] { zip(by, byPresent).filter { !$0.1 }.map(\.0) }

    /// The segment of a user: its `--by` attribute values (`null` when absent), else its label.
    public func segment(of user: UserRecord) -> [JSONValue] {
        if by.isEmpty { return [user.label] }
        return by.map { user.profile.attributes[$0] ?? .null }
    }

    public mutating func add(_ user: UserRecord, sees: [MatrixKey]) {
        let seg = segment(of: user)
        population += 1
        if byPresent.contains(false) { notePresence(user.profile.attributes) }
        var counts = segments[seg] ?? SegmentCounts()
        counts.users += 1
        for k in sees {
            keys.append(k)
            counts.seen[k, default: 0] += 1
        }
        segments[seg] = counts
    }

    private mutating func notePresence(_ attributes: OrderedDictionary<String, JSONValue>) {
        var lacking = false
        for i in by.indices where !byPresent[i] {
            if attributes[by[i]] != nil { byPresent[i] = true } else { lacking = true }
        }
        if lacking && namesSampled < SegmentMatrix.namesSampleUsers {
            namesSampled += 1
            namesSeen.formUnion(attributes.keys)
        }
    }

    /// Adds a later part of the input (a worker's batch) after this one.
    public mutating func merge(_ other: SegmentMatrix) {
        population += other.population
        for i in byPresent.indices where i < other.byPresent.count { byPresent[i] = byPresent[i] || other.byPresent[i] }
        if namesSampled < SegmentMatrix.namesSampleUsers {
            namesSeen.formUnion(other.namesSeen)
            namesSampled += other.namesSampled
        }
        keys.append(contentsOf: other.keys)
        for (seg, c) in other.segments {
            var mine = segments[seg] ?? SegmentCounts()
            mine.users += c.users
            for (k, n) in c.seen { mine.seen[k, default: 0] += n }
            segments[seg] = mine
        }
    }

    /// Adds, after the keys the population saw, every component and item the screen's file
    /// declares that no user saw, in document order: a row of zeros says that nobody sees it,
    /// where leaving it out would say nothing. Named as `MatrixSight` names what users see (a
    /// component by its id, else its path; an item by its id, else its collection and position).
    /// Nodes a builder creates and graph edges are known only from what users see.
    public mutating func addUnseen(declaredBy screen: Screen) {
        func visit(_ c: Component) {
            let name = c.id ?? c.path
            keys.append(MatrixKey(kind: .component, name: name))
            if let h = c.header { visit(h) }
            for x in c.children { visit(x) }
            for (index, i) in c.items.enumerated() {
                keys.append(MatrixKey(kind: .item, name: i.id ?? MatrixKey.itemName(collection: name, index: index)))
                for x in i.children { visit(x) }
            }
            if let f = c.footer { visit(f) }
        }
        visit(screen.root)
    }

    /// A segment's name for text: `tier=gold country=NO`, or the user's label (a name, or a
    /// line number for a user without one).
    public func segmentName(_ seg: [JSONValue]) -> String {
        if by.isEmpty { return seg.first.map { ValueText.cell($0, inLine: false) } ?? "" }
        let text = { (v: JSONValue) in ValueText.cell(v, inLine: true) }
        return zip(by, seg).map { "\($0)=\(text($1))" }.joined(separator: " ")
    }
}

/// What one user sees of a screen, as matrix keys: visible components and items (named as in
/// `VisibleSet`), then, with `graph`, the edges of the navigation graph they can walk from it.
public enum MatrixSight {
    /// Each key once, however many times the user sees it (two items with one action).
    public static func keys(_ r: Resolution, graph: NavigationGraph?) -> [MatrixKey] {
        var out: [MatrixKey] = []
        var seen = Set<MatrixKey>()
        func add(_ k: MatrixKey) { if seen.insert(k).inserted { out.append(k) } }
        func visit(_ n: ResolvedNode) {
            if n.hidden { return }
            let name = n.id ?? n.path
            add(MatrixKey(kind: .component, name: name))
            if let h = n.header { visit(h) }
            for c in n.children { visit(c) }
            // The position as written (hidden items are not in the resolved list): an item keeps
            // its row whoever sees the others.
            for (index, i) in (n.items ?? []).enumerated() where !i.hidden {
                let position = MatrixKey.writtenIndex(i.path) ?? index
                add(MatrixKey(kind: .item, name: i.id ?? MatrixKey.itemName(collection: name, index: position)))
                for c in i.children { visit(c) }
            }
            if let f = n.footer { visit(f) }
        }
        if let t = r.tree { visit(t) }
        for u in r.unsupported { add(MatrixKey(kind: .unsupported, name: u.name)) }
        if let graph {
            // Node ids are `screen@flow` only when this user's graph shows the screen in several
            // flows: keyed by screen ids and the target's flow, one edge is one row for everyone.
            var nodes: [String: NavigationGraph.Node] = [:]
            for n in graph.nodes { nodes[n.id] = n }
            for e in graph.edges {
                let from = nodes[e.from]?.screen ?? e.from, to = nodes[e.to]
                add(MatrixKey(kind: .edge, name: "\(from) -\(e.step)-> \(to?.screen ?? e.to)", flow: to?.flow ?? e.flow))
            }
        }
        return out
    }
}

/// Counts a batch of users into a matrix (one per worker thread).
public final class MatrixWorker {
    public let screens: PopulationScreens
    public let parser: UserParser
    public let by: [String]
    public let graph: Bool
    /// Stop the batch at its first record that cannot be read (`--fail-fast`): the users after
    /// it are not counted, as `host eval`'s output ends with the users before it.
    public let failFast: Bool

    /// `host matrix --findings`: the findings of a user's resolved tree laid out (each a line),
    /// counted once per user; nil: not asked for.
    public let findings: ((ResolvedNode?) -> [String])?

    public init(screens: PopulationScreens, parser: UserParser, by: [String], graph: Bool, failFast: Bool = false,
                findings: ((ResolvedNode?) -> [String])? = nil) {
        self.screens = screens
        self.parser = parser
        self.by = by
        self.graph = graph
        self.failFast = failFast
        self.findings = findings
    }

    public func process(_ batch: UserBatch) -> MatrixPart {
        // Lines the reader only counted are split here, on the worker.
        let batch = batch.split()
        var m = SegmentMatrix(by: by)
        var failures: [Diagnostic] = []
        var notes = ResolutionNotes()
        var found: [String: Int] = [:]
        guard let s = screens.screens.first else { return MatrixPart(matrix: m, failures: failures, notes: notes) }
        for k in 0..<batch.count {
            let p = batch.pending(k)
            switch parser.parse(p) {
            case .failure(let d):
                failures.append(d)
                if failFast { return MatrixPart(matrix: m, failures: failures, notes: notes) }
            case .success(let user):
                // A user with data of their own sees the screen expanded with it (docs/populations.md).
                var screen = s.screen
                let r: Resolution
                if let data = user.data {
                    switch screens.resolve(for: user.profile, data: data) {
                    case .failure(let f):
                        failures.append(f.first)
                        for d in f.more { notes.add(d, line: user.line) }
                        if failFast { return MatrixPart(matrix: m, failures: failures, notes: notes) }
                        continue
                    case .success(let made):
                        screen = made[0].screen
                        r = made[0].resolution
                    }
                } else {
                    r = screens.resolve(0, for: user.profile)
                }
                for d in r.diagnostics.items { notes.add(d, line: user.line) }
                var g: NavigationGraph?
                if graph {
                    let out = screens.workspace.navigationGraph(from: screen, user: user.profile)
                    for d in out.diagnostics.items { notes.add(d, line: user.line) }
                    g = out.graph
                }
                m.add(user, sees: MatrixSight.keys(r, graph: g))
                if let findings {
                    // Laid out with the texts the user reads (their locale, else the project's
                    // default_locale), as `host run --layout` lays them out: a localized title
                    // is text, and its length is what truncates (docs/localization.md).
                    var shown = r
                    Localizer(catalog: screens.workspace.strings, user: user.profile)?.apply(&shown)
                    // A finding counts a user once, however often it is reported for them.
                    for line in Set(findings(shown.tree)) { found[line, default: 0] += 1 }
                }
            }
        }
        var part = MatrixPart(matrix: m, failures: failures, notes: notes)
        part.findings = found
        return part
    }
}

/// A worker's counts for one batch, with the users it could not read and resolution problems.
public struct MatrixPart: Sendable {
    public var matrix: SegmentMatrix
    public var failures: [Diagnostic]
    public var notes: ResolutionNotes
    /// `--findings`: each finding's line → how many of the batch's users it reaches.
    public var findings: [String: Int] = [:]
    public init(matrix: SegmentMatrix, failures: [Diagnostic], notes: ResolutionNotes) {
        self.matrix = matrix
        self.failures = failures
        self.notes = notes
    }
}
