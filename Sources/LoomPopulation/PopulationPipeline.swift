import Foundation
import Synchronization

/// Batches of users run through workers with the results handed back in input order
/// (`PopulationWorkers`): the caller's thread reads input, consumes output and, between those,
/// works as one of the `jobs` workers (the others on threads of their own); at most `16 × jobs`
/// batches are in flight (memory does not grow with the input); each worker owns what it makes
/// (one Lua state per worker). With one job everything runs on the caller's thread.
public enum PopulationPipeline {
    /// How many of a run's `jobs - 1` worker threads should make their worker at once (before
    /// the users come): one per core beside the caller's, where opening a workspace costs no
    /// wall time; the threads beyond the cores make theirs at their first batch, so that a short
    /// input does not wait for workspaces opened on cores that are not there (`--jobs 8` on two
    /// cores over 16 users: 28–30 ms with all seven opened at once, 23 ms with none).
    public static func eagerThreads(jobs: Int, cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        max(0, min(jobs, max(1, cores)) - 1)
    }
}

/// The worker threads of one pipeline run. The first `eager` are started at once and make their
/// worker at once (`host eval` starts them so before it opens its own workspace: each opens one
/// of its own meanwhile, on a core of its own, and is ready when the users come); the others are
/// started by `run` and make their worker at their first batch (one that gets none makes none).
/// `run` hands the batches out, the caller's thread working as one more worker. Made and run
/// once, by one thread. A thread whose work is over says so, then lets go of its worker (a
/// workspace: its Lua state closed, its caches freed, 0.2–0.3 ms for W1's project) and exits:
/// `run` returns once every thread has done its last batch, without waiting for that, and the
/// object, when dropped, waits until every thread has exited (so nothing of a worker outlives
/// it). Dropped without a run, it stops its threads (each finishes making its worker first).
public final class PopulationWorkers<Batch: Sendable, Output: Sendable> {
    public typealias MakeWorker = @Sendable () -> (Batch) -> Output
    private let threads: Int
    private let makeWorker: MakeWorker
    /// Threads started so far (each says when its work is over, then when it has exited).
    private var started = 0
    private let q: BatchQueue<Batch, Output>
    private var finished = false

    /// `threads` threads in all (none for 0 or less), each calling `makeWorker` at most once: the
    /// first `eager` of them started now and making their worker at once, the others started by
    /// `run` and making theirs at their first batch. A thread (or the caller) about to wait spins
    /// a little first (`BatchQueue.spinNanoseconds`) when every thread and the caller have a core
    /// of their own (`cores`), and goes straight to sleep otherwise (a spinning thread would take
    /// a core from one that works).
    public init(threads: Int, eager: Int = 0, cores: Int = ProcessInfo.processInfo.activeProcessorCount,
                makeWorker: @escaping MakeWorker) {
        self.threads = max(0, threads)
        self.makeWorker = makeWorker
        q = BatchQueue(spin: self.threads + 1 <= cores)
        for _ in 0..<min(max(0, eager), self.threads) { startThread(eager: true) }
    }

    private func startThread(eager: Bool) {
        let q = self.q, makeWorker = self.makeWorker
        started += 1
        let ok = WorkerThread.start {
            // Released after the thread has said its work is over (the caller does not wait for
            // it to go on) and before it says it has exited (dropping the workers waits for that).
            do {
                var work = LazyWorker(makeWorker)
                if eager { work.prepare() }
                var first = true
                while let (seq, batch) = q.take(first: first) {
                    first = false
                    q.put(seq, work.process(batch))
                }
                q.workOver()
            }
            q.exited()
        }
        // No thread: its share is worked by the caller (the queue is served by whoever is left).
        if !ok { q.workOver(); q.exited() }
    }

    /// Every thread has exited when this returns (stopped first, without a run).
    deinit {
        stop()
        q.waitForExit(workers: started)
    }

    /// Stops handing out batches (pending ones are dropped) and waits until no thread is working.
    private func stop() {
        guard !finished else { return }
        finished = true
        q.finish(workers: started)
    }

    /// Runs the batches `next` yields through the workers, the caller's thread working as one of
    /// them (its worker made by `makeWorker` at its first batch) between reading input and
    /// consuming results; `consume` gets every result in input order and returns false to stop
    /// early (no later result is consumed). Every worker thread's work is over when it returns
    /// (each may still be letting go of its worker: dropping the object waits for that).
    public func run(makeWorker: @escaping () -> (Batch) -> Output, next: () -> Batch?, consume: (Output) -> Bool) {
        precondition(!finished, "PopulationWorkers.run is called once")
        defer { stop() }
        while started < threads { startThread(eager: false) }
        var work = LazyWorker(makeWorker)
        if threads == 0 {
            while let b = next() {
                if !consume(work.process(b)) { return }
            }
            return
        }
        // Batches in flight: enough that a slow batch (a worker's first, while it learns the
        // screen's rules and resolves new keys) does not leave the other workers idle behind it
        // while its result holds up the output; still a fixed bound, whatever the input's size.
        let jobs = threads + 1
        let capacity = 16 * jobs
        var nextIn = 0, nextOut = 0, inputDone = false, stopped = false
        // At first two batches per worker are read, so that the work starts at once; from then
        // on the queue is kept full.
        var room = 2 * jobs
        while !stopped {
            while !inputDone, nextIn - nextOut < room {
                if let b = next() { q.add(nextIn, b); nextIn += 1 } else { inputDone = true; q.endOfInput() }
            }
            room = capacity
            if inputDone, nextOut == nextIn { break }
            // The next result when it is ready; else a batch worked here; else wait for it.
            let out: Output
            if let ready = q.tryResult(nextOut) {
                out = ready
            } else if let (seq, batch) = q.tryTake() {
                q.put(seq, work.process(batch))
                continue
            } else {
                out = q.result(nextOut)
            }
            nextOut += 1
            if !consume(out) { stopped = true }
        }
    }
}

/// A worker made when it gets its first batch (a thread or caller that gets none makes none).
struct LazyWorker<Batch, Output> {
    private let make: () -> (Batch) -> Output
    private var work: ((Batch) -> Output)?
    init(_ make: @escaping () -> (Batch) -> Output) { self.make = make }

    /// Makes the worker now (if not yet made).
    mutating func prepare() { if work == nil { work = make() } }

    mutating func process(_ b: Batch) -> Output {
        prepare()
        return work!(b)
    }
}

/// The queue between the reading thread and the workers, and the results coming back.
final class BatchQueue<Batch: Sendable, Output: Sendable>: @unchecked Sendable {
    private let cond = NSCondition()
    private var pending: [(Int, Batch)] = []
    private var results: [Int: Output] = [:]
    private var done = false
    /// Every batch has been added: a worker finding none pending leaves at once (rather than
    /// waiting to be told at the end, one wake-up later).
    private var inputDone = false
    /// Threads whose work is over (no batch in hand, none to take: `run` waits for these).
    private var overCount = 0
    /// Threads exited, each having let go of its worker (dropping the workers waits for these).
    private var exitedCount = 0
    /// Bumped (under the lock) whenever a batch, a result or the end comes: what a spinning
    /// waiter watches without the lock.
    private let changes = Atomic<UInt64>(0)

    /// How long a thread about to wait for a batch or a result spins first, watching `changes`
    /// (yielding its vCPU on every try), before it sleeps on the condition. Waking a sleeping
    /// thread costs tens of microseconds on this project's machines (a futex wake, then the
    /// thread scheduled again), where what it waits for usually comes sooner. Without spinning,
    /// 2-job W1 runs slept at their end, the caller waiting for the other thread's last result,
    /// in 72 of 160 runs; spinning for this long, in 8 of 160 (counters in a bench build not
    /// kept, 2026-11-24, four sets of 40 runs each way on a busy machine).
    static var spinNanoseconds: UInt64 { 100_000 }
    /// The same for a thread's first batch. The worker thread makes its worker while the
    /// caller is still opening its own workspace; it slept in every run (40 of 40) until the
    /// caller's first batch woke it, and started on that batch 49–75 µs into the run (a trace,
    /// 2026-11-23). Spinning for as long as opening a workspace takes, then sleeping: 0 of 40.
    static var firstSpinNanoseconds: UInt64 { 20_000_000 }

    init(spin: Bool = false) {
        spins = spin
    }
    private let spins: Bool

    /// Waits, with the lock held (held again when it returns), until `ready()`: spinning first
    /// for up to `nanoseconds` when this queue spins, then sleeping on the condition.
    private func wait(spinning nanoseconds: UInt64 = BatchQueue.spinNanoseconds, until ready: () -> Bool) {
        if ready() { return }
        if spins {
            let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
            var seen = changes.load(ordering: .acquiring)
            cond.unlock()
            while true {
                let now = changes.load(ordering: .acquiring)
                if now != seen {
                    cond.lock()
                    if ready() { return }
                    cond.unlock()
                    seen = now
                }
                if DispatchTime.now().uptimeNanoseconds > deadline { break }
                sched_yield()
            }
            cond.lock()
        }
        while !ready() { cond.wait() }
    }

    /// Wakes the sleeping waiters and the spinning ones (called with the lock held).
    private func changed() {
        changes.add(1, ordering: .releasing)
        cond.broadcast()
    }

    func add(_ seq: Int, _ b: Batch) {
        cond.lock(); pending.append((seq, b)); changed(); cond.unlock()
    }

    /// The next batch to process; nil once finished or once the input is exhausted and nothing
    /// is pending. `first`: the thread's first (it may wait for the caller's workspace).
    func take(first: Bool = false) -> (Int, Batch)? {
        cond.lock(); defer { cond.unlock() }
        wait(spinning: first ? BatchQueue.firstSpinNanoseconds : BatchQueue.spinNanoseconds) { !pending.isEmpty || done || inputDone }
        if pending.isEmpty { return nil }
        return pending.removeFirst()
    }

    /// The next pending batch, if any (without waiting).
    func tryTake() -> (Int, Batch)? {
        cond.lock(); defer { cond.unlock() }
        return pending.isEmpty ? nil : pending.removeFirst()
    }

    /// The result of batch `seq` if it is ready (without waiting).
    func tryResult(_ seq: Int) -> Output? {
        cond.lock(); defer { cond.unlock() }
        return results.removeValue(forKey: seq)
    }

    func put(_ seq: Int, _ out: Output) {
        cond.lock(); results[seq] = out; changed(); cond.unlock()
    }

    /// Waits for the result of batch `seq`.
    func result(_ seq: Int) -> Output {
        cond.lock(); defer { cond.unlock() }
        wait { results[seq] != nil }
        return results.removeValue(forKey: seq)!
    }

    func endOfInput() {
        cond.lock(); inputDone = true; changed(); cond.unlock()
    }

    /// A thread takes no more batches (it is letting go of its worker).
    func workOver() {
        cond.lock(); overCount += 1; changed(); cond.unlock()
    }

    func exited() {
        cond.lock(); exitedCount += 1; cond.broadcast(); cond.unlock()
    }

    /// Stops the workers (pending batches are dropped) and waits until no one is working.
    func finish(workers: Int) {
        cond.lock()
        done = true
        pending.removeAll()
        changed()
        wait { overCount >= workers }
        cond.unlock()
    }

    /// Waits until every one of `workers` threads has exited (each has let go of its worker).
    func waitForExit(workers: Int) {
        cond.lock()
        while exitedCount < workers { cond.wait() }
        cond.unlock()
    }
}

/// A worker thread started with `pthread_create` (8 MB of stack, as Lua states and deep
/// resolutions want): on this project's machines it runs its first instruction 25–38 µs after
/// the call, against 64–75 µs for a Foundation `Thread` (five of each, 2026-11-23, a loop in the
/// bench not kept), time the caller's thread spends before it starts on its own batches.
/// Public for the bench's baseline, which starts its second thread the same way.
public enum WorkerThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a detached thread; false when no thread could be made.
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setstacksize(&attr, 8 << 20)
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attr, { arg in
            Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, box)
        if rc != 0 { Unmanaged<Body>.fromOpaque(box).release() }
        return rc == 0
    }
}
