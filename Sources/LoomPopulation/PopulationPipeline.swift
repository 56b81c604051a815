import Foundation

/// Runs batches of users through workers and hands the results back in input order: the
/// caller's thread reads input, consumes output and, between those, works as one of the `jobs`
/// workers (the others on threads of their own); at most `16 × jobs` batches are in flight
/// (memory does not grow with the input); each worker owns what it makes (one Lua state per
/// worker). With one job everything runs on the caller's thread.
public enum PopulationPipeline {
    /// `next` yields the next batch (nil at the end); `makeWorker` is called once on each worker's
    /// thread (the caller's included), and its worker processes batches there; `consume` gets
    /// every result in input order and returns false to stop early (no later result is consumed).
    public static func run<Batch: Sendable, Output: Sendable>(
        jobs: Int,
        next: () -> Batch?,
        makeWorker: @escaping @Sendable () -> (Batch) -> Output,
        consume: (Output) -> Bool
    ) {
        if jobs <= 1 {
            let work = makeWorker()
            while let b = next() {
                if !consume(work(b)) { return }
            }
            return
        }
        let q = BatchQueue<Batch, Output>()
        for _ in 1..<jobs {
            let t = Thread {
                let work = makeWorker()
                while let (seq, batch) = q.take() { q.put(seq, work(batch)) }
                q.exited()
            }
            t.stackSize = 8 << 20
            t.start()
        }
        var work: ((Batch) -> Output)?
        // Batches in flight: enough that a slow batch (a worker's first, while it learns the
        // screen's rules and resolves new keys) does not leave the other workers idle behind it
        // while its result holds up the output; still a fixed bound, whatever the input's size.
        let capacity = 16 * jobs
        var nextIn = 0, nextOut = 0, inputDone = false, stopped = false
        // At first two batches per worker are read, so that the work starts at once; from then
        // on the queue is kept full.
        var room = 2 * jobs
        while !stopped {
            while !inputDone, nextIn - nextOut < room {
                if let b = next() { q.add(nextIn, b); nextIn += 1 } else { inputDone = true }
            }
            room = capacity
            if inputDone, nextOut == nextIn { break }
            // The next result when it is ready; else a batch worked here; else wait for it.
            let out: Output
            if let ready = q.tryResult(nextOut) {
                out = ready
            } else if let (seq, batch) = q.tryTake() {
                if work == nil { work = makeWorker() }
                q.put(seq, work!(batch))
                continue
            } else {
                out = q.result(nextOut)
            }
            nextOut += 1
            if !consume(out) { stopped = true }
        }
        q.finish(workers: jobs - 1)
    }
}

/// The queue between the reading thread and the workers, and the results coming back.
final class BatchQueue<Batch: Sendable, Output: Sendable>: @unchecked Sendable {
    private let cond = NSCondition()
    private var pending: [(Int, Batch)] = []
    private var results: [Int: Output] = [:]
    private var done = false
    private var exitedCount = 0

    func add(_ seq: Int, _ b: Batch) {
        cond.lock(); pending.append((seq, b)); cond.broadcast(); cond.unlock()
    }

    /// The next batch to process; nil once finished.
    func take() -> (Int, Batch)? {
        cond.lock(); defer { cond.unlock() }
        while pending.isEmpty && !done { cond.wait() }
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
        cond.lock(); results[seq] = out; cond.broadcast(); cond.unlock()
    }

    /// Waits for the result of batch `seq`.
    func result(_ seq: Int) -> Output {
        cond.lock(); defer { cond.unlock() }
        while results[seq] == nil { cond.wait() }
        return results.removeValue(forKey: seq)!
    }

    func exited() {
        cond.lock(); exitedCount += 1; cond.broadcast(); cond.unlock()
    }

    /// Stops the workers (pending batches are dropped) and waits until every one has exited.
    func finish(workers: Int) {
        cond.lock()
        done = true
        pending.removeAll()
        cond.broadcast()
        while exitedCount < workers { cond.wait() }
        cond.unlock()
    }
}
