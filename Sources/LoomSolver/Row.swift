// A tableau row: `constant + Σ coefficient·symbol`, cells sorted by symbol id (kiwi's
// AssocVector<Symbol, double> in row.h, as two parallel contiguous arrays). The arithmetic is
// kiwi's, operation for operation, so both solvers compute the same floating-point values.

/// kiwi's `nearZero`: |value| < 1e-8.
@inline(__always) func nearZero(_ value: Double) -> Bool { value < 0 ? -value < 1.0e-8 : value < 1.0e-8 }

struct Row {
    var ids: [Int] = []
    var coeffs: [Double] = []
    var constant: Double

    init(constant: Double = 0) { self.constant = constant }

    var isEmpty: Bool { ids.isEmpty }

    /// The position of `symbol`, or where it would be inserted (negated minus one) when absent.
    @inline(__always) func find(_ symbol: Int) -> Int {
        var lo = 0, hi = ids.count - 1
        while lo <= hi {
            let mid = (lo &+ hi) >> 1
            let v = ids[mid]
            if v == symbol { return mid }
            if v < symbol { lo = mid + 1 } else { hi = mid - 1 }
        }
        return -(lo + 1)
    }

    func coefficient(for symbol: Int) -> Double {
        let i = find(symbol)
        return i >= 0 ? coeffs[i] : 0
    }

    /// Adds `coefficient` to the symbol's cell, dropping it when the sum is near zero. Returns
    /// +1 when a cell was created, -1 when one was removed, 0 otherwise.
    @discardableResult
    mutating func insert(_ symbol: Int, _ coefficient: Double = 1) -> Int {
        var moved = 0
        return insert(symbol, coefficient, moved: &moved)
    }

    /// `insert(_:_:)`, adding to `moved` the cells it moved.
    mutating func insert(_ symbol: Int, _ coefficient: Double, moved: inout Int) -> Int {
        let i = find(symbol)
        if i >= 0 {
            let v = coeffs[i] + coefficient
            if nearZero(v) {
                moved += ids.count - i
                ids.remove(at: i)
                coeffs.remove(at: i)
                return -1
            }
            coeffs[i] = v
            return 0
        }
        if nearZero(coefficient) { return 0 }
        let at = -(i + 1)
        if at == ids.count {  // a new symbol: the largest id so far
            ids.append(symbol)
            coeffs.append(coefficient)
        } else {
            moved += ids.count - at
            ids.insert(symbol, at: at)
            coeffs.insert(coefficient, at: at)
        }
        return 1
    }

    /// Adds `other × coefficient` (constant and cells). Symbols that appeared or vanished are
    /// passed to the callbacks (the tableau keeps its column index with them). Returns the
    /// work done, in cells visited or moved (the solver's work count, `Solver.work`).
    ///
    /// Cost: O(m log n) to find other's m cells among this row's n, plus the cells after the
    /// first one created or dropped (they move). Not a pass over the whole row: a pivot often
    /// substitutes a row of two or three cells into rows thousands of cells long (a long
    /// chain of views), where a whole-row pass per substitution cost more than the sums.
    @discardableResult
    mutating func insert(_ other: Row, _ coefficient: Double, added: (Int) -> Void = { _ in }, removed: (Int) -> Void = { _ in }) -> Int {
        constant += other.constant * coefficient
        let n = ids.count, m = other.ids.count
        if m == 0 { return 1 }
        if m == 1 {
            let s = other.ids[0]
            var moved = 1
            switch insert(s, other.coeffs[0] * coefficient, moved: &moved) {
            case 1: added(s)
            case -1: removed(s)
            default: break
            }
            return moved
        }
        let (created, first) = absentSymbols(of: other)
        if created == 0 {
            return m + addInPlace(other, coefficient, from: first, removed: removed)
        }
        // The merge written from the back into the grown arrays (no new arrays while the
        // capacity lasts): the same sums as a forward merge; cells that came out near zero
        // leave holes (-1), closed afterwards. It stops at other's first cell: the cells
        // before it stay where they are. The callbacks see symbols from the highest down.
        ids.append(contentsOf: repeatElement(-1, count: created))
        coeffs.append(contentsOf: repeatElement(0, count: created))
        let lowestHole = mergeFromBack(other, coefficient, n: n, m: m, created: created, added: added, removed: removed)
        if lowestHole >= 0 { closeHoles(from: lowestHole) }
        return m + (n + created - first) + (lowestHole >= 0 ? ids.count - lowestHole : 0)
    }

    /// Up to this many cells per cell of the other row, a merge walks this row linearly; beyond
    /// it (a short row substituted into a long one), it searches (`lowerBound`). Either way the
    /// cost is at most proportional to the other row's cells times this factor, or logarithmic.
    static let linearMergeFactor = 16

    /// The first position at or after `start` whose symbol is not below `symbol` (`ids.count`
    /// when none): a galloping search, O(log d) for a distance d from `start`.
    @inline(__always) private func lowerBound(_ symbol: Int, from start: Int) -> Int {
        let n = ids.count
        // A few cells stepped over one by one first: most rows are short, and most symbols of a
        // merged row lie close together.
        var lo = start
        let near = min(n, start &+ 8)
        while lo < near {
            if ids[lo] >= symbol { return lo }
            lo &+= 1
        }
        var hi = lo, step = 1
        while hi < n && ids[hi] < symbol {
            lo = hi + 1
            hi = lo + step
            step &<<= 1
        }
        if hi > n { hi = n }
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if ids[mid] < symbol { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// How many symbols of `other` have no cell here (adding it creates at most that many),
    /// and the position of other's first symbol (the cells before it are not touched).
    private func absentSymbols(of other: Row) -> (absent: Int, first: Int) {
        let n = ids.count
        var i = 0, absent = 0, first = 0
        // Rows of comparable length: one linear pass (fewer steps than a search per cell).
        let linear = n <= Row.linearMergeFactor * other.ids.count
        for (k, s) in other.ids.enumerated() {
            if linear { while i < n && ids[i] < s { i += 1 } } else { i = lowerBound(s, from: i) }
            if k == 0 { first = i }
            if i < n && ids[i] == s { i += 1 } else { absent += 1 }
        }
        return (absent, first)
    }

    /// Drops the cells marked -1 at or after `start` (none before it), keeping the others in order.
    private mutating func closeHoles(from start: Int) {
        var w = start
        for k in start..<ids.count where ids[k] >= 0 {
            ids[w] = ids[k]
            coeffs[w] = coeffs[k]
            w += 1
        }
        ids.removeLast(ids.count - w)
        coeffs.removeLast(coeffs.count - w)
    }

    /// The merge of `insert(_:_:added:removed:)` when no cell is created: the same sums,
    /// written over the existing cells (no new arrays); cells that became near zero dropped.
    /// `from` is the position of other's first symbol. Returns the cells moved.
    private mutating func addInPlace(_ other: Row, _ coefficient: Double, from: Int, removed: (Int) -> Void) -> Int {
        var firstHole = -1
        var i = from
        let linear = ids.count <= Row.linearMergeFactor * other.ids.count
        for j in other.ids.indices {
            let s = other.ids[j]
            if linear { while ids[i] < s { i += 1 } } else { i = lowerBound(s, from: i) }
            let v = coeffs[i] + other.coeffs[j] * coefficient
            if nearZero(v) {
                ids[i] = -1
                if firstHole < 0 { firstHole = i }
                removed(s)
            } else {
                coeffs[i] = v
            }
            i += 1
        }
        if firstHole >= 0 {
            closeHoles(from: firstHole)
            return ids.count - firstHole
        }
        return 0
    }

    /// Removes the symbol's cell; true when there was one.
    @discardableResult
    mutating func remove(_ symbol: Int) -> Bool {
        let i = find(symbol)
        guard i >= 0 else { return false }
        ids.remove(at: i)
        coeffs.remove(at: i)
        return true
    }

    mutating func reverseSign() {
        constant = -constant
        for k in coeffs.indices { coeffs[k] = -coeffs[k] }
    }

    /// Solves `0 = row` for `symbol` (which must be present): the row becomes its right-hand side.
    mutating func solve(for symbol: Int) {
        let i = find(symbol)
        let coeff = -1.0 / coeffs[i]
        ids.remove(at: i)
        coeffs.remove(at: i)
        constant *= coeff
        for k in coeffs.indices { coeffs[k] *= coeff }
    }

    /// Given `lhs = row`, solves for `rhs` (present in the row; `lhs` absent).
    mutating func solve(_ lhs: Int, for rhs: Int) {
        insert(lhs, -1.0)
        solve(for: rhs)
    }
}

/// Reusable arrays for `Row.replace` (the solver keeps one, so substituting into a long row
/// allocates nothing once they have grown).
struct RowScratch: Sendable {
    var ids: [Int] = []
    var coeffs: [Double] = []
}

extension Row {
    /// Rows with at least this many cells take `replace`'s window; shorter ones the plain
    /// removal and merge (nothing to gain on a few cells).
    static let windowFrom = 64

    /// Replaces the cell at `i` (its symbol, which `other` does not hold) by `other × c`:
    /// exactly `ids.remove(at: i); coeffs.remove(at: i); insert(other, c, …)` — the same sums
    /// in the same order, the same cells dropped and created, the same callbacks, and the same
    /// work count returned (so `Solver.work`, its tests and budget are unchanged).
    ///
    /// Why: a long row (a stack's closing row holds a cell per child, the artificial objective
    /// a copy of it) had each substitution move every cell after the removed one three times
    /// (the removal, the back-to-front merge, closing its holes), one cell at a time: n cells
    /// for each of the ~2n pivots of a 1,000-label vstack, most of its layout time. The cells
    /// that change lie between the removed cell and `other`'s symbols, which are mostly the
    /// removed symbol's neighbours (a label's symbols are made together); so this merges only
    /// that window into `scratch` and puts it back with one `replaceSubrange` (one memmove of
    /// the tail when the window's length changed).
    mutating func replace(at i: Int, with other: Row, _ c: Double, scratch: inout RowScratch, windowFrom: Int = Row.windowFrom,
                          added: (Int) -> Void = { _ in }, removed: (Int) -> Void = { _ in }) -> Int {
        let n = ids.count, m = other.ids.count
        if n < windowFrom || m < 2 {
            ids.remove(at: i)
            coeffs.remove(at: i)
            return insert(other, c, added: added, removed: removed)
        }
        constant += other.constant * c
        // The window [lo, hi) of this row: the removed cell and every position other's cells
        // fall at (the removed symbol is not other's, so it never matches one of them).
        let p0 = lowerBound(other.ids[0], from: 0)
        let last = other.ids[m - 1]
        var pEnd = lowerBound(last, from: p0)
        if pEnd < n && ids[pEnd] == last { pEnd += 1 }
        let lo = min(i, p0), hi = max(i + 1, pEnd)
        // The union of the window's cells (without i) and other's, in order, holes (-1) where a
        // sum came out near zero, written from the back as `mergeFromBack` does.
        let size = (hi - lo - 1) + m
        if scratch.ids.count < size {
            scratch.ids = [Int](repeating: 0, count: size)
            scratch.coeffs = [Double](repeating: 0, count: size)
        }
        var a = hi - 1, j = m - 1, w = size - 1
        var created = 0, holes = 0, lowestHole = -1
        while j >= 0 || a >= lo {
            if a == i { a -= 1; continue }
            if j < 0 || (a >= lo && ids[a] > other.ids[j]) {
                scratch.ids[w] = ids[a]; scratch.coeffs[w] = coeffs[a]; a -= 1
            } else if a < lo || other.ids[j] > ids[a] {
                created += 1
                let v = other.coeffs[j] * c
                if !nearZero(v) { scratch.ids[w] = other.ids[j]; scratch.coeffs[w] = v; added(other.ids[j]) } else { scratch.ids[w] = -1; holes += 1; lowestHole = w }
                j -= 1
            } else {
                let v = coeffs[a] + other.coeffs[j] * c
                if !nearZero(v) { scratch.ids[w] = ids[a]; scratch.coeffs[w] = v } else { removed(ids[a]); scratch.ids[w] = -1; holes += 1; lowestHole = w }
                a -= 1; j -= 1
            }
            w -= 1
        }
        // w + 1 is where the union starts: position lo of the row without cell i.
        let start = w + 1
        if holes > 0 {
            var k = start
            for r in start..<size where scratch.ids[r] >= 0 {
                scratch.ids[k] = scratch.ids[r]; scratch.coeffs[k] = scratch.coeffs[r]; k += 1
            }
            ids.replaceSubrange(lo..<hi, with: scratch.ids[start..<k])
            coeffs.replaceSubrange(lo..<hi, with: scratch.coeffs[start..<k])
        } else {
            ids.replaceSubrange(lo..<hi, with: scratch.ids[start..<size])
            coeffs.replaceSubrange(lo..<hi, with: scratch.coeffs[start..<size])
        }
        // The work `insert` would have counted on the row without cell i (n - 1 cells):
        // positions there are the same as here before i and one less after it.
        let n1 = n - 1
        let first = p0 > i ? p0 - 1 : p0
        let unionHole = lowestHole >= 0 ? lo + (lowestHole - start) : -1
        if created == 0 {
            return m + (unionHole >= 0 ? ids.count - unionHole : 0)
        }
        return m + (n1 + created - first) + (unionHole >= 0 ? ids.count - unionHole : 0)
    }
}
