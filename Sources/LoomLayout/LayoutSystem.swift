import LoomCore
import LoomSolver

/// Where a constraint of the layout system comes from: a node's own `constraints` string (with
/// its location), or a rule of the layout pass (the root's frame, a stack's spacing, an
/// intrinsic size…), described by what made it.
struct ConstraintOrigin: Sendable {
    /// The node the constraint belongs to.
    var node: Int
    /// The single constraint in the language (`width == 500`), or what made it.
    var text: ConstraintText
    /// The string as written, when the single constraint is a part of a guide.
    var written: String?
    /// The string's location (own constraints), else nil.
    var location: SourceLocation?
}

/// A constraint's description, put together only when a message or the export prints it (most
/// never are): `head`, then `number` as `Frame.number` writes it, then `tail`, then ` @ priority`
/// for a made constraint below required.
struct ConstraintText: Sendable, ExpressibleByStringInterpolation {
    var head: String
    var number: Double?
    var tail: String
    var priority: Double?

    init(_ head: String, _ number: Double? = nil, _ tail: String = "") {
        self.head = head
        self.number = number
        self.tail = tail
    }
    init(stringLiteral value: String) { self.init(value) }
    init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }

    var string: String {
        var s = head
        if let number { s += Frame.number(number) }
        s += tail
        if let priority { s += " @ " + Frame.number(priority) }
        return s
    }
}

/// The solver with the layout pass's constraints, each with its origin; constraints a required
/// conflict rejected are reported and left out.
struct LayoutSystem: Sendable {
    var solver = Solver()
    var constraints: [Constraint] = []
    var origins: [ConstraintOrigin] = []
    var accepted: [Bool] = []
    /// The index in `constraints` of each accepted constraint, by handle id (the solver numbers
    /// the constraints it accepts 0, 1, 2…; -1 for an id this system did not add).
    var handles: [Int] = []
    var diagnostics: [Diagnostic] = []
    var findings: [LayoutFinding] = []
    let nodeCount: Int
    /// Frame variables defined rather than solved (a layout with many stack children,
    /// `Definitions`), and their values once solved.
    var definitions: Definitions
    var definedValues: [Double] = []
    /// The index in `constraints` of the definition of each defined variable, by variable
    /// index (-1 for others; grown as definitions are recorded).
    var definedBy: [Int] = []
    /// Set when the solver's work passed `workLimit`: the constraints after that point are left
    /// out (reported once, as an error).
    var stopped = false

    /// The solver's work budget for one pass, in `Solver.work` steps (one to a few nanoseconds
    /// each in a release build): a system that needs more is stopped with an error rather than
    /// solved for minutes. The sample app's screens take a few thousand steps; a vstack of
    /// 3,000 labels about 64 million, 3,000 labels chained by their own constraints about 100
    /// million (docs/layout.md, "Cost").
    static let workLimit = 1_000_000_000

    /// The system of `tree`'s nodes (it does not keep the tree: the pass goes on changing its
    /// copy, measuring text at the solved widths, without copying every node).
    init(tree: LayoutTree) {
        nodeCount = tree.nodes.count
        // Room for a dozen constraints a node (a label with an intrinsic size and four own
        // constraints makes ten), so the arrays are not copied as they grow.
        let expected = nodeCount * 12
        constraints.reserveCapacity(expected)
        origins.reserveCapacity(expected)
        accepted.reserveCapacity(expected)
        handles.reserveCapacity(expected)
        // Unnamed: only the export names them (`path.left`…), when asked.
        for _ in 0..<(nodeCount * FrameVar.allCases.count) { _ = solver.makeVariable() }
        solver.reserveCapacity(constraints: expected)
        solver.workLimit = LayoutSystem.workLimit
        // Under a `host serve` request's deadline, one long `add` stops at the deadline too.
        if Deadline.current != nil { solver.shouldStop = { Deadline.expired } }
        definitions = Definitions(variables: nodeCount * FrameVar.allCases.count)
    }

    /// Adds a constraint; a required one that conflicts is reported (error located at its
    /// string, a note per conflicting constraint) and left out.
    mutating func add(_ c: Constraint, _ origin: ConstraintOrigin, in tree: LayoutTree) {
        let index = constraints.count
        var c = c
        c.tag = index
        constraints.append(c)
        origins.append(origin)
        // Past its work limit, or past a `host serve` request's deadline (its answer is a 503),
        // no more constraints are added.
        if stopped || Deadline.expired {
            accepted.append(false)
            return
        }
        // The solver sees the constraint with the defined variables written out.
        var solved = c
        definitions.mention(c.expression)
        if !definitions.isEmpty { solved.expression = definitions.expand(c.expression) }
        do {
            let h = try solver.add(solved)
            while handles.count <= h.id { handles.append(-1) }
            handles[h.id] = index
            accepted.append(true)
        } catch {
            accepted.append(false)
            if case .unsatisfiable(let u) = error {
                reportUnsatisfiable(index, tree, conflicting: u.conflicting.compactMap { $0.id < handles.count && handles[$0.id] >= 0 ? handles[$0.id] : nil })
            } else if case .stopped = error {
                // Past the request's deadline: its answer is a 503; nothing more is added.
                stopped = true
                diagnostics.append(.error("layout stopped at the request's time limit (--request-timeout); constraint '\(origin.text.string)' on \(tree.describe(origin.node)) and the ones after it are left out",
                                          at: tree.nodes[0].location))
            } else if case .workLimitExceeded(let limit) = error {
                stopped = true
                diagnostics.append(.error("layout stopped: solving \(tree.describe(0))'s constraints needed more than \(limit) steps of the solver (docs/layout.md, \"Cost\"); constraint '\(origin.text.string)' on \(tree.describe(origin.node)) and the ones after it are left out, and the frames are not reliable",
                                          at: tree.nodes[0].location))
            } else {
                diagnostics.append(.error("constraint '\(origin.text.string)' on \(tree.describe(origin.node)) could not be added: \(error)",
                                          at: origin.location ?? tree.nodes[origin.node].location))
            }
        }
    }


    static func describe(_ o: ConstraintOrigin, _ tree: LayoutTree) -> String {
        let text = o.text.string
        var s = "'\(text)'"
        if let w = o.written, w != text { s += " (from '\(w)')" }
        return s + " on \(tree.describe(o.node))"
    }

    /// At most this many conflicting constraints are named for one rejected constraint (the
    /// message says how many more): naming them all made a screen of thousands of rejected
    /// constraints, each conflicting with thousands, print millions of lines.
    static let namedConflicts = 20

    mutating func reportUnsatisfiable(_ k: Int, _ tree: LayoutTree, conflicting solverConflicts: [Int]) {
        let o = origins[k]
        func describe(_ k: Int) -> String { LayoutSystem.describe(origins[k], tree) }
        var conflicting = solverConflicts
        if !definitions.isEmpty {
            // Definitions are not in the solver: name the ones that define a variable the
            // rejected or a conflicting constraint mentions, in the order they were made.
            var extra: [Int] = []
            for j in [k] + solverConflicts {
                for t in constraints[j].expression.terms where t.variable.index < definedBy.count && definedBy[t.variable.index] >= 0 {
                    extra.append(definedBy[t.variable.index])
                }
            }
            if !extra.isEmpty {
                conflicting += extra
                conflicting.sort()
                var w = 0
                for i in conflicting.indices where i == 0 || conflicting[i] != conflicting[i - 1] {
                    conflicting[w] = conflicting[i]
                    w += 1
                }
                conflicting.removeLast(conflicting.count - w)
            }
        }
        let more = max(0, conflicting.count - LayoutSystem.namedConflicts)
        conflicting = Array(conflicting.prefix(LayoutSystem.namedConflicts))
        var list = conflicting.map { describe($0) }.joined(separator: ", ")
        if more > 0 { list += " and \(more) more" }
        let message = "unsatisfiable constraint \(describe(k)): it conflicts with \(list.isEmpty ? "the required constraints above" : list); left out"
        // The fix: the written constraint yields (a priority below required) or goes; the
        // pass's own constraints cannot be edited, so a made one names the first written
        // constraint it conflicts with instead.
        func yield(_ w: String) -> String {
            w.contains("@") ? "lower the priority of '\(w)' or remove it" : "give '\(w)' a priority below required ('\(w) @ high') or remove it"
        }
        let fix: String
        if o.location != nil {
            fix = yield(o.written ?? o.text.string)
        } else if let j = conflicting.first(where: { origins[$0].location != nil }) {
            fix = yield(origins[j].written ?? origins[j].text.string) + " (on \(tree.describe(origins[j].node)))"
        } else {
            fix = "remove one of the conflicting constraints or lower its priority ('@ high')"
        }
        let at = o.location ?? tree.nodes[o.node].location
        diagnostics.append(.error(message, at: at, fix: fix))
        for j in conflicting {
            let c = origins[j]
            let made = c.location == nil ? " (made by the layout pass)" : ""
            diagnostics.append(.note("conflicting: \(describe(j))\(made)", at: c.location ?? tree.nodes[c.node].location))
        }
        findings.append(LayoutFinding(kind: .unsatisfiable, path: tree.nodes[o.node].path, message: message, location: at, fix: fix))
    }

    /// A constraint the layout pass states but does not give to the solver: it defines a
    /// variable (`Definitions`). It is recorded like the others (the export lists it, accepted).
    mutating func record(definition c: Constraint, of v: Variable, _ origin: ConstraintOrigin) {
        var c = c
        c.tag = constraints.count
        while definedBy.count <= v.index { definedBy.append(-1) }
        definedBy[v.index] = constraints.count
        constraints.append(c)
        origins.append(origin)
        accepted.append(true)
    }

    mutating func solve() {
        solver.updateVariables()
        if !definitions.isEmpty { definedValues = definitions.values { solver.value(of: $0) } }
    }

    func value(_ node: Int, _ v: FrameVar) -> Double {
        let x = Anchors.variable(node, v)
        return definitions.isDefined(x) ? definedValues[x.index] : solver.value(of: x)
    }

    /// The node's frame before rounding.
    func frame(of i: Int) -> Frame {
        Frame(x: value(i, .left), y: value(i, .top), width: value(i, .width), height: value(i, .height))
    }

    /// Nodes whose frame the constraints do not determine: a warning each, located at the node,
    /// naming the undetermined variables.
    func ambiguityFindings(_ tree: LayoutTree) -> (findings: [LayoutFinding], diagnostics: [Diagnostic]) {
        // A stopped system is not at its optimum: nothing to read (the error says so).
        if stopped { return ([], []) }
        var candidates: [Variable] = []
        for i in 0..<nodeCount {
            for v in FrameVar.allCases {
                let x = Anchors.variable(i, v)
                if !definitions.isDefined(x) { candidates.append(x) }
            }
        }
        var loose = [Bool](repeating: false, count: nodeCount * 4)
        let report = solver.ambiguity(candidates, maxProbes: LayoutSystem.maxProbes)
        for v in report.variables { loose[v.index] = true }
        var undecided = report.undecided, probed = report.probed
        if !definitions.isEmpty {
            let defined = definedAmbiguity(loose: &loose, probes: LayoutSystem.maxProbes - report.probed)
            undecided += defined.undecided
            probed += defined.probed
        }
        var findings: [LayoutFinding] = [], diags: [Diagnostic] = []
        if undecided > probed {
            diags.append(.warning("ambiguity check: \(undecided - probed) of the \(undecided) frame values the solver's tableau leaves undecided were not probed (at most \(LayoutSystem.maxProbes) probes a layout, docs/layout.md, \"Ambiguity\"); they are reported ambiguous, not shown to be",
                                  at: tree.nodes[0].location))
        }
        for i in 0..<nodeCount where loose[i * 4] || loose[i * 4 + 1] || loose[i * 4 + 2] || loose[i * 4 + 3] {
            let which = FrameVar.allCases.filter { loose[i * 4 + $0.rawValue] }
            if which.isEmpty { continue }
            let names = which.map { "\($0)" }.joined(separator: ", ")
            let message = "ambiguous layout: the constraints do not determine \(names) of \(tree.describe(i))"
            let fix = ambiguityFix(i, which, tree)
            findings.append(LayoutFinding(kind: .ambiguous, path: tree.nodes[i].path, message: message, location: tree.nodes[i].location, fix: fix))
            diags.append(.warning(message, at: tree.nodes[i].location, fix: fix))
        }
        return (findings, diags)
    }

    /// The constraints that determine an ambiguous node's undetermined values, pinned where the
    /// solver happened to put them (its current frame relative to its parent): `left == parent.left + 16`,
    /// `width == 120`. The user may pick other values; these keep today's picture.
    func ambiguityFix(_ i: Int, _ which: [FrameVar], _ tree: LayoutTree) -> String {
        let f = frame(of: i)
        let p = tree.nodes[i].parent.map { frame(of: $0) }
        func offset(_ v: Double) -> String {
            let r = (v * 2).rounded() / 2
            if abs(r) < 1e-9 { return "" }
            return r < 0 ? " - \(Frame.number(-r))" : " + \(Frame.number(r))"
        }
        func size(_ v: Double) -> String { Frame.number(max(0, (v * 2).rounded() / 2)) }
        var add: [String] = []
        for v in which {
            switch v {
            case .left: add.append(p.map { "left == parent.left\(offset(f.x - $0.x))" } ?? "left == safe_area.left")
            case .top: add.append(p.map { "top == parent.top\(offset(f.y - $0.y))" } ?? "top == safe_area.top")
            case .width: add.append("width == \(size(f.width))")
            case .height: add.append("height == \(size(f.height))")
            }
        }
        let pin = "add " + add.map { "'\($0)'" }.joined(separator: " and ") + " to its constraints (its current "
            + (which.count == 1 ? "value" : "values") + "), or constraints relating it to its siblings"
        // A stack's child: say what sizes the stack and which choices remove the ambiguity.
        let stackSize = tree.nodes[i].parent.map { p in StackLayout(tree: tree, stack: p).vertical ? frame(of: p).height : frame(of: p).width } ?? 0
        return TopLevelStack.ambiguityHint(child: i, which, tree, stackSize: stackSize).map { pin + "; " + $0 } ?? pin
    }

    /// At most this many re-solves to decide the values the tableau leaves undecided.
    static let maxProbes = 64

    /// Whether each defined variable (`Definitions`) is determined, read off the tableau as a
    /// sum of solver variables (`Solver.CombinationReader`), marked in `loose` when not: a
    /// chain child after child, each adding the previous child's size and the gap (O(n) rows
    /// for n children); a definition that is another variable (a child's start across a fill
    /// or leading stack) as that variable; any other written out. Undecided ones are probed
    /// while `probes` last (each a re-solve); the others are marked, and counted as not probed.
    func definedAmbiguity(loose: inout [Bool], probes: Int) -> (undecided: Int, probed: Int) {
        var reader = Solver.CombinationReader(solver)
        var pending: [Variable] = []
        var isPending = [Bool](repeating: false, count: loose.count)
        func read(_ v: Variable) {
            switch reader.verdict {
            case .determined: break
            case .ambiguous: loose[v.index] = true
            case .undecided:
                pending.append(v)
                isPending[v.index] = true
            }
        }
        for m in definitions.made {
            switch m {
            case .chain(let chain):
                reader.reset()
                reader.add(definitions.expand(chain.base))
                let gap = definitions.expand(chain.gap)
                for (k, v) in chain.starts.enumerated() {
                    if k > 0 {
                        reader.add(definitions.expand(LinearExpression(chain.sizes[k - 1])))
                        reader.add(gap)
                    }
                    if definitions.isDefined(v) { read(v) }
                }
            case .expression(let v, let e):
                if e.constant == 0, e.terms.count == 1, e.terms[0].coefficient == 1 {
                    // The same value as that variable (decided before: definitions are made in
                    // order, a solver variable's by the tableau).
                    let w = e.terms[0].variable
                    if loose[w.index] { loose[v.index] = true }
                    if isPending[w.index] {
                        pending.append(v)
                        isPending[v.index] = true
                    }
                } else {
                    reader.reset()
                    reader.add(definitions.expand(e))
                    read(v)
                }
            }
        }
        var probed = 0
        if !pending.isEmpty {
            var work = solver
            for v in pending {
                // Beyond the budget (the count, or the solver's work limit): reported
                // ambiguous, counted as not probed.
                guard probed < probes, work.work <= work.workLimit else {
                    loose[v.index] = true
                    continue
                }
                probed += 1
                if work.moves(definitions.expand(LinearExpression(v))) { loose[v.index] = true }
            }
        }
        return (pending.count, probed)
    }

    /// What the export is made from (shared storage, no copy): `LayoutOutcome.system` builds it
    /// when asked, so a layout that nobody exports never writes its 10,000 sources.
    func exportSource(_ tree: LayoutTree) -> LayoutSystemExportSource {
        LayoutSystemExportSource(constraints: constraints, origins: origins, accepted: accepted, tree: tree)
    }
}

/// A layout system's constraints and origins, to be exported on demand.
struct LayoutSystemExportSource: Sendable {
    let constraints: [Constraint]
    let origins: [ConstraintOrigin]
    let accepted: [Bool]
    let tree: LayoutTree

    func export() -> LayoutSystemExport {
        var out = LayoutSystemExport()
        // Variable 4i + k of node i is `path.left`, `.top`, `.width`, `.height`.
        out.variables.reserveCapacity(tree.nodes.count * FrameVar.allCases.count)
        for i in tree.nodes.indices {
            for v in FrameVar.allCases { out.variables.append(tree.nodes[i].path + "." + v.description) }
        }
        for (k, c) in constraints.enumerated() {
            let e = c.expression.reduced()
            out.constraints.append(.init(terms: e.terms.map { .init(variable: $0.variable.index, coefficient: $0.coefficient) },
                                         constant: e.constant, relation: c.relation.rawValue, strength: c.strength,
                                         source: LayoutSystem.describe(origins[k], tree), accepted: accepted[k]))
        }
        for i in tree.nodes.indices {
            out.nodes.append(.init(path: tree.nodes[i].path, variables: FrameVar.allCases.map { i * 4 + $0.rawValue }))
        }
        return out
    }
}
