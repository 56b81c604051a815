// The solver's objective row, stored for its two hot operations. kiwi keeps it as an ordinary
// row (a sorted vector of cells); with one or two error symbols per soft constraint it holds
// thousands of cells, and kiwi's choice of entering symbol (the lowest non-dummy symbol with a
// negative coefficient) scanned it on every optimize call, while each pivot rebuilt it by merge.
// Here the coefficients are dense, indexed by symbol id (0 means "no cell": every cell kiwi
// would erase as near zero is set to exactly 0), and a lazy min-heap holds the symbols whose
// coefficient went negative, so the entering choice is O(log n) and a substitution costs the
// size of the substituted row. The arithmetic is kiwi's, operation for operation: a cell's new
// value is old + c·coefficient (0 + x for an absent cell, which is x exactly), dropped when
// near zero — the same values kiwi's Row::insert computes.

struct Objective {
    var constant = 0.0
    /// Coefficient by symbol id; 0 when the objective has no cell for the symbol.
    private(set) var cells: [Double] = [0]
    /// Whether each symbol may enter (false for dummy and the invalid symbol 0).
    private var enters: [Bool] = [false]
    /// Min-heap of symbols that had a negative coefficient when pushed (lazy: stale entries are
    /// dropped when they reach the top); `queued` says which symbols are in it.
    private var heap: [Int] = []
    private var queued: [Bool] = [false]
    /// Cells changed (symbol, previous value) and the previous constant, while journaling.
    private var log: [(Int, Double)]?
    private var loggedConstant = 0.0

    /// Makes room for a new symbol (its id is the current count).
    mutating func grow(canEnter: Bool) {
        cells.append(0)
        enters.append(canEnter)
        queued.append(false)
    }

    mutating func reserveCapacity(_ symbols: Int) {
        cells.reserveCapacity(symbols)
        enters.reserveCapacity(symbols)
        queued.reserveCapacity(symbols)
    }

    @inline(__always) func coefficient(for symbol: Int) -> Double { cells[symbol] }

    @inline(__always) private mutating func set(_ s: Int, _ v: Double) {
        if log != nil { log!.append((s, cells[s])) }
        cells[s] = v
        if v < 0 && !queued[s] && enters[s] { push(s) }
    }

    /// kiwi's Row::insert(symbol, coefficient): adds to the cell, erasing it when near zero.
    mutating func insert(_ s: Int, _ coefficient: Double) {
        let v = cells[s] + coefficient
        set(s, nearZero(v) ? 0 : v)
    }

    /// kiwi's Row::insert(row, coefficient).
    mutating func insert(_ row: Row, _ coefficient: Double) {
        constant += row.constant * coefficient
        for k in row.ids.indices {
            let s = row.ids[k]
            let v = cells[s] + row.coeffs[k] * coefficient
            set(s, nearZero(v) ? 0 : v)
        }
    }

    /// kiwi's Row::substitute: replaces `symbol` by `row`; a no-op when it has no cell.
    mutating func substitute(_ symbol: Int, _ row: Row) {
        let c = cells[symbol]
        guard c != 0 else { return }
        set(symbol, 0)
        insert(row, c)
    }

    mutating func remove(_ symbol: Int) {
        if cells[symbol] != 0 { set(symbol, 0) }
    }

    /// The lowest-id symbol that may enter and has a negative coefficient (kiwi's
    /// getEnteringSymbol over the objective's ordered cells), or 0.
    @inline(__always) mutating func entering() -> Int {
        while let top = heap.first {
            if top < cells.count {
                if cells[top] < 0 && enters[top] { return top }
                queued[top] = false
            }
            popHeap()
        }
        return 0
    }

    // MARK: Journal (rollback of a rejected constraint)

    mutating func startJournal() {
        log = []
        loggedConstant = constant
    }

    mutating func endJournal() { log = nil }

    /// Restores every cell changed since `startJournal`, then forgets symbols from `count` on.
    mutating func rollBack(toSymbols count: Int) {
        if let entries = log {
            log = nil
            for (s, old) in entries.reversed() where s < count {
                cells[s] = old
                if old < 0 && !queued[s] && enters[s] { push(s) }
            }
            constant = loggedConstant
        }
        cells.removeSubrange(count...)
        enters.removeSubrange(count...)
        queued.removeSubrange(count...)
    }

    // MARK: Heap

    private mutating func push(_ s: Int) {
        queued[s] = true
        heap.append(s)
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) >> 1
            if heap[p] <= s { break }
            heap[i] = heap[p]
            i = p
        }
        heap[i] = s
    }

    private mutating func popHeap() {
        let last = heap.removeLast()
        if heap.isEmpty { return }
        let n = heap.count
        var i = 0
        while true {
            let l = 2 * i + 1
            if l >= n { break }
            let r = l + 1
            let c = r < n && heap[r] < heap[l] ? r : l
            if heap[c] >= last { break }
            heap[i] = heap[c]
            i = c
        }
        heap[i] = last
    }
}
