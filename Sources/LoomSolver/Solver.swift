// A Cassowary constraint solver: kiwi's incremental simplex (nucleic/kiwi, solverimpl.h)
// written by hand in Swift — no Swift package for Cassowary is available on these machines.
// It follows kiwi step by step (same symbol ids, same subject, entering and leaving choices,
// same arithmetic) so it gives kiwisolver's values even where a system is underdetermined;
// Tests/LoomSolverTests compares the two on generated systems (docs/layout.md).
//
// Differences from kiwi, all on paths kiwi reports as errors: a constraint rejected as
// unsatisfiable leaves no trace (kiwi keeps its symbols and, on the artificial-variable path,
// part of its row), and the error names the required constraints it conflicts with.
// Storage: symbols are Ints indexing contiguous arrays (kind, basic row, column index of the
// rows that hold the symbol), so a pivot touches only the rows that contain the symbol.

/// A constraint added to a solver: what `remove` takes and conflicts name.
public struct ConstraintHandle: Hashable, Sendable, CustomStringConvertible {
    public let id: Int
    public var description: String { "c\(id)" }
}

public struct UnsatisfiableConstraint: Error, Sendable, Equatable {
    /// The rejected constraint (the solver goes on without it).
    public var constraint: Constraint
    /// Required constraints already in the solver that it contradicts, in the order they were
    /// added: those whose markers bound the infeasibility (see docs/layout.md).
    public var conflicting: [ConstraintHandle]
}

public enum SolverError: Error, Sendable, Equatable {
    case unsatisfiable(UnsatisfiableConstraint)
    case unknownConstraint(ConstraintHandle)
    case duplicateEditVariable(Variable)
    case unknownEditVariable(Variable)
    /// Edit variables must be weaker than required.
    case badRequiredStrength
    /// The tableau reached a state kiwi calls an internal error (an unbounded objective).
    case internalError(String)
    /// The solver's work passed `Solver.workLimit`: it stopped between two pivots (every
    /// constraint accepted so far holds at the current values; the objective is not optimal).
    case workLimitExceeded(Int)
    /// `Solver.shouldStop` said so (a `host serve` request past its deadline): it stopped
    /// between two pivots, as for `workLimitExceeded`.
    case stopped
}

public struct Solver: Sendable {
    // Symbols: index = symbol id (0 is kiwi's invalid symbol).
    enum Kind: UInt8 { case invalid, external, slack, error, dummy }
    var kinds: [Kind] = [.invalid]
    /// The row of each basic symbol.
    var rows: [Row?] = [nil]
    /// For each symbol, the basic symbols whose rows contain it (unordered).
    var cols: [[Int]] = [[]]
    var objective = Objective()
    var artificial: Row?
    /// `Row.replace`'s reusable arrays.
    var scratch = RowScratch()
    /// Rows at least this long are substituted through `Row.replace`'s window (`Row.windowFrom`);
    /// settable within the package so tests can compare with the plain path (`Int.max`).
    package var windowFrom = Row.windowFrom
    package static let defaultWindowFrom = Row.windowFrom
    /// kiwi's m_infeasible_rows (a stack, duplicates allowed).
    var infeasible: [Int] = []
    /// Restricted basic rows whose constant is negative (kiwi pushes them at every substitution).
    var negatives = Set<Int>()
    /// Rows changed since a journal started (their previous contents, first change first), for
    /// rollback; `journaled` marks the symbols whose row is in it.
    var journal: [(Int, Row?)]?
    var journaled: [Bool] = [false]

    // Variables: index = Variable.index.
    var names: [String] = []
    var symbolOf: [Int] = []
    var values: [Double] = []

    struct Record: Sendable {
        var constraint: Constraint
        var marker: Int
        var other: Int
    }
    /// By constraint id (ids are handed out 0, 1, 2…); nil once removed.
    var records: [Record?] = []
    var liveConstraints = 0
    /// The constraint id owning each marker symbol, by symbol id; -1 for none.
    var owner: [Int] = [-1]
    var nextConstraint = 0

    struct Edit: Sendable {
        var handle: ConstraintHandle
        var marker: Int
        var other: Int
        var constant: Double
    }
    var edits: [Int: Edit] = [:]

    /// The work done so far, in steps of roughly constant cost: cells of rows visited, merged,
    /// moved or copied, column entries scanned, variables updated. It grows with every
    /// operation and is never reset; it is the same for the same calls on any machine.
    public private(set) var work = 0
    /// Pivots made, and rows a pivot's substitution changed, so far (never reset).
    public internal(set) var pivots = 0
    public internal(set) var rowsSubstituted = 0
    /// When `work` passes it, `add`, `remove` and `suggestValue` throw `.workLimitExceeded` at
    /// the next pivot (and every call after that). No limit by default.
    public var workLimit = Int.max
    /// Asked at every pivot when set: true stops the solver there (`.stopped`), so that one
    /// long `add` cannot outlive a deadline the caller has (LoomSolver knows no clock).
    public var shouldStop: (@Sendable () -> Bool)? { didSet { asksToStop = shouldStop != nil } }
    /// `shouldStop != nil`, read first at every pivot: the closure is copied (retained and
    /// released) only when there is one.
    var asksToStop = false

    public init() {}

    /// Counts `steps` of work (see `work`).
    @inline(__always) mutating func spend(_ steps: Int) { work &+= steps }

    /// Throws once the work has passed the limit.
    @inline(__always) func checkWork() throws(SolverError) {
        if work > workLimit { throw .workLimitExceeded(workLimit) }
        if asksToStop, let shouldStop, shouldStop() { throw .stopped }
    }

    // MARK: Variables

    public mutating func makeVariable(named name: String = "") -> Variable {
        names.append(name)
        symbolOf.append(0)
        values.append(0)
        return Variable(index: names.count - 1)
    }

    public func name(of v: Variable) -> String { names[v.index] }
    /// Every variable's name, by index.
    public var variableNames: [String] { names }
    public var variableCount: Int { names.count }

    /// The value `updateVariables()` last gave the variable (0 before).
    public func value(of v: Variable) -> Double { values[v.index] }
    public subscript(_ v: Variable) -> Double { values[v.index] }

    /// kiwi's updateVariables: each variable the solver has seen takes its basic row's constant,
    /// or 0 when it is not basic.
    public mutating func updateVariables() {
        spend(symbolOf.count)
        for i in 0..<symbolOf.count {
            let s = symbolOf[i]
            if s != 0 { values[i] = rows[s]?.constant ?? 0 }
        }
    }

    // MARK: Constraints

    /// Adds a constraint (kiwi's addConstraint). A required constraint that cannot be satisfied
    /// throws `.unsatisfiable`, and the solver is left exactly as before the call.
    @discardableResult
    public mutating func add(_ constraint: Constraint) throws(SolverError) -> ConstraintHandle {
        try checkWork()
        let tick = kinds.count
        let variables = names.count
        var (row, marker, other) = createRow(constraint)
        var subject = chooseSubject(row, marker, other)
        if subject == 0 && row.ids.allSatisfy({ kinds[$0] == .dummy }) {
            if !nearZero(row.constant) {
                let conflict = conflicts(in: row.ids)
                rollBack(toSymbols: tick, variables: variables)
                throw .unsatisfiable(UnsatisfiableConstraint(constraint: constraint, conflicting: conflict))
            }
            subject = marker
        }
        if subject == 0 {
            let savedInfeasible = infeasible
            journal = []
            objective.startJournal()
            let ok: Bool, blocking: [Int]
            do { (ok, blocking) = try addWithArtificialVariable(row) } catch {
                endJournal()
                throw error
            }
            if !ok {
                infeasible = savedInfeasible
                rollBack(toSymbols: tick, variables: variables)
                throw .unsatisfiable(UnsatisfiableConstraint(constraint: constraint, conflicting: conflicts(in: blocking)))
            }
            endJournal()
        } else {
            row.solve(for: subject)
            substitute(subject, row)
            setRow(subject, row)
        }
        let id = nextConstraint
        nextConstraint += 1
        records.append(Record(constraint: constraint, marker: marker, other: other))
        liveConstraints += 1
        owner[marker] = id
        if other != 0 { owner[other] = id }
        try optimize(artificial: false)
        return ConstraintHandle(id: id)
    }

    /// Removes a constraint (kiwi's removeConstraint).
    public mutating func remove(_ handle: ConstraintHandle) throws(SolverError) {
        try checkWork()
        guard let rec = record(handle) else { throw .unknownConstraint(handle) }
        records[handle.id] = nil
        liveConstraints -= 1
        owner[rec.marker] = -1
        if rec.other != 0 { owner[rec.other] = -1 }
        // Remove the error effects from the objective before pivoting.
        for m in [rec.marker, rec.other] where m != 0 && kinds[m] == .error {
            if let r = rows[m] { objective.insert(r, -rec.constraint.strength) } else { objective.insert(m, -rec.constraint.strength) }
        }
        if rows[rec.marker] != nil {
            _ = takeRow(rec.marker)
        } else {
            spend(cols[rec.marker].count)
            let leaving = markerLeavingRow(rec.marker)
            if leaving == 0 { throw .internalError("failed to find leaving row") }
            var row = takeRow(leaving)
            row.solve(leaving, for: rec.marker)
            substitute(rec.marker, row)
        }
        try optimize(artificial: false)
    }

    func record(_ handle: ConstraintHandle) -> Record? {
        handle.id >= 0 && handle.id < records.count ? records[handle.id] : nil
    }

    public func contains(_ handle: ConstraintHandle) -> Bool { record(handle) != nil }

    /// The constraint behind a handle, while it is in the solver.
    public func constraint(_ handle: ConstraintHandle) -> Constraint? { record(handle)?.constraint }

    public var constraintCount: Int { liveConstraints }

    // MARK: Edit variables

    /// kiwi's addEditVariable: `variable == suggested value` at `strength` (below required).
    public mutating func addEditVariable(_ v: Variable, strength: Double) throws(SolverError) {
        if edits[v.index] != nil { throw .duplicateEditVariable(v) }
        let s = Strength.clip(strength)
        if s == Strength.required { throw .badRequiredStrength }
        let handle = try add(Constraint(LinearExpression(v), .equal, strength: s))
        let rec = records[handle.id]!
        edits[v.index] = Edit(handle: handle, marker: rec.marker, other: rec.other, constant: 0)
    }

    public mutating func removeEditVariable(_ v: Variable) throws(SolverError) {
        guard let e = edits[v.index] else { throw .unknownEditVariable(v) }
        try remove(e.handle)
        edits[v.index] = nil
    }

    public func hasEditVariable(_ v: Variable) -> Bool { edits[v.index] != nil }

    /// kiwi's suggestValue, then its dual optimization.
    public mutating func suggestValue(_ v: Variable, _ value: Double) throws(SolverError) {
        guard var info = edits[v.index] else { throw .unknownEditVariable(v) }
        try checkWork()
        let delta = value - info.constant
        info.constant = value
        edits[v.index] = info
        if rows[info.marker] != nil {
            if addToConstant(info.marker, -delta) < 0 { infeasible.append(info.marker) }
        } else if rows[info.other] != nil {
            if addToConstant(info.other, delta) < 0 { infeasible.append(info.other) }
        } else {
            spend(cols[info.marker].count)
            for rid in cols[info.marker].sorted() {
                let coeff = rows[rid]!.coefficient(for: info.marker)
                if coeff != 0 && addToConstant(rid, delta * coeff) < 0 && kinds[rid] != .external {
                    infeasible.append(rid)
                }
            }
        }
        try dualOptimize()
    }

    /// Makes room for `constraints` more constraints: their records and symbols (at most three
    /// each: marker, other, an artificial one) besides one per variable, so the storage is not
    /// copied as it grows. Changes nothing else.
    public mutating func reserveCapacity(constraints n: Int) {
        let symbols = kinds.count + names.count + 3 * n
        kinds.reserveCapacity(symbols)
        rows.reserveCapacity(symbols)
        cols.reserveCapacity(symbols)
        owner.reserveCapacity(symbols)
        journaled.reserveCapacity(symbols)
        objective.reserveCapacity(symbols)
        records.reserveCapacity(records.count + n)
    }

    // MARK: Building rows

    mutating func newSymbol(_ kind: Kind) -> Int {
        kinds.append(kind)
        rows.append(nil)
        cols.append([])
        objective.grow(canEnter: kind != .dummy)
        owner.append(-1)
        journaled.append(false)
        return kinds.count - 1
    }

    mutating func symbol(for v: Variable) -> Int {
        let s = symbolOf[v.index]
        if s != 0 { return s }
        let n = newSymbol(.external)
        symbolOf[v.index] = n
        return n
    }

    /// kiwi's createRow: basic variables substituted, then slack / error / dummy symbols; the
    /// constant made non-negative. Returns the row, the marker and the other tag symbol.
    mutating func createRow(_ c: Constraint) -> (Row, Int, Int) {
        let expr = c.expression.reduced()
        var row = Row(constant: expr.constant)
        row.ids.reserveCapacity(expr.terms.count + 2)
        row.coeffs.reserveCapacity(expr.terms.count + 2)
        spend(expr.terms.count)
        for t in expr.terms where !nearZero(t.coefficient) {
            let s = symbol(for: t.variable)
            if let basic = rows[s] { spend(row.insert(basic, t.coefficient)) } else { spend(row.ids.count); row.insert(s, t.coefficient) }
        }
        var marker = 0, other = 0
        switch c.relation {
        case .lessOrEqual, .greaterOrEqual:
            let coeff = c.relation == .lessOrEqual ? 1.0 : -1.0
            marker = newSymbol(.slack)
            row.insert(marker, coeff)
            if c.strength < Strength.required {
                other = newSymbol(.error)
                row.insert(other, -coeff)
                objective.insert(other, c.strength)
            }
        case .equal:
            if c.strength < Strength.required {
                marker = newSymbol(.error)
                other = newSymbol(.error)
                row.insert(marker, -1)
                row.insert(other, 1)
                objective.insert(marker, c.strength)
                objective.insert(other, c.strength)
            } else {
                marker = newSymbol(.dummy)
                row.insert(marker)
            }
        }
        if row.constant < 0 { row.reverseSign() }
        return (row, marker, other)
    }

    /// kiwi's chooseSubject: the first external symbol, else a tag symbol (slack or error)
    /// with a negative coefficient, else 0.
    func chooseSubject(_ row: Row, _ marker: Int, _ other: Int) -> Int {
        for s in row.ids where kinds[s] == .external { return s }
        for t in [marker, other] where t != 0 && (kinds[t] == .slack || kinds[t] == .error) {
            if row.coefficient(for: t) < 0 { return t }
        }
        return 0
    }

    /// The required constraints owning these marker symbols, in the order they were added.
    func conflicts(in symbols: [Int]) -> [ConstraintHandle] {
        // Sorted, then repeats dropped (no hashing: a rejected constraint may have thousands).
        var ids = symbols.compactMap { $0 < owner.count && owner[$0] >= 0 ? owner[$0] : nil }
        ids.sort()
        var out: [ConstraintHandle] = []
        var previous = -1
        for id in ids where id != previous {
            previous = id
            if records[id]?.constraint.strength == Strength.required { out.append(ConstraintHandle(id: id)) }
        }
        return out
    }
}
