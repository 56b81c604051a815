// Ambiguity: which variables the solver's constraints do not determine uniquely.

extension Solver {
    /// The variables (of `candidates`) whose value is not unique: another assignment satisfies
    /// the constraints equally well (same error at every strength). `ambiguity(_:…)`'s
    /// variables; see there.
    public func ambiguousVariables(_ candidates: [Variable], tolerance: Double = 1e-6, probe: Double = 1e-5,
                                   maxProbes: Int = 64) -> [Variable] {
        ambiguity(candidates, tolerance: tolerance, probe: probe, maxProbes: maxProbes).variables
    }

    /// What `ambiguity(_:…)` found: the ambiguous variables (in the candidates' order), how many
    /// the tableau could not decide, how many of those were probed, and how many were not
    /// (the probe budget was spent): those are among `variables`, reported ambiguous because
    /// they were not shown to be determined.
    public struct AmbiguityReport: Sendable, Equatable {
        public var variables: [Variable]
        public var undecided: Int
        public var probed: Int
        public var unprobed: Int { undecided - probed }
    }

    /// The variables (of `candidates`) whose value is not unique, read off the optimal tableau
    /// (linear in the tableau's size, so a screen of thousands of views is checked in
    /// milliseconds):
    /// - a variable that appears in no accepted constraint is ambiguous (nothing pins it);
    /// - an edit variable is pinned by its suggestion;
    /// - a *free* symbol is a parametric (non-basic) one that can move without changing the
    ///   objective and without making a restricted row negative: an external variable, or a
    ///   slack or error symbol with a zero objective coefficient (either has reduced cost 0 at
    ///   the optimum), unless every direction it may move in is blocked by a degenerate
    ///   restricted row (constant 0) that the move would make negative;
    /// - a parametric variable is ambiguous when its own symbol is free; a basic variable when
    ///   its row holds a free symbol (moving that symbol moves it and keeps the optimum).
    /// When only blocked symbols could move a variable (a degenerate vertex), the tableau does
    /// not tell; such variables are decided by perturbation, on one copy of the solver: an edit
    /// variable of strength `probe` (1e-5, far below `weak` = 1) suggests the value 1,000 above
    /// and then below the solved one; if it moves by more than `tolerance` it is ambiguous.
    /// The probes are budgeted: at most `maxProbes` (each costs a re-solve); beyond that the
    /// undecided variables are reported ambiguous (not shown to be determined) and counted in
    /// the report's `unprobed`, so a caller can say so.
    public func ambiguity(_ candidates: [Variable], tolerance: Double = 1e-6, probe: Double = 1e-5,
                          maxProbes: Int = 64) -> AmbiguityReport {
        var out: [Variable] = []
        var undecided: [Variable] = []
        var freeCache = [Freedom?](repeating: nil, count: kinds.count)
        func freedom(_ s: Int) -> Freedom {
            if let f = freeCache[s] { return f }
            let f = self.freedom(of: s)
            freeCache[s] = f
            return f
        }
        for v in candidates {
            let sym = symbolOf[v.index]
            if sym == 0 {
                out.append(v)
                continue
            }
            if edits[v.index] != nil { continue }
            guard let row = rows[sym] else {
                // Parametric: its own symbol moves or it does not.
                switch freedom(sym) {
                case .free: out.append(v)
                case .fixed: break
                case .blocked: undecided.append(v)
                }
                continue
            }
            var verdict = Freedom.fixed
            for (k, s) in row.ids.enumerated() where !nearZero(row.coeffs[k]) {
                switch freedom(s) {
                case .free: verdict = .free
                case .blocked: if verdict == .fixed { verdict = .blocked }
                case .fixed: break
                }
                if verdict == .free { break }
            }
            switch verdict {
            case .free: out.append(v)
            case .fixed: break
            case .blocked: undecided.append(v)
            }
        }
        if undecided.isEmpty { return AmbiguityReport(variables: out, undecided: 0, probed: 0) }
        var probed: [Int: Bool] = [:]
        var work = self
        work.updateVariables()
        var count = 0
        for v in undecided {
            // Past the budget (the count, or the solver's work limit, which the copy shares):
            // reported ambiguous, not probed.
            guard count < maxProbes, work.work <= work.workLimit else {
                probed[v.index] = true
                continue
            }
            count += 1
            probed[v.index] = work.moves(v, tolerance: tolerance, probe: probe)
        }
        // In the candidates' order.
        let ambiguous = Set(out.map(\.index)).union(probed.filter(\.value).map(\.key))
        return AmbiguityReport(variables: candidates.filter { ambiguous.contains($0.index) }, undecided: undecided.count,
                               probed: count)
    }

    /// Reads whether linear combinations of variables are determined, the way `ambiguity(_:…)`
    /// reads a variable, for a caller that keeps some quantities out of the solver and writes
    /// them as sums of solver variables (the layout pass's long stacks: a child's position is
    /// the stack's start plus the sizes before it). `add` accumulates a combination symbol by
    /// symbol (each variable's basic row, or its own symbol when it is parametric); `verdict`
    /// tells whether the sum holds a free symbol (ambiguous), only blocked ones (undecided: to
    /// be probed with `Solver.moves(_:…)` on an expression), or neither (determined). Adding a
    /// term costs the size of its variable's row, so the positions of a chain of n children,
    /// read one after another, cost O(n) rows in all.
    public struct CombinationReader: Sendable {
        public enum Verdict: Sendable { case determined, ambiguous, undecided }

        let solver: Solver
        private var sums: [Double]
        private var isTouched: [Bool]
        private var touched: [Int] = []
        private var freedom: [Freedom?]
        private var free = 0, blocked = 0
        /// Variables in no accepted constraint (no symbol): each moves freely.
        private var loose: [Int: Double] = [:]
        private var looseNonzero = 0

        public init(_ solver: Solver) {
            self.solver = solver
            sums = [Double](repeating: 0, count: solver.kinds.count)
            isTouched = [Bool](repeating: false, count: solver.kinds.count)
            freedom = [Freedom?](repeating: nil, count: solver.kinds.count)
        }

        /// Starts a new sum.
        public mutating func reset() {
            for s in touched {
                sums[s] = 0
                isTouched[s] = false
            }
            touched.removeAll(keepingCapacity: true)
            free = 0
            blocked = 0
            loose.removeAll()
            looseNonzero = 0
        }

        /// Adds `times × e` (its constant does not matter).
        public mutating func add(_ e: LinearExpression, times: Double = 1) {
            for t in e.terms where t.coefficient != 0 {
                let a = t.coefficient * times
                let v = t.variable.index
                let sym = v < solver.symbolOf.count ? solver.symbolOf[v] : 0
                if sym == 0 {
                    let old = loose[v] ?? 0, new = old + a
                    loose[v] = new
                    looseNonzero += (nearZero(new) ? 0 : 1) - (nearZero(old) ? 0 : 1)
                    continue
                }
                if solver.edits[v] != nil { continue }  // pinned by its suggestion
                if let row = solver.rows[sym] {
                    for (k, s) in row.ids.enumerated() { bump(s, row.coeffs[k] * a) }
                } else {
                    bump(sym, a)
                }
            }
        }

        private mutating func bump(_ s: Int, _ a: Double) {
            let old = sums[s], new = old + a
            if !isTouched[s] {
                isTouched[s] = true
                touched.append(s)
            }
            sums[s] = new
            let was = !nearZero(old), now = !nearZero(new)
            if was == now { return }
            let f: Freedom
            if let known = freedom[s] { f = known } else {
                f = solver.freedom(of: s)
                freedom[s] = f
            }
            let step = now ? 1 : -1
            switch f {
            case .free: free += step
            case .blocked: blocked += step
            case .fixed: break
            }
        }

        public var verdict: Verdict {
            if free > 0 || looseNonzero > 0 { return .ambiguous }
            return blocked > 0 ? .undecided : .determined
        }
    }

    /// The probe of `moves(_:tolerance:probe:)` for a linear combination: a fresh variable
    /// required to equal `e` is probed (and left in this copy). True when it moves.
    public mutating func moves(_ e: LinearExpression, tolerance: Double = 1e-6, probe: Double = 1e-5) -> Bool {
        let z = makeVariable()
        do {
            try add(Constraint(LinearExpression(z) - e, .equal))
        } catch {
            return true
        }
        updateVariables()
        return moves(z, tolerance: tolerance, probe: probe)
    }

    /// The same answer by perturbation alone, every candidate probed (one re-solve each: slow on
    /// big systems). Kept as the reference the tableau reading is tested against.
    public func ambiguousVariablesByProbing(_ candidates: [Variable], tolerance: Double = 1e-6, probe: Double = 1e-5) -> [Variable] {
        var work = self
        work.updateVariables()
        var out: [Variable] = []
        for v in candidates {
            if work.symbolOf[v.index] == 0 {
                out.append(v)
                continue
            }
            if work.hasEditVariable(v) || work.isPinned(work.symbolOf[v.index]) { continue }
            if work.moves(v, tolerance: tolerance, probe: probe) { out.append(v) }
        }
        return out
    }

    /// The perturbation probe: a `probe`-strength edit pulls `v` 1,000 above and then below its
    /// solved value; true when it moves by more than `tolerance` (or the probe cannot be made).
    /// The edit is removed again.
    mutating func moves(_ v: Variable, tolerance: Double, probe: Double) -> Bool {
        let value = self[v]
        do {
            try addEditVariable(v, strength: probe)
            var moved = false
            for target in [value + 1000, value - 1000] {
                try suggestValue(v, target)
                updateVariables()
                if abs(self[v] - value) > tolerance { moved = true; break }
            }
            try removeEditVariable(v)
            updateVariables()
            return moved
        } catch {
            return true
        }
    }

    enum Freedom { case free, fixed, blocked }

    /// Whether a parametric symbol can move at the optimum (see `ambiguousVariables`).
    func freedom(of s: Int) -> Freedom {
        guard rows[s] == nil else { return .fixed }  // basic: not a parameter
        let kind = kinds[s]
        if kind == .dummy || kind == .invalid { return .fixed }
        // A restricted symbol (≥ 0) with a positive reduced cost stays at 0.
        let restricted = kind == .slack || kind == .error
        let cost = objective.coefficient(for: s)
        if !nearZero(cost) { return .fixed }
        // Directions it may move in: up always; down only when unrestricted.
        var upBlocked = false, downBlocked = false
        for rid in cols[s] {
            guard let r = rows[rid] else { continue }
            let rk = kinds[rid]
            guard rk == .slack || rk == .error, nearZero(r.constant) else { continue }
            let c = r.coefficient(for: s)
            if c < 0 && !nearZero(c) { upBlocked = true }
            if c > 0 && !nearZero(c) { downBlocked = true }
            if upBlocked && (downBlocked || restricted) { break }
        }
        if restricted { return upBlocked ? .blocked : .free }
        return upBlocked && downBlocked ? .blocked : .free
    }

    /// Whether a variable's symbol has the same value in every optimal solution, as the current
    /// tableau shows it (a sufficient test).
    func isPinned(_ symbol: Int) -> Bool {
        guard let row = rows[symbol] else { return false }
        for s in row.ids {
            switch kinds[s] {
            case .dummy: continue
            case .slack, .error: if objective.coefficient(for: s) > 0 { continue } else { return false }
            default: return false
            }
        }
        return true
    }
}
