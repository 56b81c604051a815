// The solver's tableau and simplex steps: kiwi's substitute, optimize, dualOptimize, entering
// and leaving choices and the artificial-variable phase, over the column-indexed rows.

extension Row {
    /// Replaces `symbol` by `row` (kiwi's Row::substitute); a no-op when the symbol is absent.
    mutating func substitute(_ symbol: Int, _ row: Row, scratch: inout RowScratch, windowFrom: Int = Row.windowFrom) {
        let i = find(symbol)
        guard i >= 0 else { return }
        let c = coeffs[i]
        _ = replace(at: i, with: row, c, scratch: &scratch, windowFrom: windowFrom)
    }
}

extension Solver {
    // MARK: Rows and the column index

    /// Remembers a row's contents before its first change while a journal is open.
    @inline(__always) mutating func touch(_ rid: Int) {
        if journal != nil && !journaled[rid] {
            spend(rows[rid]?.ids.count ?? 1)  // the row is copied at its first change
            journaled[rid] = true
            journal!.append((rid, rows[rid]))
        }
    }

    /// Closes the journal (the changes stay).
    mutating func endJournal() {
        if let j = journal { for (rid, _) in j { journaled[rid] = false } }
        journal = nil
        objective.endJournal()
    }

    /// Notes that row `rid` holds `s`. A column's first entry makes room for four (most
    /// columns hold a few rows), so it is not reallocated at each of its first appends.
    @inline(__always) mutating func addToColumn(_ s: Int, _ rid: Int) {
        if cols[s].capacity == 0 { cols[s].reserveCapacity(4) }
        cols[s].append(rid)
    }

    @inline(__always) mutating func removeFromColumn(_ s: Int, _ rid: Int) {
        spend(cols[s].count)
        if let k = cols[s].firstIndex(of: rid) {
            cols[s].swapAt(k, cols[s].count - 1)
            cols[s].removeLast()
        }
    }

    @inline(__always) mutating func noteConstant(_ rid: Int, _ c: Double) {
        if c < 0 && kinds[rid] != .external { negatives.insert(rid) } else if !negatives.isEmpty { negatives.remove(rid) }
    }

    mutating func setRow(_ rid: Int, _ row: Row) {
        spend(row.ids.count)
        touch(rid)
        rows[rid] = row
        for s in row.ids { addToColumn(s, rid) }
        noteConstant(rid, row.constant)
    }

    mutating func takeRow(_ rid: Int) -> Row {
        touch(rid)
        let r = rows[rid].take()!
        for s in r.ids { removeFromColumn(s, rid) }
        negatives.remove(rid)
        return r
    }

    mutating func addToConstant(_ rid: Int, _ delta: Double) -> Double {
        touch(rid)
        rows[rid]!.constant += delta
        let c = rows[rid]!.constant
        noteConstant(rid, c)
        return c
    }

    /// kiwi's substitute: every row (and the objectives) with `symbol` replaced by `row`; then
    /// every restricted row with a negative constant is pushed as infeasible, in symbol order.
    mutating func substitute(_ symbol: Int, _ row: Row) {
        let holders = cols[symbol]
        cols[symbol] = []
        spend(row.ids.count * 2 + 1)  // the objectives' substitutions
        rowsSubstituted &+= holders.count
        for rid in holders {
            spend(1)
            touch(rid)
            var r = rows[rid].take()!
            let i = r.find(symbol)
            let c = r.coeffs[i]
            let cost: Int
            if r.ids.count >= windowFrom {
                // A long row: through the window (`Row.replace`), the scratch taken out of
                // `self` while the callbacks change `self`.
                var scratch = self.scratch
                self.scratch = RowScratch()
                cost = r.replace(at: i, with: row, c, scratch: &scratch, windowFrom: windowFrom,
                                 added: { addToColumn($0, rid) }, removed: { removeFromColumn($0, rid) })
                self.scratch = scratch
            } else {
                r.ids.remove(at: i)
                r.coeffs.remove(at: i)
                cost = r.insert(row, c, added: { addToColumn($0, rid) }, removed: { removeFromColumn($0, rid) })
            }
            spend(cost)
            noteConstant(rid, r.constant)
            rows[rid] = r
        }
        if !negatives.isEmpty {
            spend(negatives.count)
            infeasible.append(contentsOf: negatives.sorted())
        }
        objective.substitute(symbol, row)
        if artificial != nil { artificial!.substitute(symbol, row, scratch: &self.scratch, windowFrom: windowFrom) }
    }

    mutating func pivot(leaving: Int, entering: Int) {
        pivots &+= 1
        var row = takeRow(leaving)
        row.solve(leaving, for: entering)
        substitute(entering, row)
        setRow(entering, row)
    }

    // MARK: Simplex

    /// kiwi's optimize: primal simplex on the objective (or the artificial one) to its minimum.
    mutating func optimize(artificial useArtificial: Bool) throws(SolverError) {
        while true {
            try checkWork()
            if useArtificial { spend(artificial!.ids.count) }
            let entering = useArtificial ? enteringSymbol(artificial!) : objective.entering()
            if entering == 0 { return }
            spend(cols[entering].count)
            let leaving = leavingRow(entering)
            if leaving == 0 { throw .internalError("The objective is unbounded.") }
            pivot(leaving: leaving, entering: entering)
        }
    }

    /// kiwi's dualOptimize: restores feasibility after suggested values moved constants.
    mutating func dualOptimize() throws(SolverError) {
        while let leaving = infeasible.popLast() {
            try checkWork()
            guard let r = rows[leaving], !nearZero(r.constant), r.constant < 0 else { continue }
            spend(r.ids.count)
            let entering = dualEnteringSymbol(r)
            if entering == 0 { throw .internalError("Dual optimize failed.") }
            pivot(leaving: leaving, entering: entering)
        }
    }

    /// The first non-dummy symbol of the artificial objective with a negative coefficient, or 0
    /// (`Objective.entering()` makes the same choice for the objective).
    func enteringSymbol(_ objective: Row) -> Int {
        for (k, s) in objective.ids.enumerated() where objective.coeffs[k] < 0 && kinds[s] != .dummy { return s }
        return 0
    }

    /// The row's positive non-dummy symbol with the least objective ratio (the first on ties).
    func dualEnteringSymbol(_ row: Row) -> Int {
        var entering = 0
        var ratio = Double.greatestFiniteMagnitude
        for (k, s) in row.ids.enumerated() where row.coeffs[k] > 0 && kinds[s] != .dummy {
            let r = objective.coefficient(for: s) / row.coeffs[k]
            if r < ratio { ratio = r; entering = s }
        }
        return entering
    }

    /// The restricted row with a negative coefficient for `entering` and the least
    /// -constant / coefficient (the lowest symbol on ties, as kiwi's ordered scan), or 0.
    func leavingRow(_ entering: Int) -> Int {
        var ratio = Double.greatestFiniteMagnitude
        var found = 0
        for rid in cols[entering] where kinds[rid] != .external {
            let row = rows[rid]!
            let temp = row.coefficient(for: entering)
            if temp < 0 {
                let r = -row.constant / temp
                if r < ratio || (r == ratio && rid < found) { ratio = r; found = rid }
            }
        }
        return found
    }

    /// kiwi's getMarkerLeavingRow: a restricted row with a negative coefficient and the least
    /// -constant / coefficient, else a restricted row with the least constant / coefficient,
    /// else the last unrestricted row holding the marker.
    func markerLeavingRow(_ marker: Int) -> Int {
        var r1 = Double.greatestFiniteMagnitude, r2 = Double.greatestFiniteMagnitude
        var first = 0, second = 0, third = 0
        for rid in cols[marker] {
            let row = rows[rid]!
            let c = row.coefficient(for: marker)
            if c == 0 { continue }
            if kinds[rid] == .external {
                if rid > third { third = rid }
            } else if c < 0 {
                let r = -row.constant / c
                if r < r1 || (r == r1 && rid < first) { r1 = r; first = rid }
            } else {
                let r = row.constant / c
                if r < r2 || (r == r2 && rid < second) { r2 = r; second = rid }
            }
        }
        return first != 0 ? first : second != 0 ? second : third
    }

    /// kiwi's addWithArtificialVariable. Returns whether the row could be satisfied and the
    /// symbols of the optimized artificial objective (the markers that block it when not).
    mutating func addWithArtificialVariable(_ row: Row) throws(SolverError) -> (Bool, [Int]) {
        let art = newSymbol(.slack)
        setRow(art, row)
        artificial = row
        try optimize(artificial: true)
        let success = nearZero(artificial!.constant)
        let blocking = artificial!.ids
        artificial = nil
        if rows[art] != nil {
            var r = takeRow(art)
            if r.isEmpty { return (success, blocking) }
            guard let entering = r.ids.first(where: { kinds[$0] == .slack || kinds[$0] == .error }) else {
                return (false, blocking)
            }
            r.solve(art, for: entering)
            substitute(entering, r)
            setRow(entering, r)
        }
        for rid in cols[art] {
            touch(rid)
            rows[rid]!.remove(art)
        }
        cols[art] = []
        objective.remove(art)
        return (success, blocking)
    }

    /// Undoes a rejected constraint: journaled rows back, symbols from `tick` on forgotten.
    mutating func rollBack(toSymbols tick: Int, variables: Int) {
        if let j = journal {
            journal = nil
            // The journaled rows out, then their old contents back. Their entries are taken out
            // of each column they touch in one pass per column (not one scan of the column per
            // cell: a rejected constraint can touch thousands of rows that share symbols, each
            // column thousands long). `journaled` marks those rows until then. Column order
            // does not matter to any reader.
            // The symbols are gathered, sorted and their repeats skipped: O(k log k) for the k
            // cells of the journaled rows (no scratch array kept per symbol for a rare path).
            var symbols: [Int] = []
            for (rid, old) in j {
                if let r = rows[rid].take() {
                    spend(r.ids.count)
                    symbols.append(contentsOf: r.ids)
                    negatives.remove(rid)
                }
                if let old {
                    spend(old.ids.count)
                    symbols.append(contentsOf: old.ids)
                }
            }
            symbols.sort()
            var previous = -1
            for s in symbols where s != previous {
                previous = s
                spend(cols[s].count)
                cols[s].removeAll { journaled[$0] }
            }
            for (rid, _) in j { journaled[rid] = false }
            for (rid, old) in j { if let old { setRow(rid, old) } }
        }
        kinds.removeSubrange(tick...)
        rows.removeSubrange(tick...)
        cols.removeSubrange(tick...)
        owner.removeSubrange(tick...)
        journaled.removeSubrange(tick...)
        for i in 0..<variables where symbolOf[i] >= tick { symbolOf[i] = 0 }
        objective.rollBack(toSymbols: tick)
    }
}
