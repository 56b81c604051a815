import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A lock for critical sections of well under a microsecond taken by every worker of a run
/// (`SharedAnswers`): a waiting thread spins, then yields, instead of sleeping in the kernel.
///
/// Why not `NSLock`: a contended `NSLock` (a pthread mutex) parks the waiting thread with a
/// futex and the holder's unlock wakes it; on this project's machines a 2-job W1 run met 21–54
/// such waits while the workers learnt the screen, 3–5 µs each on average (27–268 µs of a
/// thread's time per run, timers in a bench build not kept), where the sections they waited for
/// (appending to a log, one dictionary lookup or insertion) take a fraction of that. Spinning is
/// bounded: past `spins` tries the thread yields its vCPU on every try, so a holder that was
/// preempted gets to run (two workers can share one vCPU when `--jobs` exceeds the cores).
final class ShortLock: @unchecked Sendable {
    private let held = Atomic<Bool>(false)
    /// Tries before yielding (a few microseconds).
    static let spins = 1_000

    @inline(__always)
    func lock() {
        if held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged { return }
        contended()
    }

    @inline(never)
    private func contended() {
        var tries = 0
        while true {
            // Read until it looks free (no writes while waiting), then try to take it.
            if !held.load(ordering: .relaxed),
               held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged { return }
            tries += 1
            if tries > ShortLock.spins { sched_yield() }
        }
    }

    @inline(__always)
    func unlock() {
        held.store(false, ordering: .releasing)
    }
}
