import LoomSolver

/// Frame variables the layout pass defines instead of solving, in a layout whose stacks hold
/// many children (docs/layout.md, "Cost").
///
/// Why: in the solver's tableau each child's position along a stack is a basic variable whose
/// row holds every earlier child's size, so a chain of n children makes n²/2 cells, and each
/// child's own size constraints pivot through all of them: a vstack of 1,000 labels took
/// seconds to lay out and 3,000 minutes. A layout whose stacks hold more than
/// `Definitions.threshold` children in all therefore *defines* the positions its stacks give
/// their children:
///
/// - along a stack's axis, child k's start is `base + Σ_{j<k} size(j) + k·gap` (a `Chain`):
///   base is the stack's start, size(j) child j's size along the axis, gap the spacing (for
///   equal_spacing the first gap, c₁.start − c₀.start − c₀.size, child 1's start staying a
///   solver variable);
/// - across it, a child's start is the stack's start (fill, leading), the stack's end minus
///   the child's size (trailing) or centred (center): an `expression`.
///
/// Those variables are not in the solver. Every constraint that mentions one is given to the
/// solver with its definition written out (`expand`); their values are computed from the
/// definitions after solving (`values`), in the order they were made.
struct Definitions: Sendable {
    /// Layouts whose stacks hold more children than this in all use definitions; the others are
    /// solved exactly as kiwisolver solves the documented system.
    static let threshold = 100

    struct Chain: Sendable {
        /// The stack's start along its axis (may mention defined variables made before).
        var base: LinearExpression
        /// The spacing between children: a constant, or for equal_spacing c₁.start − base − c₀.size.
        var gap: LinearExpression
        /// Each child's start and size variables, in order.
        var starts: [Variable]
        var sizes: [Variable]
    }

    /// A definition, in the order they were made (an enclosing stack's first).
    enum Made: Sendable {
        case chain(Chain)
        case expression(Variable, LinearExpression)
    }
    private(set) var made: [Made] = []
    /// Per variable index: the chain (index in `made`) defining it, or -1; its place in it.
    private var chainOf: [Int32]
    private var place: [Int32]
    /// Per variable index: the expression (index in `made`) defining it, or -1.
    private var expressionOf: [Int32]
    /// Variables mentioned by a constraint or a definition so far: only a fresh variable (one
    /// nothing mentions yet) may be defined, so every definition mentions only variables that
    /// stay what they are, and `made` is an order in which they can be evaluated.
    private var mentioned: [Bool]
    private(set) var isEmpty = true

    init(variables: Int) {
        chainOf = [Int32](repeating: -1, count: variables)
        place = [Int32](repeating: 0, count: variables)
        expressionOf = [Int32](repeating: -1, count: variables)
        mentioned = [Bool](repeating: false, count: variables)
    }

    /// Whether the variable is defined (not a solver variable).
    func isDefined(_ v: Variable) -> Bool { chainOf[v.index] >= 0 || expressionOf[v.index] >= 0 }

    func isFresh(_ v: Variable) -> Bool { !mentioned[v.index] }

    /// Notes that a constraint mentions these variables.
    mutating func mention(_ e: LinearExpression) {
        for t in e.terms { mentioned[t.variable.index] = true }
    }

    /// Adds a chain; `defines[k]` says whether it defines child k's start (each such start
    /// must be fresh).
    mutating func add(_ chain: Chain, defines: [Bool]) {
        let id = Int32(made.count)
        mention(chain.base)
        mention(chain.gap)
        for v in chain.sizes { mentioned[v.index] = true }
        for (k, v) in chain.starts.enumerated() {
            mentioned[v.index] = true
            if defines[k] {
                chainOf[v.index] = id
                place[v.index] = Int32(k)
            }
        }
        made.append(.chain(chain))
        isEmpty = false
    }

    /// Defines the fresh variable `v` as `e` (which must not mention `v`).
    mutating func define(_ v: Variable, as e: LinearExpression) {
        mention(e)
        mentioned[v.index] = true
        expressionOf[v.index] = Int32(made.count)
        made.append(.expression(v, e))
        isEmpty = false
    }

    /// `e` with every defined variable replaced by its definition, in solver variables only:
    /// terms merged per variable and in variable order (so the solver's `reduced()` keeps it as
    /// it is). References to several children of one chain are combined before its sizes are
    /// written out, so the difference of two starts costs the children between them, and the
    /// same start on both sides of a constraint cancels without being written out.
    func expand(_ e: LinearExpression) -> LinearExpression {
        if isEmpty || !e.terms.contains(where: { isDefined($0.variable) }) { return e }
        var coefficients: [Int: Double] = [:]
        var constant = e.constant
        var pending: [Int: [(place: Int, times: Double)]] = [:]
        // Expressions are written out at once (iteratively: no recursion depth from the
        // input); chain references wait in `pending` to be combined.
        var work: [(Variable, Double)] = e.terms.map { ($0.variable, $0.coefficient) }
        func drain() {
            while let (v, a) = work.popLast() {
                let i = v.index
                if expressionOf[i] >= 0, case .expression(_, let x) = made[Int(expressionOf[i])] {
                    for t in x.terms { work.append((t.variable, t.coefficient * a)) }
                    constant += x.constant * a
                } else if chainOf[i] >= 0 {
                    pending[Int(chainOf[i]), default: []].append((Int(place[i]), a))
                } else {
                    coefficients[i, default: 0] += a
                }
            }
        }
        func add(_ x: LinearExpression, times a: Double) {
            for t in x.terms { work.append((t.variable, t.coefficient * a)) }
            constant += x.constant * a
        }
        drain()
        // A chain's base and gap mention only definitions made before it, so taking the latest
        // chain first handles each chain once.
        while let c = pending.keys.max() {
            var refs = pending.removeValue(forKey: c)!
            refs.sort { $0.place < $1.place }
            guard case .chain(let chain) = made[c] else { continue }
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
                work.append((chain.sizes[j], running))
                j += 1
            }
            drain()
        }
        var terms: [(variable: Variable, coefficient: Double)] = []
        terms.reserveCapacity(coefficients.count)
        for i in coefficients.keys.sorted() where coefficients[i]! != 0 {
            terms.append((Variable(index: i), coefficients[i]!))
        }
        return LinearExpression(terms, constant: constant)
    }

    /// The defined variables' values (by variable index; other entries 0), from the solved
    /// values of the solver variables, definition by definition in the order they were made:
    /// a chain child by child, start(k) = start(k−1) + size(k−1) + gap.
    func values(_ solved: (Variable) -> Double) -> [Double] {
        var out = [Double](repeating: 0, count: chainOf.count)
        func value(_ v: Variable) -> Double { isDefined(v) ? out[v.index] : solved(v) }
        func evaluate(_ e: LinearExpression) -> Double {
            var s = e.constant
            for t in e.terms { s += t.coefficient * value(t.variable) }
            return s
        }
        for m in made {
            switch m {
            case .chain(let chain):
                let gap = evaluate(chain.gap)
                var start = evaluate(chain.base)
                for (k, v) in chain.starts.enumerated() {
                    if k > 0 { start = start + value(chain.sizes[k - 1]) + gap }
                    if chainOf[v.index] >= 0 { out[v.index] = start } else { start = solved(v) }
                }
            case .expression(let v, let e):
                out[v.index] = evaluate(e)
            }
        }
        return out
    }
}
