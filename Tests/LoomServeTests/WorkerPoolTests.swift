import Foundation
import LoomCore
@testable import LoomServe
import XCTest

/// `WorkerPool` with deadlines: a job past its deadline answers `.timedOut` at once, a job
/// still queued then is never run, a cooperative job sees the deadline, and a worker that
/// ignores it is replaced so that the pool's capacity comes back.
final class WorkerPoolTests: XCTestCase {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.withLock { n += 1 } }
        var value: Int { lock.withLock { n } }
    }

    func testAJobPastItsDeadlineIsAnsweredAndACooperativeWorkerIsFreed() async throws {
        let pool = WorkerPool<Int>(workers: 1, maxPending: 8, replaceAfter: 60) { 0 }
        let loops = Counter()
        // Cooperative: loops until its thread's deadline has passed.
        let r = await pool.submit(deadline: Deadline(seconds: 0.2)) { _ -> Int in
            while !Deadline.expired { loops.add(); usleep(1000) }
            return 1
        }
        guard case .timedOut = r else { return XCTFail("expected .timedOut, got \(r)") }
        // The same (only) worker answers the next job: it stopped by itself, nothing was replaced.
        let next = await pool.submit(deadline: Deadline(seconds: 30)) { _ in 2 }
        guard case .done(2) = next else { return XCTFail("expected .done(2), got \(next)") }
        XCTAssertEqual(pool.replaced, 0)
        XCTAssertGreaterThan(loops.value, 0)
        XCTAssertNil(Deadline.current, "no deadline leaks to the caller's thread")
    }

    func testAWorkerThatIgnoresItsDeadlineIsReplacedAndQueuedJobsPastTheirsAreNotRun() async throws {
        let replacedLog = Counter()
        let pool = WorkerPool<Int>(workers: 1, maxPending: 8, replaceAfter: 0.2, onReplace: { _ in replacedLog.add() }) { 0 }
        let release = DispatchSemaphore(value: 0)
        let ran = Counter()
        // Not cooperative: blocks until released, whatever the deadline says.
        async let stuck = pool.submit(deadline: Deadline(seconds: 0.2)) { _ -> Int in
            release.wait()
            return 1
        }
        // Queued behind it with a short deadline: answered .timedOut and never run.
        try await Task.sleep(nanoseconds: 50_000_000)
        let queued = await pool.submit(deadline: Deadline(seconds: 0.1)) { _ -> Int in ran.add(); return 3 }
        guard case .timedOut = queued else { return XCTFail("expected .timedOut, got \(queued)") }
        guard case .timedOut = await stuck else { return XCTFail("the stuck job is answered .timedOut") }
        // The replacement (after 0.2 s past the deadline) serves the next job while the old
        // worker is still blocked.
        let next = await pool.submit(deadline: Deadline(seconds: 30)) { _ in 2 }
        guard case .done(2) = next else { return XCTFail("expected .done(2), got \(next)") }
        XCTAssertEqual(pool.replaced, 1)
        XCTAssertEqual(replacedLog.value, 1)
        XCTAssertEqual(ran.value, 0, "a job whose caller was answered is never run")
        release.signal()
    }

    func testTheQueueIsBounded() async throws {
        let pool = WorkerPool<Int>(workers: 1, maxPending: 1, replaceAfter: 60) { 0 }
        let release = DispatchSemaphore(value: 0)
        async let first = pool.submit { _ -> Int in release.wait(); return 1 }
        try await Task.sleep(nanoseconds: 100_000_000)
        async let second = pool.submit { _ in 2 }
        try await Task.sleep(nanoseconds: 100_000_000)
        let third = await pool.submit { _ in 3 }
        guard case .busy = third else { return XCTFail("expected .busy, got \(third)") }
        release.signal()
        guard case .done(1) = await first, case .done(2) = await second else { return XCTFail("the first two run") }
    }

    /// The watchdog sleeps until the earliest deadline it knows; a job queued with an earlier one
    /// wakes it, so that job is answered near its own deadline (not at the watchdog's next look).
    func testAQueuedJobWithAnEarlierDeadlineIsAnsweredNearIt() async throws {
        let pool = WorkerPool<Int>(workers: 1, maxPending: 8, replaceAfter: 60) { 0 }
        let release = DispatchSemaphore(value: 0)
        async let running = pool.submit(deadline: Deadline(seconds: 30)) { _ -> Int in release.wait(); return 1 }
        try await Task.sleep(nanoseconds: 50_000_000)
        let start = Deadline.nowNanoseconds
        let queued = await pool.submit(deadline: Deadline(seconds: 0.1)) { _ in 2 }
        let waited = Double(Deadline.nowNanoseconds - start) / 1e9
        guard case .timedOut = queued else { return XCTFail("expected .timedOut, got \(queued)") }
        XCTAssertGreaterThanOrEqual(waited, 0.09)
        XCTAssertLessThan(waited, 0.8, "answered near its deadline, not at the watchdog's next second")
        release.signal()
        guard case .done(1) = await running else { return XCTFail("the running job finishes") }
    }

    /// Jobs that finish in time are answered with their value; the watchdog keeps no per-job
    /// timer, and a later job is still answered at its deadline.
    func testJobsThatFinishInTimeAreAnsweredAndALaterDeadlineStillHolds() async throws {
        let pool = WorkerPool<Int>(workers: 2, maxPending: 4096, replaceAfter: 60) { 0 }
        var sum = 0
        for i in 0..<2000 {
            guard case .done(let v) = await pool.submit(deadline: Deadline(seconds: 10), { _ in i }) else { return XCTFail("job \(i) not done") }
            sum += v
        }
        XCTAssertEqual(sum, 1999 * 2000 / 2)
        let late = await pool.submit(deadline: Deadline(seconds: 0.2)) { _ -> Int in
            while !Deadline.expired { usleep(1000) }
            return 1
        }
        guard case .timedOut = late else { return XCTFail("expected .timedOut, got \(late)") }
    }
}
