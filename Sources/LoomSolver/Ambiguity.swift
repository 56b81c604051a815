// Ambiguity: which variables the solver's constraints do not determine uniquely.

extension Solver {
    /// The variables (of `candidates`) whose value is not unique: another assignment satisfies
    /// the constraints equally well (same error at every strength).
    ///
    /// Method (perturbation, on one copy of the solver, so this solver is untouched): for each
    /// variable in turn, an edit variable of strength `probe` (1e-5, far below `weak` = 1) is added and
    /// the value suggested 1,000 above and then 1,000 below the solved one. So tiny a strength
    /// cannot trade against any real constraint's error, so the variable moves only along the
    /// set of optimal solutions; if it moves (by more than `tolerance`) in either direction it
    /// is ambiguous; the edit is removed before the next variable (a determined variable keeps its
    /// value whatever optimal basis the copy ends in). Variables the tableau shows to be pinned
    /// skip the probe: a basic variable whose row holds only dummy symbols (always 0) and
    /// restricted symbols with a positive objective coefficient (0 in every optimal solution)
    /// has one value. An edit variable counts as pinned by its suggestion. A variable that only appears in constraints rejected as unsatisfiable, or
    /// in none, is ambiguous too (nothing pins it).
    public func ambiguousVariables(_ candidates: [Variable], tolerance: Double = 1e-6, probe: Double = 1e-5) -> [Variable] {
        var work = self
        work.updateVariables()
        var out: [Variable] = []
        for v in candidates {
            if work.symbolOf[v.index] == 0 {
                out.append(v)
                continue
            }
            if work.hasEditVariable(v) || work.isPinned(work.symbolOf[v.index]) { continue }
            let value = work[v]
            do {
                try work.addEditVariable(v, strength: probe)
                var moved = false
                for target in [value + 1000, value - 1000] {
                    try work.suggestValue(v, target)
                    work.updateVariables()
                    if abs(work[v] - value) > tolerance { moved = true; break }
                }
                if moved { out.append(v) }
                try work.removeEditVariable(v)
                work.updateVariables()
            } catch {
                out.append(v)
            }
        }
        return out
    }

    /// Whether a variable's symbol has the same value in every optimal solution, as the current
    /// tableau shows it (a sufficient test; the probe decides the rest).
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
