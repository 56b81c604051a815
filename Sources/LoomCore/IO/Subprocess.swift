#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the host runs another program (Graphviz's `dot`, librsvg's `rsvg-convert`, `git`,
/// `tar`): every run has a time limit and output caps, and a program that exceeds them is
/// killed together with every process it started (its process group), so a stuck or flooding
/// program can neither hang the host nor fill its memory. Failures are diagnostics that name the
/// program and say what happened: not installed, cannot start, timed out after N s, wrote more
/// than N MiB, exit status N (with the first lines of its stderr, escaped), ended by signal N.
///
/// Written on posix_spawn and poll rather than Foundation's `Process` because `Process` can
/// neither put the child in a process group of its own (to kill what it started) nor read its
/// two pipes and write its input in one loop with a deadline: input is written only while the
/// pipe takes it, and stdout and stderr are read as they fill, so no pipe can deadlock on a
/// large output.
public enum Subprocess {
    public struct Limits: Sendable, Equatable {
        /// Wall-clock seconds before the program is killed (also bounded by the current
        /// request's `Deadline`).
        public var timeout: Double
        /// Bytes of standard output kept; one more and the program is killed.
        public var maxOutputBytes: Int
        /// Bytes of standard error kept; one more and the program is killed.
        public var maxErrorBytes: Int

        public init(timeout: Double = 60, maxOutputBytes: Int = 64 << 20, maxErrorBytes: Int = 1 << 20) {
            self.timeout = timeout
            self.maxOutputBytes = maxOutputBytes
            self.maxErrorBytes = maxErrorBytes
        }
    }

    /// What a program that ended with status 0 wrote.
    public struct Output: Sendable {
        public var stdout: [UInt8]
        public var stderr: [UInt8]
    }

    /// `name` on `path` (colon-separated; the first executable match), or `name` itself when it
    /// holds a `/`.
    public static func locate(_ name: String, path: String?) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 && isRegular(name) ? name : nil }
        let dirs = (path ?? "/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: true)
        for d in dirs {
            let candidate = "\(d)/\(name)"
            if access(candidate, X_OK) == 0, isRegular(candidate) { return candidate }
        }
        return nil
    }

    static func isRegular(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `path` is a regular file this process may execute.
    public static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0 && isRegular(path)
    }

    /// The path of the running executable (Linux: `/proc/self/exe`; elsewhere nil).
    public static func currentExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let n = readlink("/proc/self/exe", &buffer, 4096)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Replaces this process with the program at `path`, given `arguments` (its `argv[0]` is
    /// `path`): `host serve` becoming `host-serve`. Not a run under limits as `run` is: the
    /// program is not a child but this process itself (same process id), so its exit status and
    /// the signals sent to it are the caller's own, and it runs as long as it is meant to (a
    /// server). Returns only when the program cannot be started, with why.
    public static func replaceProcess(with path: String, arguments: [String]) -> Diagnostic {
        let owned = ([path] + arguments).map { strdup($0) }
        defer { for p in owned { free(p) } }
        return exec(path, owned + [nil])
    }

    /// The PATH the host was started with.
    public static var environmentPath: String? {
        getenv("PATH").map { String(cString: $0) }
    }

    /// Runs `name` (found on `path`) with `arguments`, writes `input` to its standard input and
    /// collects what it writes. `missing` is the message when the program is not installed.
    /// Status 0 is success; anything else is a diagnostic (`label`, default the program's name,
    /// names it).
    public static func run(
        _ name: String, arguments: [String], input: [UInt8] = [], limits: Limits = Limits(),
        path: String? = environmentPath, missing: String? = nil, label: String? = nil
    ) -> Result<Output, Diagnostic> {
        let shown = "`\(TextEscape.escaped(label ?? name))`"
        guard let exe = locate(name, path: path) else {
            return .failure(.error(missing ?? "\(shown) is not installed (not found on PATH)"))
        }
        // The time it may take: its own limit, or less when the request it works for ends first.
        var seconds = max(0, limits.timeout)
        var byRequest = false
        if let d = Deadline.current, d.remaining < seconds {
            seconds = d.remaining
            byRequest = true
        }
        let spawned: Spawned
        switch spawn(exe, arguments) {
        case .success(let s): spawned = s
        case .failure(let e): return .failure(.error("cannot run \(shown) (\(TextEscape.escaped(exe))): \(e.message)"))
        }
        let outcome = spawned.communicate(input: input, limits: limits, seconds: seconds)
        switch outcome.end {
        case .timedOut:
            if byRequest {
                return .failure(.error("\(shown) was stopped: the request's time limit (\(Deadline.current?.limitText ?? "")) is over"))
            }
            return .failure(.error("\(shown) did not finish within \(Deadline.secondsText(limits.timeout)) and was stopped"))
        case .outputOver:
            return .failure(.error("\(shown) wrote more than \(bytesText(limits.maxOutputBytes)) to its output and was stopped"))
        case .errorOver:
            return .failure(.error("\(shown) wrote more than \(bytesText(limits.maxErrorBytes)) to its error output and was stopped"))
        case .exited(0):
            return .success(Output(stdout: outcome.stdout, stderr: outcome.stderr))
        case .exited(let code):
            return .failure(.error("\(shown) failed (exit status \(code))\(errorLines(outcome.stderr))"))
        case .signalled(let sig):
            return .failure(.error("\(shown) was ended by signal \(sig)\(errorLines(outcome.stderr))"))
        }
    }

    /// ": " and the first lines of a program's stderr (at most 5 lines, 2,000 characters), escaped.
    static func errorLines(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(8192), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { line -> String in
                // Trimmed by hand: LoomCore's IO layer uses the C library only.
                let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
                return String(line.drop(while: blank).reversed().drop(while: blank).reversed())
            }
            .filter { !$0.isEmpty }
        guard !lines.isEmpty else { return "" }
        var shown = lines.prefix(5).joined(separator: "\n")
        if shown.count > 2000 { shown = String(shown.prefix(2000)) + "…" }
        if lines.count > 5 { shown += "\n…" }
        return ": " + TextEscape.escaped(shown)
    }

    /// "64 MiB", "512 KiB", "100 bytes".
    public static func bytesText(_ n: Int) -> String {
        if n >= 1 << 20, n % (1 << 20) == 0 { return "\(n >> 20) MiB" }
        if n >= 1 << 10, n % (1 << 10) == 0 { return "\(n >> 10) KiB" }
        return "\(n) bytes"
    }

    // MARK: Spawning and the I/O loop

    enum End: Equatable {
        case exited(Int32), signalled(Int32), timedOut, outputOver, errorOver
    }

    struct Outcome {
        var end: End
        var stdout: [UInt8]
        var stderr: [UInt8]
    }

    /// A started program: its pid (also its process group) and our ends of its three pipes.
    struct Spawned {
        var pid: pid_t
        var stdin: Int32
        var stdout: Int32
        var stderr: Int32
    }

    struct SpawnError: Error { var message: String }

    /// See `SpawnLock` (Unsafe.swift).
    static let spawnLock = SpawnLock()

    static func spawn(_ exe: String, _ arguments: [String]) -> Result<Spawned, SpawnError> {
        spawnLock.locked { spawnHoldingLock(exe, arguments) }
    }

    private static func spawnHoldingLock(_ exe: String, _ arguments: [String]) -> Result<Spawned, SpawnError> {
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        func closeAll() { for fd in inPipe + outPipe + errPipe where fd >= 0 { close(fd) } }
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            let e = errno
            closeAll()
            return .failure(SpawnError(message: String(cString: strerror(e))))
        }
        for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the child's 0, 1 and 2; every other pipe end closes on exec.
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // A process group of its own (pgid = pid): a time-out kills everything it started. Default
        // signal dispositions and an empty mask, whatever the host's threads have.
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attr, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)

        var pid: pid_t = 0
        let rc = RawIO.withCStrings([exe] + arguments) { argv in posix_spawn(&pid, exe, &actions, &attr, argv, environ) }
        close(inPipe[0])
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else {
            close(inPipe[1])
            close(outPipe[0])
            close(errPipe[0])
            return .failure(SpawnError(message: String(cString: strerror(rc))))
        }
        for fd in [inPipe[1], outPipe[0], errPipe[0]] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return .success(Spawned(pid: pid, stdin: inPipe[1], stdout: outPipe[0], stderr: errPipe[0]))
    }
}

extension Subprocess.Spawned {
    /// Writes `input`, reads both outputs, and waits for the end, all within `seconds`; past
    /// the limit or a cap the whole process group is killed. The child is always reaped.
    func communicate(input: [UInt8], limits: Subprocess.Limits, seconds: Double) -> Subprocess.Outcome {
        let end = Deadline.nowNanoseconds &+ UInt64(min(max(0, seconds), 1e9) * 1e9)
        var out: [UInt8] = [], err: [UInt8] = []
        var inFD = stdin, outFD: Int32 = stdout, errFD: Int32 = stderr
        var written = 0
        var stop: Subprocess.End?

        // A program that closes its input early must not end the host with SIGPIPE: block it on
        // this thread while writing, then take the one the write raised (it stays pending).
        var pipeSet = sigset_t(), oldMask = sigset_t()
        sigemptyset(&pipeSet)
        sigaddset(&pipeSet, SIGPIPE)
        var pendingBefore = sigset_t()
        sigpending(&pendingBefore)
        let hadPipePending = sigismember(&pendingBefore, SIGPIPE) == 1
        pthread_sigmask(SIG_BLOCK, &pipeSet, &oldMask)
        defer {
            if !hadPipePending {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                while sigtimedwait(&pipeSet, nil, &zero) == SIGPIPE {}
            }
            pthread_sigmask(SIG_SETMASK, &oldMask, nil)
        }

        if input.isEmpty {
            close(inFD)
            inFD = -1
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while outFD >= 0 || errFD >= 0 {
            let now = Deadline.nowNanoseconds
            if now >= end {
                stop = .timedOut
                break
            }
            var fds: [pollfd] = []
            if inFD >= 0 { fds.append(pollfd(fd: inFD, events: Int16(POLLOUT), revents: 0)) }
            if outFD >= 0 { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
            if errFD >= 0 { fds.append(pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)) }
            let waitMs = Int32(min((end - now) / 1_000_000 + 1, 1000))
            let n = poll(&fds, nfds_t(fds.count), waitMs)
            if n < 0 {
                if errno == EINTR { continue }
                stop = .timedOut
                break
            }
            for p in fds where p.revents != 0 {
                if p.fd == inFD {
                    let w = RawIO.write(inFD, input, from: written, limit: 65536)
                    if w > 0 {
                        written += w
                        if written >= input.count { close(inFD); inFD = -1 }
                    } else if w < 0, errno != EAGAIN, errno != EINTR {
                        // EPIPE: the program stopped reading; what it made of it decides.
                        close(inFD)
                        inFD = -1
                    }
                    continue
                }
                let isOut = p.fd == outFD
                let r = RawIO.read(p.fd, into: &chunk, at: 0)
                if r > 0 {
                    if isOut {
                        out.append(contentsOf: chunk[0..<r])
                        if out.count > limits.maxOutputBytes { stop = .outputOver }
                    } else {
                        err.append(contentsOf: chunk[0..<r])
                        if err.count > limits.maxErrorBytes { stop = .errorOver }
                    }
                } else if r == 0 || (errno != EAGAIN && errno != EINTR) {
                    close(p.fd)
                    if isOut { outFD = -1 } else { errFD = -1 }
                }
            }
            if stop != nil { break }
        }
        for fd in [inFD, outFD, errFD] where fd >= 0 { close(fd) }

        // Both outputs are closed (or we gave up on them): wait for the exit, still within the
        // limit. WNOWAIT leaves the child a zombie, so its pid (the group id) cannot be reused
        // before the group is killed below.
        if stop == nil {
            var pause: UInt32 = 200
            while true {
                var info = siginfo_t()
                let w = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
                if w == 0, info.si_pid_value != 0 { break }
                // Reaped elsewhere (SIGCHLD ignored by an embedding program): nothing to wait for.
                if w < 0, errno == ECHILD { break }
                if Deadline.nowNanoseconds >= end {
                    stop = .timedOut
                    break
                }
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
        }
        // Whatever it started and left behind goes with it (harmless when nothing is left).
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if let stop { return Subprocess.Outcome(end: stop, stdout: out, stderr: err) }
        let termination = status & 0x7f
        let end2: Subprocess.End = termination == 0 ? .exited((status >> 8) & 0xff) : .signalled(termination)
        return Subprocess.Outcome(end: end2, stdout: out, stderr: err)
    }
}

extension siginfo_t {
    /// `si_pid` (a union member the Swift importer does not name on Glibc).
    var si_pid_value: pid_t {
        #if canImport(Glibc)
        return _sifields._sigchld.si_pid
        #else
        return si_pid
        #endif
    }
}

/// The runner's former name, kept so code written against it still builds.
@available(*, deprecated, renamed: "Subprocess")
public typealias ExternalProgram = Subprocess
