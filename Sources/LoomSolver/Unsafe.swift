// LoomSolver's audited unsafe code: the one merge loop that reads the rows' arrays through
// unchecked buffers. `UnsafeCodeTests` fails when such a construct appears in another file
// (docs/unsafe.md).

extension Row {
    /// The back-to-front merge of `insert(_:_:added:removed:)` into arrays already grown by
    /// `created` cells; the position of the lowest hole left (-1: none). Unchecked buffers
    /// because this is the solver's innermost loop (every pivot substitutes rows).
    ///
    /// Safe: `ids`/`coeffs` hold `n + created` cells and `other`'s arrays `m` (`m >= 1` here);
    /// `j` runs from `m - 1` down to 0 and `i` from `n - 1`, read only while `i >= 0`. `w`
    /// starts at `n + created - 1` and drops by one per cell placed; the cells left to place
    /// are this row's `i + 1` plus other's new ones not yet placed (of the `created` counted
    /// by `absentSymbols`), so `w >= i` and `w >= 0` while `j >= 0`. The four buffers belong to
    /// four arrays (`other` is another row), so writes cannot alias reads.
    @inline(__always)
    mutating func mergeFromBack(_ other: Row, _ coefficient: Double, n: Int, m: Int, created: Int,
                                added: (Int) -> Void, removed: (Int) -> Void) -> Int {
        var lowestHole = -1
        ids.withUnsafeMutableBufferPointer { a in
            coeffs.withUnsafeMutableBufferPointer { ac in
                other.ids.withUnsafeBufferPointer { b in
                    other.coeffs.withUnsafeBufferPointer { bc in
                        var i = n - 1, j = m - 1, w = n + created - 1
                        while j >= 0 {
                            if i >= 0 && a[i] > b[j] {
                                a[w] = a[i]; ac[w] = ac[i]; i -= 1
                            } else if i < 0 || b[j] > a[i] {
                                let v = bc[j] * coefficient
                                if !nearZero(v) { a[w] = b[j]; ac[w] = v; added(b[j]) } else { a[w] = -1; lowestHole = w }
                                j -= 1
                            } else {
                                let v = ac[i] + bc[j] * coefficient
                                if !nearZero(v) { a[w] = a[i]; ac[w] = v } else { removed(a[i]); a[w] = -1; lowestHole = w }
                                i -= 1; j -= 1
                            }
                            w -= 1
                        }
                    }
                }
            }
        }
        return lowestHole
    }
}
