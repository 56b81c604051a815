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
public final class Deadline: @unchecked Sendable {
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

    // MARK: The current thread's deadline

    /// The pthread key holding the current thread's deadline (an unretained pointer: `run`
    /// keeps the object alive for as long as it is set).
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// The deadline of the request this thread is working on, if any.
    public static var current: Deadline? {
        guard let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<Deadline>.fromOpaque(p).takeUnretainedValue()
    }

    /// Whether this thread works for a request whose deadline has passed: what long loops check
    /// (false on a thread without a deadline, such as every CLI command's).
    public static var expired: Bool {
        guard let p = pthread_getspecific(key) else { return false }
        return Unmanaged<Deadline>.fromOpaque(p).takeUnretainedValue().isExpired
    }

    /// Runs `body` with `deadline` as this thread's current deadline (restoring the previous one).
    public static func run<T>(with deadline: Deadline?, _ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        let mine = deadline.map { Unmanaged.passRetained($0).toOpaque() }
        pthread_setspecific(key, mine)
        defer {
            pthread_setspecific(key, previous)
            if let mine { Unmanaged<Deadline>.fromOpaque(mine).release() }
        }
        return try body()
    }
}
