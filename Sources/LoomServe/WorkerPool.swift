import Foundation
import LoomCore

/// Worker threads, each owning a context made on that thread (a workspace with its own Lua
/// state: plugins are loaded once per worker and never shared), fed from one bounded queue.
/// A job that cannot be queued (the queue is full) is refused at once: the caller answers 503.
///
/// A job may carry a `Deadline` (`host serve --request-timeout`). The caller is answered
/// `.timedOut` as soon as it passes, whether the job is still queued (it is then never run) or
/// running (it runs with the deadline as its thread's current one, so the long loops, Lua and
/// external programs stop early). The watchdog thread answers them: it sleeps until the earliest
/// deadline of the queued and running jobs, so a request costs no timer of its own (a timer per
/// request, most of them cancelled by nothing and firing long after their request was answered,
/// cost more than the rest of the pool). A worker still busy `replaceAfter` seconds past its job's
/// deadline is retired: a new worker thread (with a new context) takes its place, so capacity
/// is restored, and the old thread ends as soon as its job returns. At most `workers` retired
/// threads may be alive at once; past that, no more replacements until one of them ends.
public final class WorkerPool<Context> {
    /// What `submit` answers.
    public enum Outcome<T: Sendable>: Sendable {
        case done(T)
        /// The queue was full.
        case busy
        /// The deadline passed before the job finished (or started).
        case timedOut
    }

    /// One queued job: runs once, or is dropped when its caller was already answered.
    final class Job {
        let deadline: Deadline?
        let body: (Context) -> Void
        let expired: () -> Bool
        /// Answers the caller `.timedOut` (nothing when it was already answered).
        let timeOut: () -> Void
        init(deadline: Deadline?, expired: @escaping () -> Bool, timeOut: @escaping () -> Void, body: @escaping (Context) -> Void) {
            self.deadline = deadline
            self.expired = expired
            self.timeOut = timeOut
            self.body = body
        }
    }

    /// A worker thread's state, read by the watchdog.
    final class Slot {
        let index: Int
        var job: Job?
        var retired = false
        init(index: Int) { self.index = index }
    }

    private let cond = NSCondition()
    /// The watchdog sleeps on it; `submit` wakes it for a deadline earlier than `nextWake`.
    /// Lock order: `timer`, then `cond`.
    private let timer = NSCondition()
    /// When the watchdog wakes next (monotonic nanoseconds; under `cond`).
    private var nextWake: UInt64 = .max
    private var queue: [Job] = []
    private var head = 0
    private var generation = 0
    private let make: @Sendable () -> Context
    private var slots: [Slot] = []
    private var retiredAlive = 0
    private var nextIndex = 0
    public let workers: Int
    public let maxPending: Int
    /// Seconds past a job's deadline before its worker is replaced.
    public let replaceAfter: Double
    /// Told (off the worker threads) when a worker is replaced, or cannot be for now.
    private let onReplace: @Sendable (String) -> Void
    private var replacedCount = 0
    /// Workers replaced so far.
    public var replaced: Int {
        cond.lock()
        defer { cond.unlock() }
        return replacedCount
    }

    public init(workers: Int, maxPending: Int, replaceAfter: Double = 2,
                onReplace: @escaping @Sendable (String) -> Void = { _ in },
                make: @escaping @Sendable () -> Context) {
        self.workers = max(1, workers)
        self.maxPending = max(1, maxPending)
        self.replaceAfter = max(0, replaceAfter)
        self.onReplace = onReplace
        self.make = make
        cond.lock()
        for _ in 0..<self.workers { startWorker() }
        cond.unlock()
        let watchdog = Thread { [unowned self] in self.watch() }
        watchdog.name = "loom-worker-watchdog"
        watchdog.start()
    }

    /// Starts one worker thread (the lock is held).
    private func startWorker() {
        let slot = Slot(index: nextIndex)
        nextIndex += 1
        slots.append(slot)
        let t = Thread { [unowned self] in self.loop(slot) }
        t.name = "loom-worker-\(slot.index)"
        t.stackSize = 8 << 20
        t.start()
    }

    /// Makes every worker build a new context before its next job (after a reload).
    public func renew() {
        cond.lock()
        generation += 1
        cond.unlock()
    }

    /// Runs `job` on a worker with its context; `.busy` when the queue is full, `.timedOut` when
    /// `deadline` passes first.
    public func submit<T: Sendable>(deadline: Deadline? = nil, _ job: @escaping @Sendable (Context) -> T) async -> Outcome<T> {
        await withCheckedContinuation { (cont: CheckedContinuation<Outcome<T>, Never>) in
            let once = Once(cont)
            cond.lock()
            if queue.count - head >= maxPending {
                cond.unlock()
                once.resume(.busy)
                return
            }
            queue.append(Job(deadline: deadline, expired: { once.isDone }, timeOut: { once.resume(.timedOut) }) { ctx in
                let value = Deadline.run(with: deadline) { job(ctx) }
                // Finished past the deadline: the loops that check it may have stopped early, so
                // the value may be partial; the caller gets .timedOut (if the watchdog was late).
                once.resume(deadline?.isExpired == true ? .timedOut : .done(value))
            })
            cond.signal()
            // A deadline before the watchdog's next look (not with one --request-timeout for all:
            // later requests end later).
            var wake = false
            if let end = deadline?.endNanoseconds, end < nextWake {
                nextWake = end
                wake = true
            }
            cond.unlock()
            if wake {
                timer.lock()
                timer.signal()
                timer.unlock()
            }
        }
    }

    private func loop(_ slot: Slot) {
        var context = make()
        cond.lock()
        var mine = generation
        cond.unlock()
        while true {
            cond.lock()
            if slot.retired {
                retiredAlive -= 1
                cond.unlock()
                return
            }
            while head == queue.count { cond.wait() }
            let job = queue[head]
            head += 1
            if head > 64, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            // Its caller was answered (deadline passed while it waited): drop it unrun.
            if job.expired() {
                cond.unlock()
                continue
            }
            slot.job = job
            let current = generation
            cond.unlock()
            if current != mine {
                context = make()
                mine = current
            }
            job.body(context)
            cond.lock()
            slot.job = nil
            cond.unlock()
        }
    }

    /// Answers `.timedOut` to the jobs (queued or running) whose deadline passed, retires the
    /// workers still busy `replaceAfter` seconds past their job's deadline and starts new ones in
    /// their place; then sleeps until the next of those moments (at most a second).
    private func watch() {
        var refused = false
        timer.lock()
        while true {
            var messages: [String] = []
            var late: [Job] = []
            cond.lock()
            let now = Deadline.nowNanoseconds
            let grace = UInt64(replaceAfter * 1e9)
            var next = now &+ 1_000_000_000
            // Queued jobs: at most --queue of them.
            for i in head..<queue.count {
                guard let end = queue[i].deadline?.endNanoseconds else { continue }
                if end <= now { late.append(queue[i]) } else { next = min(next, end) }
            }
            for slot in slots where !slot.retired {
                guard let job = slot.job, let d = job.deadline else { continue }
                if d.endNanoseconds <= now { late.append(job) } else { next = min(next, d.endNanoseconds) }
                guard now > d.endNanoseconds &+ grace else {
                    next = min(next, d.endNanoseconds &+ grace &+ 1)
                    continue
                }
                if retiredAlive >= workers {
                    if !refused {
                        refused = true
                        messages.append("worker \(slot.index) is still busy \(Deadline.secondsText(replaceAfter)) past its request's time limit (\(d.limitText)); not replaced: \(retiredAlive) replaced workers are still running")
                    }
                    continue
                }
                refused = false
                slot.retired = true
                retiredAlive += 1
                replacedCount += 1
                slots.removeAll { $0 === slot }
                startWorker()
                messages.append("worker \(slot.index) is still busy \(Deadline.secondsText(replaceAfter)) past its request's time limit (\(d.limitText)); replaced by worker \(nextIndex - 1) (the old one ends when its request returns)")
            }
            nextWake = next
            cond.unlock()
            for job in late { job.timeOut() }
            for m in messages { onReplace(m) }
            let now2 = Deadline.nowNanoseconds
            if next > now2 { _ = timer.wait(until: Date(timeIntervalSinceNow: Double(next - now2) / 1e9)) }
        }
    }
}

/// Resumes a continuation once: the first of the job's answer and its deadline wins.
final class Once<T: Sendable> {
    private let lock = NSLock()
    private var cont: CheckedContinuation<T, Never>?
    init(_ cont: CheckedContinuation<T, Never>) { self.cont = cont }

    var isDone: Bool { lock.withLock { cont == nil } }

    func resume(_ value: T) {
        let c: CheckedContinuation<T, Never>? = lock.withLock {
            let c = cont
            cont = nil
            return c
        }
        c?.resume(returning: value)
    }
}
