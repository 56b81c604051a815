import Foundation

/// Worker threads, each owning a context made on that thread (a workspace with its own Lua
/// state: plugins are loaded once per worker and never shared), fed from one bounded queue.
/// A job that cannot be queued (the queue is full) is refused at once: the caller answers 503.
public final class WorkerPool<Context>: @unchecked Sendable {
    private let cond = NSCondition()
    private var queue: [(Context) -> Void] = []
    private var generation = 0
    private let make: @Sendable () -> Context
    public let workers: Int
    public let maxPending: Int

    public init(workers: Int, maxPending: Int, make: @escaping @Sendable () -> Context) {
        self.workers = max(1, workers)
        self.maxPending = max(1, maxPending)
        self.make = make
        for i in 0..<self.workers {
            let t = Thread { [unowned self] in self.loop() }
            t.name = "loom-worker-\(i)"
            t.stackSize = 8 << 20
            t.start()
        }
    }

    /// Makes every worker build a new context before its next job (after a reload).
    public func renew() {
        cond.lock()
        generation += 1
        cond.unlock()
    }

    /// Runs `job` on a worker with its context; nil when the queue is full.
    public func submit<T: Sendable>(_ job: @escaping @Sendable (Context) -> T) async -> T? {
        await withCheckedContinuation { (cont: CheckedContinuation<T?, Never>) in
            cond.lock()
            if queue.count >= maxPending {
                cond.unlock()
                cont.resume(returning: nil)
                return
            }
            queue.append { ctx in cont.resume(returning: job(ctx)) }
            cond.signal()
            cond.unlock()
        }
    }

    private func loop() {
        var context = make()
        cond.lock()
        var mine = generation
        cond.unlock()
        while true {
            cond.lock()
            while queue.isEmpty { cond.wait() }
            let job = queue.removeFirst()
            let current = generation
            cond.unlock()
            if current != mine {
                context = make()
                mine = current
            }
            job(context)
        }
    }
}
