import LoomSolver

/// A long stack's children placed along its axis by definition rather than by the solver
/// (docs/layout.md, "Cost"). In the solver's tableau every child's position along the axis is
/// a basic variable whose row holds every earlier child's size: the tableau of a chain of n
/// children has n²/2 cells, and each child's own size constraints pivot through all of them,
/// so laying out a vstack of 1,000 labels took seconds and 3,000 minutes. A stack of more than
/// `StackChains.threshold` children therefore *defines* them instead: child k's start is
///
///     start(k) = base + Σ_{j<k} size(j) + k·gap
///
/// where base is the stack's start, size(j) child j's size along the axis, and gap the spacing
/// (a constant; for equal_spacing the first gap, c₁.start − c₀.start − c₀.size, so child 1's
/// start stays a solver variable). Those variables are not in the solver: every constraint that
/// mentions one is given to the solver with its definition substituted (`expand`), and their
/// values are computed from the definitions after solving (`values`). A fill_equally stack's
/// sizes are defined too: size(k) = size(0).
struct StackChains: Sendable {
    /// Stacks with more children than this are defined; shorter ones are solved exactly as
    /// kiwisolver solves the documented system.
    static let threshold = 100

    struct Chain: Sendable {
        /// The stack's node.
        var stack: Int
        /// The stack's start along its axis (may mention variables an enclosing chain defines).
        var base: LinearExpression
        /// The spacing between children: a constant, or for equal_spacing c₁.start − base − c₀.size.
        var gap: LinearExpression
        /// Each child's start and size variables, in order.
        var starts: [Variable]
        var sizes: [Variable]
    }

    private(set) var chains: [Chain] = []
    /// Per variable index: the chain defining it, or -1; and its place in the chain.
    private var chainOf: [Int32]
    private var place: [Int32]
    /// Per variable index: the variable it equals (fill_equally sizes), or -1.
    private var aliasOf: [Int32]
    private(set) var isEmpty = true

    init(variables: Int) {
        chainOf = [Int32](repeating: -1, count: variables)
        place = [Int32](repeating: 0, count: variables)
        aliasOf = [Int32](repeating: -1, count: variables)
    }

    /// Whether the variable is defined (not a solver variable).
    func isDefined(_ v: Variable) -> Bool { chainOf[v.index] >= 0 || aliasOf[v.index] >= 0 }

    /// Adds a chain; `defined[k]` says whether child k's start is defined by it.
    mutating func add(_ chain: Chain, defined: [Bool]) {
        let id = Int32(chains.count)
        for (k, v) in chain.starts.enumerated() where defined[k] {
            chainOf[v.index] = id
            place[v.index] = Int32(k)
        }
        chains.append(chain)
        isEmpty = false
    }

    /// Defines `v` as equal to `w` (a variable that is not defined itself).
    mutating func alias(_ v: Variable, to w: Variable) {
        aliasOf[v.index] = Int32(w.index)
        isEmpty = false
    }

    /// `e` with every defined variable replaced by its definition, in solver variables only:
    /// terms merged per variable and in variable order (so the solver's `reduced()` keeps it as
    /// it is). References to several children of one chain are combined before the sizes are
    /// written out, so a difference of two starts costs the children between them, not all.
    func expand(_ e: LinearExpression) -> LinearExpression {
        if isEmpty || !e.terms.contains(where: { isDefined($0.variable) }) { return e }
        var coefficients: [Int: Double] = [:]
        var constant = e.constant
        var pending: [Int: [(place: Int, times: Double)]] = [:]
        func add(_ v: Variable, _ a: Double) {
            var i = v.index
            if aliasOf[i] >= 0 { i = Int(aliasOf[i]) }
            if chainOf[i] >= 0 {
                pending[Int(chainOf[i]), default: []].append((Int(place[i]), a))
            } else {
                coefficients[i, default: 0] += a
            }
        }
        func add(_ x: LinearExpression, times a: Double) {
            for t in x.terms { add(t.variable, t.coefficient * a) }
            constant += x.constant * a
        }
        for t in e.terms { add(t.variable, t.coefficient) }
        // A chain's base and gap mention only chains made before it (an enclosing stack's), so
        // taking the latest chain first handles each chain once.
        while let c = pending.keys.max() {
            var refs = pending.removeValue(forKey: c)!
            refs.sort { $0.place < $1.place }
            let chain = chains[c]
            var total = 0.0, weighted = 0.0
            for r in refs {
                total += r.times
                weighted += r.times * Double(r.place)
            }
            if total != 0 { add(chain.base, times: total) }
            if weighted != 0 { add(chain.gap, times: weighted) }
            // size(j) is in start(k) for every k > j: its coefficient is the sum of the
            // references placed after j. Runs where that sum is 0 are skipped.
            var running = total, next = 0, j = 0
            let last = refs[refs.count - 1].place
            while j < last {
                while next < refs.count && refs[next].place <= j {
                    running -= refs[next].times
                    next += 1
                }
                if running == 0 {
                    j = refs[next].place
                    continue
                }
                add(chain.sizes[j], running)
                j += 1
            }
        }
        let terms = coefficients.keys.sorted().compactMap { i -> (variable: Variable, coefficient: Double)? in
            let a = coefficients[i]!
            return a == 0 ? nil : (Variable(index: i), a)
        }
        return LinearExpression(terms, constant: constant)
    }

    /// The variable `v` stands for once aliases are followed (itself when not an alias).
    func resolved(_ v: Variable) -> Variable {
        aliasOf[v.index] >= 0 ? Variable(index: Int(aliasOf[v.index])) : v
    }

    /// The defined starts' values (by variable index; other entries 0), from the solved values
    /// of the solver variables: each chain in order (an enclosing stack's first), child by
    /// child, start(k) = start(k−1) + size(k−1) + gap.
    func values(_ solved: (Variable) -> Double) -> [Double] {
        var out = [Double](repeating: 0, count: chainOf.count)
        func value(_ v: Variable) -> Double {
            let r = resolved(v)
            return chainOf[r.index] >= 0 ? out[r.index] : solved(r)
        }
        func evaluate(_ e: LinearExpression) -> Double {
            var s = e.constant
            for t in e.terms { s += t.coefficient * value(t.variable) }
            return s
        }
        for chain in chains {
            let gap = evaluate(chain.gap)
            var start = evaluate(chain.base)
            for (k, v) in chain.starts.enumerated() {
                if k > 0 { start = start + value(chain.sizes[k - 1]) + gap }
                if chainOf[v.index] >= 0 { out[v.index] = start } else { start = solved(v) }
            }
        }
        return out
    }
}
