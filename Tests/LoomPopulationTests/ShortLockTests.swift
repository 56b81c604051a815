import Foundation
import XCTest
@testable import LoomPopulation

/// `ShortLock`: mutual exclusion under contention, including more threads than cores (waiters
/// past their spins yield, so a preempted holder still gets to run and nothing hangs).
final class ShortLockTests: XCTestCase {
    /// A counter that is not atomic: only the lock keeps increments from being lost.
    final class Guarded: @unchecked Sendable {
        let lock = ShortLock()
        var count = 0
        var inside = 0
        var overlaps = 0
    }

    private func hammer(threads: Int, times: Int) -> Guarded {
        let g = Guarded()
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<times {
                g.lock.lock()
                g.inside += 1
                if g.inside != 1 { g.overlaps += 1 }
                g.count += 1
                g.inside -= 1
                g.lock.unlock()
            }
        }
        return g
    }

    func testNoIncrementIsLostBetweenTwoThreads() {
        let g = hammer(threads: 2, times: 200_000)
        XCTAssertEqual(g.count, 400_000)
        XCTAssertEqual(g.overlaps, 0)
    }

    func testMoreThreadsThanCoresFinish() {
        let threads = ProcessInfo.processInfo.activeProcessorCount * 4
        let g = hammer(threads: threads, times: 20_000)
        XCTAssertEqual(g.count, threads * 20_000)
        XCTAssertEqual(g.overlaps, 0)
    }
}
