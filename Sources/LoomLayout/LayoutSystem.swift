import LoomCore
import LoomSolver

/// Where a constraint of the layout system comes from: a node's own `constraints` string (with
/// its location), or a rule of the layout pass (the root's frame, a stack's spacing, an
/// intrinsic size…), described by what made it.
struct ConstraintOrigin {
    /// The node the constraint belongs to.
    var node: Int
    /// The single constraint in the language (`width == 500`), or what made it.
    var text: String
    /// The string as written, when the single constraint is a part of a guide.
    var written: String?
    /// The string's location (own constraints), else nil.
    var location: SourceLocation?
}

/// The solver with the layout pass's constraints, each with its origin; constraints a required
/// conflict rejected are reported and left out.
struct LayoutSystem {
    var solver = Solver()
    var constraints: [Constraint] = []
    var origins: [ConstraintOrigin] = []
    var accepted: [Bool] = []
    var handles: [ConstraintHandle: Int] = [:]
    var diagnostics: [Diagnostic] = []
    var findings: [LayoutFinding] = []
    let nodeCount: Int
    let tree: LayoutTree

    init(tree: LayoutTree) {
        self.tree = tree
        nodeCount = tree.nodes.count
        for n in tree.nodes {
            for v in FrameVar.allCases { _ = solver.makeVariable(named: "\(n.path).\(v)") }
        }
    }

    /// Adds a constraint; a required one that conflicts is reported (error located at its
    /// string, a note per conflicting constraint) and left out.
    mutating func add(_ c: Constraint, _ origin: ConstraintOrigin) {
        let index = constraints.count
        var c = c
        c.tag = index
        constraints.append(c)
        origins.append(origin)
        do {
            let h = try solver.add(c)
            handles[h] = index
            accepted.append(true)
        } catch {
            accepted.append(false)
            if case .unsatisfiable(let u) = error {
                reportUnsatisfiable(index, conflicting: u.conflicting.compactMap { handles[$0] })
            } else {
                diagnostics.append(.error("constraint '\(origin.text)' on \(tree.describe(origin.node)) could not be added: \(error)",
                                          at: origin.location ?? tree.nodes[origin.node].location))
            }
        }
    }

    func describe(_ k: Int) -> String {
        let o = origins[k]
        var s = "'\(o.text)'"
        if let w = o.written, w != o.text { s += " (from '\(w)')" }
        return s + " on \(tree.describe(o.node))"
    }

    mutating func reportUnsatisfiable(_ k: Int, conflicting: [Int]) {
        let o = origins[k]
        let list = conflicting.map { describe($0) }.joined(separator: ", ")
        let message = "unsatisfiable constraint \(describe(k)): it conflicts with \(list.isEmpty ? "the required constraints above" : list); left out"
        let at = o.location ?? tree.nodes[o.node].location
        diagnostics.append(.error(message, at: at))
        for j in conflicting {
            let c = origins[j]
            let made = c.location == nil ? " (made by the layout pass)" : ""
            diagnostics.append(.note("conflicting: \(describe(j))\(made)", at: c.location ?? tree.nodes[c.node].location))
        }
        findings.append(LayoutFinding(kind: .unsatisfiable, path: tree.nodes[o.node].path, message: message, location: at))
    }

    mutating func solve() { solver.updateVariables() }

    func value(_ node: Int, _ v: FrameVar) -> Double { solver.value(of: Anchors.variable(node, v)) }

    /// The node's frame before rounding.
    func frame(of i: Int) -> Frame {
        Frame(x: value(i, .left), y: value(i, .top), width: value(i, .width), height: value(i, .height))
    }

    /// Nodes whose frame the constraints do not determine: a warning each, located at the node,
    /// naming the undetermined variables.
    func ambiguityFindings(_ tree: LayoutTree) -> (findings: [LayoutFinding], diagnostics: [Diagnostic]) {
        var candidates: [Variable] = []
        for i in 0..<nodeCount { for v in FrameVar.allCases { candidates.append(Anchors.variable(i, v)) } }
        let loose = Set(solver.ambiguousVariables(candidates).map(\.index))
        var findings: [LayoutFinding] = [], diags: [Diagnostic] = []
        for i in 0..<nodeCount {
            let which = FrameVar.allCases.filter { loose.contains(i * 4 + $0.rawValue) }
            if which.isEmpty { continue }
            let names = which.map { "\($0)" }.joined(separator: ", ")
            let message = "ambiguous layout: the constraints do not determine \(names) of \(tree.describe(i))"
            findings.append(LayoutFinding(kind: .ambiguous, path: tree.nodes[i].path, message: message, location: tree.nodes[i].location))
            diags.append(.warning(message, at: tree.nodes[i].location))
        }
        return (findings, diags)
    }

    func export(_ tree: LayoutTree) -> LayoutSystemExport {
        var out = LayoutSystemExport()
        for i in 0..<solver.variableCount { out.variables.append(solver.name(of: Variable(index: i))) }
        for (k, c) in constraints.enumerated() {
            let e = c.expression.reduced()
            out.constraints.append(.init(terms: e.terms.map { .init(variable: $0.variable.index, coefficient: $0.coefficient) },
                                         constant: e.constant, relation: c.relation.rawValue, strength: c.strength,
                                         source: describe(k), accepted: accepted[k]))
        }
        for (i, n) in tree.nodes.enumerated() {
            out.nodes.append(.init(path: n.path, variables: FrameVar.allCases.map { i * 4 + $0.rawValue }))
        }
        return out
    }
}
