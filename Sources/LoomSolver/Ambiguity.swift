// Ambiguity: which variables the solver's constraints do not determine uniquely.

extension Solver {
    /// The variables (of `candidates`) whose value is not unique: another assignment satisfies
    /// the constraints equally well (same error at every strength).
    ///
    /// Method, read off the optimal tableau (linear in the tableau's size, so a screen of
    /// thousands of views is checked in milliseconds):
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
    /// and then below the solved one; if it moves by more than `tolerance` it is ambiguous. At
    /// most `maxProbes` are probed (each costs a re-solve); beyond that the undecided variables
    /// are reported ambiguous (not determined with certainty), so the check stays fast and
    /// fails towards a warning.
    public func ambiguousVariables(_ candidates: [Variable], tolerance: Double = 1e-6, probe: Double = 1e-5,
                                   maxProbes: Int = 64) -> [Variable] {
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
        if undecided.isEmpty { return out }
        var probed: [Int: Bool] = [:]
        var work = self
        work.updateVariables()
        for (n, v) in undecided.enumerated() {
            guard n < maxProbes else {
                probed[v.index] = true
                continue
            }
            probed[v.index] = work.moves(v, tolerance: tolerance, probe: probe)
        }
        // In the candidates' order.
        let ambiguous = Set(out.map(\.index)).union(probed.filter(\.value).map(\.key))
        return candidates.filter { ambiguous.contains($0.index) }
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
