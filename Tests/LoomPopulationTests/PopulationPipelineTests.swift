import Foundation
import Synchronization
import XCTest
@testable import LoomPopulation

/// `PopulationWorkers`: results in input order whatever the number
/// of jobs, a worker made only by a thread that gets a batch, an early stop that consumes nothing
/// after it, every worker released by the time the workers are dropped (`run` not waiting for
/// that), threads stopped when workers never run are dropped, and eager workers made before any
/// batch comes.
final class PopulationPipelineTests: XCTestCase {
    /// Counts made workers and live worker threads across threads.
    final class Counters: Sendable {
        let made = Atomic<Int>(0)
        let live = Atomic<Int>(0)
    }

    /// A made worker, counted as made and live until released.
    final class Live: Sendable {
        let counters: Counters
        init(_ c: Counters) {
            counters = c
            c.made.add(1, ordering: .relaxed)
            c.live.add(1, ordering: .relaxed)
        }
        deinit { counters.live.subtract(1, ordering: .relaxed) }
    }

    /// Runs `batches` numbered batches (batch k is [k]) through `jobs` workers that square them
    /// (some slowly); returns what was consumed, in order.
    /// `cores`: what the workers take the machine to have (1: no thread spins before it waits;
    /// 64: every one does).
    private func run(jobs: Int, batches: Int, stopAfter: Int? = nil, cores: Int = 1, counters: Counters) -> [Int] {
        var k = 0
        var out: [Int] = []
        let makeWorker: @Sendable () -> ([Int]) -> Int = {
            let done = Live(counters)
            return { (b: [Int]) -> Int in
                _ = done
                // Uneven work, so results come back out of order.
                if b[0] % 3 == 0 { usleep(200) }
                return b[0] * b[0]
            }
        }
        PopulationWorkers(threads: jobs - 1, cores: cores, makeWorker: makeWorker).run(
            makeWorker: makeWorker,
            next: { () -> [Int]? in
                defer { k += 1 }
                return k < batches ? [k] : nil
            },
            consume: { v in
                out.append(v)
                return stopAfter.map { out.count < $0 } ?? true
            })
        return out
    }

    func testResultsComeBackInInputOrderAtAnyJobs() {
        for jobs in [1, 2, 3, 8] {
            for cores in [1, 64] {
                let c = Counters()
                XCTAssertEqual(run(jobs: jobs, batches: 200, cores: cores, counters: c), (0..<200).map { $0 * $0 }, "--jobs \(jobs), spinning: \(cores > 1)")
                XCTAssertGreaterThanOrEqual(c.made.load(ordering: .relaxed), 1)
                XCTAssertLessThanOrEqual(c.made.load(ordering: .relaxed), jobs)
            }
        }
    }

    /// One batch and eight jobs: one worker is made (one workspace opened), not eight; none for
    /// no batch; and every thread has let go of its worker by the time the workers are dropped
    /// (`run`'s helper drops them with its statement).
    func testOnlyThreadsThatGetABatchMakeAWorker() {
        for _ in 0..<20 {
            let c = Counters()
            XCTAssertEqual(run(jobs: 8, batches: 1, counters: c), [0])
            XCTAssertEqual(c.made.load(ordering: .relaxed), 1)
            XCTAssertEqual(c.live.load(ordering: .relaxed), 0, "a worker outlived the workers")
        }
        let c = Counters()
        XCTAssertEqual(run(jobs: 4, batches: 0, counters: c), [])
        XCTAssertEqual(c.made.load(ordering: .relaxed), 0)
    }

    /// Workers started and never run: dropping them stops the threads, which made nothing.
    func testWorkersNeverRunAreStoppedWhenDropped() {
        let c = Counters()
        do {
            _ = PopulationWorkers<[Int], Int>(threads: 3) {
                c.made.add(1, ordering: .relaxed)
                return { $0[0] }
            }
        }
        XCTAssertEqual(c.made.load(ordering: .relaxed), 0)
    }

    /// `run` returns once the threads' work is over, not after they have let go of their workers
    /// (closing a workspace's Lua state takes a fraction of a millisecond the output need not
    /// wait for); dropping the workers waits for that. Each worker here lets go only once told
    /// to, after `run` has returned: were `run` to wait for it, the worker would give up waiting
    /// after ten seconds and say so.
    func testRunDoesNotWaitForTheThreadsToLetGoOfTheirWorkers() {
        final class Slow: Sendable {
            let counters: Counters
            let letGo: DispatchSemaphore
            let toldInTime = Atomic<Int>(0)
            init(_ c: Counters, _ letGo: DispatchSemaphore) {
                counters = c
                self.letGo = letGo
                c.live.add(1, ordering: .relaxed)
            }
            deinit {
                if letGo.wait(timeout: .now() + 10) == .success { counters.made.add(1, ordering: .relaxed) }
                counters.live.subtract(1, ordering: .relaxed)
            }
        }
        let c = Counters(), letGo = DispatchSemaphore(value: 0)
        var out: [Int] = []
        do {
            let workers = PopulationWorkers<[Int], Int>(threads: 3, eager: 3) {
                let slow = Slow(c, letGo)
                return { _ = slow; return $0[0] + 1 }
            }
            var k = 0
            workers.run(makeWorker: { { $0[0] + 1 } }, next: { () -> [Int]? in
                defer { k += 1 }
                return k < 50 ? [k] : nil
            }, consume: { out.append($0); return true })
            XCTAssertEqual(out, (1...50).map { $0 })
            XCTAssertEqual(c.live.load(ordering: .relaxed), 3, "run waited for the threads to let go of their workers")
            for _ in 0..<3 { letGo.signal() }
        }
        XCTAssertEqual(c.live.load(ordering: .relaxed), 0, "dropping the workers waits until every thread has let go of its worker")
        XCTAssertEqual(c.made.load(ordering: .relaxed), 3, "a worker was let go of before run returned (its wait timed out)")
    }

    func testAnEarlyStopConsumesNothingAfterIt() {
        for jobs in [1, 2, 4] {
            for cores in [1, 64] {
                let c = Counters()
                XCTAssertEqual(run(jobs: jobs, batches: 500, stopAfter: 7, cores: cores, counters: c), (0..<7).map { $0 * $0 }, "--jobs \(jobs)")
                XCTAssertEqual(c.live.load(ordering: .relaxed), 0, "a worker outlived the workers")
            }
        }
    }

    /// A thread waiting for its first batch spins for a while (`BatchQueue.firstSpinNanoseconds`),
    /// then sleeps; one that waits longer than that is woken by the first batch all the same,
    /// and so is one waiting for a later batch past `spinNanoseconds`.
    func testThreadsWaitingPastTheirSpinAreWokenByTheBatches() {
        let workers = PopulationWorkers<[Int], Int>(threads: 1, eager: 1, cores: 64) { { $0[0] + 1 } }
        usleep(UInt32(BatchQueue<[Int], Int>.firstSpinNanoseconds / 1000) + 30_000)
        var k = 0, out: [Int] = []
        workers.run(makeWorker: { { $0[0] + 1 } }, next: { () -> [Int]? in
            defer { k += 1 }
            // The caller is slow to read some batches: the other thread waits past its spin.
            if k % 10 == 5 { usleep(UInt32(BatchQueue<[Int], Int>.spinNanoseconds / 1000) + 2_000) }
            return k < 40 ? [k] : nil
        }, consume: { out.append($0); return true })
        XCTAssertEqual(out, (1...40).map { $0 })
    }

    /// Started eager (as host eval starts them, before it opens its own workspace), each thread
    /// makes its worker at once, before any batch; the run is the same; nothing outlives it.
    func testEagerWorkersAreMadeBeforeAnyBatch() {
        for jobs in [2, 4] {
            let c = Counters()
            let made = { (c.made.load(ordering: .relaxed)) }
            let workers = PopulationWorkers<[Int], Int>(threads: jobs - 1, eager: jobs - 1) {
                c.made.add(1, ordering: .relaxed)
                return { $0[0] * 10 }
            }
            let deadline = Date().addingTimeInterval(10)
            while made() < jobs - 1, Date() < deadline { usleep(1000) }
            XCTAssertEqual(made(), jobs - 1, "--jobs \(jobs): the threads made their workers before the run")
            var k = 0, out: [Int] = []
            workers.run(makeWorker: { { $0[0] * 10 } }, next: { () -> [Int]? in
                defer { k += 1 }
                return k < 100 ? [k] : nil
            }, consume: { out.append($0); return true })
            XCTAssertEqual(out, (0..<100).map { $0 * 10 })
            XCTAssertEqual(made(), jobs - 1)
        }
        // Dropped without a run: each thread finishes making its worker, lets go of it and exits.
        let c = Counters()
        do {
            _ = PopulationWorkers<[Int], Int>(threads: 3, eager: 3) {
                let done = Live(c)
                return { _ = done; return $0[0] }
            }
        }
        XCTAssertEqual(c.live.load(ordering: .relaxed), 0, "a worker outlived its dropped threads")
    }

    /// Only the first `eager` threads make their worker before a batch comes; one thread per
    /// core beside the caller's is made so.
    func testOnlyTheEagerThreadsMakeTheirWorkerAtOnce() {
        let c = Counters()
        let workers = PopulationWorkers<[Int], Int>(threads: 3, eager: 1) {
            c.made.add(1, ordering: .relaxed)
            return { $0[0] }
        }
        let deadline = Date().addingTimeInterval(10)
        while c.made.load(ordering: .relaxed) < 1, Date() < deadline { usleep(1000) }
        usleep(20_000)
        XCTAssertEqual(c.made.load(ordering: .relaxed), 1, "one eager thread made its worker; the other two wait for a batch")
        var k = 0
        workers.run(makeWorker: { { $0[0] } }, next: { () -> [Int]? in
            defer { k += 1 }
            return k < 2 ? [k] : nil
        }, consume: { _ in true })
        XCTAssertLessThanOrEqual(c.made.load(ordering: .relaxed), 3)
        XCTAssertEqual(PopulationPipeline.eagerThreads(jobs: 2, cores: 2), 1)
        XCTAssertEqual(PopulationPipeline.eagerThreads(jobs: 8, cores: 2), 1)
        XCTAssertEqual(PopulationPipeline.eagerThreads(jobs: 4, cores: 16), 3)
        XCTAssertEqual(PopulationPipeline.eagerThreads(jobs: 1, cores: 16), 0)
        XCTAssertEqual(PopulationPipeline.eagerThreads(jobs: 3, cores: 0), 0)
    }
}
