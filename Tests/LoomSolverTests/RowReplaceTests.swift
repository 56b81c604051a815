import XCTest
@testable import LoomSolver

/// `Row.replace` (a substitution into a long row merged in a window) must give exactly what it
/// replaces: removing the cell, then `insert(other, c)` — the same cells and floating-point
/// values, the same constant, the same symbols reported added and removed, and the same work
/// count. Random long rows and short rows to substitute, with cells that cancel to zero (the
/// near-zero drops), symbols next to the removed one, before it, after it and on both sides.
final class RowReplaceTests: XCTestCase {
    struct Generator {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
    }

    func testReplaceIsTheRemovalAndMergeItStandsFor() {
        var g = Generator(state: 20261128)
        var scratch = RowScratch()
        var windowed = 0
        let values: [Double] = [1, -1, 0.5, 2, -3, 1e-9, 0.25, 7]
        for round in 0..<4_000 {
            // A row of 40…400 cells over symbols 1…1,200 (sorted, distinct).
            let n = 40 + g.next(360)
            var ids = Set<Int>()
            while ids.count < n { ids.insert(1 + g.next(1_200)) }
            var row = Row(constant: Double(g.next(100)))
            row.ids = ids.sorted()
            row.coeffs = row.ids.map { _ in values[g.next(values.count)] }
            let i = g.next(n)
            let symbol = row.ids[i]
            // The other row: 1…6 symbols, mostly near the removed one, some anywhere; some
            // present in the row with the coefficient that cancels the cell.
            let c = [1.0, -1.0, 2.0, -0.5][g.next(4)]
            var other = Row(constant: Double(g.next(10)) - 5)
            var picked = Set<Int>()
            let m = 1 + g.next(6)
            while picked.count < m {
                let s = g.next(3) == 0 ? 1 + g.next(1_200) : max(1, symbol + g.next(41) - 20)
                if s != symbol { picked.insert(s) }
            }
            other.ids = picked.sorted()
            other.coeffs = other.ids.map { s in
                let k = row.find(s)
                if k >= 0 && g.next(3) == 0 { return -row.coeffs[k] / c }  // cancels: the cell is dropped
                return values[g.next(values.count)]
            }
            var expected = row, expectedAdded: [Int] = [], expectedRemoved: [Int] = []
            expected.ids.remove(at: i)
            expected.coeffs.remove(at: i)
            let expectedCost = expected.insert(other, c, added: { expectedAdded.append($0) }, removed: { expectedRemoved.append($0) })
            var got = row, added: [Int] = [], removed: [Int] = []
            let cost = got.replace(at: i, with: other, c, scratch: &scratch, added: { added.append($0) }, removed: { removed.append($0) })
            if n >= Row.windowFrom && m >= 2 { windowed += 1 }
            XCTAssertEqual(got.ids, expected.ids, "round \(round)")
            XCTAssertEqual(got.coeffs, expected.coeffs, "round \(round)")
            XCTAssertEqual(got.constant, expected.constant, "round \(round)")
            XCTAssertEqual(Set(added), Set(expectedAdded), "round \(round)")
            XCTAssertEqual(added.count, expectedAdded.count, "round \(round)")
            XCTAssertEqual(Set(removed), Set(expectedRemoved), "round \(round)")
            XCTAssertEqual(removed.count, expectedRemoved.count, "round \(round)")
            XCTAssertEqual(cost, expectedCost, "round \(round): work count")
            if got.ids != expected.ids || cost != expectedCost { return }
        }
        // Most rounds went through the window, not the plain path.
        XCTAssertGreaterThan(windowed, 2_500)
    }
}
