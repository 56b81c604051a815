#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The moment after which the work of one request is no longer wanted (`host serve
/// --request-timeout`). A worker runs a request inside `Deadline.run(with:)`; the long loops
/// (graph exploration, the layout's solver, rendering) check `Deadline.expired` and stop early,
/// external programs get at most the time that remains (`Subprocess`), and the Lua budget
/// of the request is capped at it. The CLI sets none: `Deadline.expired` is then always false
/// and costs one thread-local read.
///
/// The deadline is a thread-local rather than a parameter because the loops it must reach sit
/// several modules below the server (LoomNavigation, LoomLayout) behind APIs that the CLI
/// shares; a worker thread serves one request at a time, so "the current request" is exactly
/// "the request of this thread".
public final class Deadline: Sendable {
    /// The limit it was made with, in seconds (for messages).
    public let seconds: Double
    /// Monotonic nanoseconds (CLOCK_MONOTONIC) at which it passes.
    public let endNanoseconds: UInt64

    public init(seconds: Double) {
        self.seconds = seconds
        let limit = seconds.isFinite && seconds > 0 ? min(seconds, 1e9) : 0
        endNanoseconds = Deadline.nowNanoseconds &+ UInt64(limit * 1e9)
    }

    /// CLOCK_MONOTONIC in nanoseconds (the clock the Lua budget reads too).
    public static var nowNanoseconds: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Whether it has passed.
    public var isExpired: Bool { Deadline.nowNanoseconds >= endNanoseconds }

    /// Seconds left (0 once passed).
    public var remaining: Double {
        let now = Deadline.nowNanoseconds
        return now >= endNanoseconds ? 0 : Double(endNanoseconds - now) / 1e9
    }

    /// "10 s", "1.5 s": the limit as messages show it.
    public var limitText: String { Deadline.secondsText(seconds) }

    /// "10 s", "0.5 s".
    public static func secondsText(_ s: Double) -> String {
        if s == s.rounded(), abs(s) < 1e15 { return "\(Int(s)) s" }
        return "\((s * 1000).rounded() / 1000) s"
    }

    // The current thread's deadline (`current`, `expired`, `run(with:)`) is in Unsafe.swift:
    // a pthread key holding an unretained pointer.
}
