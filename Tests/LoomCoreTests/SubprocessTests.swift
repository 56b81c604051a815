import Foundation
import LoomCore
import XCTest

/// `Subprocess`: fake programs (shell scripts in a temporary folder) that sleep, flood
/// their output or their error output, start children of their own, or fail; each is stopped
/// and reported, and what it started goes with it. Large input and output in both directions
/// pass without a pipe deadlock.
final class SubprocessTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-extprog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    /// Writes an executable script `name` into the folder.
    func script(_ name: String, _ body: String) throws {
        let url = dir.appendingPathComponent(name)
        try ("#!/bin/sh\n" + body + "\n").write(to: url, atomically: true, encoding: .utf8)
        chmod(url.path, 0o755)
    }

    func run(_ name: String, _ args: [String] = [], input: [UInt8] = [], limits: Subprocess.Limits) -> Result<Subprocess.Output, Diagnostic> {
        Subprocess.run(name, arguments: args, input: input, limits: limits, path: dir.path)
    }

    func message(_ r: Result<Subprocess.Output, Diagnostic>) -> String {
        if case .failure(let d) = r { return d.message }
        return "(succeeded)"
    }

    /// Whether `pid` is gone (or a zombie nobody reaped yet: it runs no more).
    func isGone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return kill(pid, 0) != 0 }
        guard let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state == "Z" || state == "X"
    }

    func testASleepingProgramIsKilledAtItsTimeLimitWithWhatItStarted() throws {
        let pidFile = dir.appendingPathComponent("child.pid").path
        // The script starts a child of its own (which keeps stdout open) and waits forever.
        try script("sleeper", "sleep 1000 &\necho $! > '\(pidFile)'\nwhile true; do sleep 1; done")
        let started = Date()
        let r = run("sleeper", limits: .init(timeout: 1))
        XCTAssertEqual(message(r), "`sleeper` did not finish within 1 s and was stopped")
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "hang guard")
        let child = try XCTUnwrap(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // SIGKILL to the group is delivered at once; give the kernel a moment to tear it down.
        var gone = false
        for _ in 0..<200 where !gone {
            gone = isGone(child)
            if !gone { usleep(10_000) }
        }
        XCTAssertTrue(gone, "the program's own child (pid \(child)) was killed with it")
    }

    func testAFloodOfOutputIsCutAtTheCap() throws {
        try script("flood", "exec yes 'flood flood flood'")
        let r = run("flood", limits: .init(timeout: 60, maxOutputBytes: 1 << 20))
        XCTAssertEqual(message(r), "`flood` wrote more than 1 MiB to its output and was stopped")
    }

    func testAFloodOfErrorOutputIsCutAtTheCap() throws {
        try script("noisy", "exec yes 'warning warning' >&2")
        let r = run("noisy", limits: .init(timeout: 60, maxErrorBytes: 64 << 10))
        XCTAssertEqual(message(r), "`noisy` wrote more than 64 KiB to its error output and was stopped")
    }

    /// 8 MiB in, 8 MiB out and 1 MiB on stderr at the same time: a program that writes before it
    /// has read all its input would deadlock with a writer that does not read meanwhile.
    func testLargeInputAndOutputPassWithoutDeadlock() throws {
        try script("both", "cat")
        var input = [UInt8]()
        input.reserveCapacity(8 << 20)
        for i in 0..<(8 << 20) { input.append(UInt8(truncatingIfNeeded: i &* 31 &+ i >> 9)) }
        let out = try run("both", input: input, limits: .init(timeout: 120)).get()
        XCTAssertEqual(out.stdout.count, input.count)
        XCTAssertTrue(out.stdout == input, "the output is the input, byte for byte")
        // A program that interleaves stdout and stderr (both large) while still reading.
        try script("mixed", "i=0; while [ $i -lt 2000 ]; do echo 'a line of output that is fairly long, to fill the pipe quickly'; echo 'and one on stderr, as long as the other one is, or longer' >&2; i=$((i+1)); done; cat >/dev/null")
        let mixed = try run("mixed", input: input, limits: .init(timeout: 120)).get()
        XCTAssertEqual(mixed.stdout.filter { $0 == 0x0A }.count, 2000)
        XCTAssertEqual(mixed.stderr.filter { $0 == 0x0A }.count, 2000)
    }

    /// A program that exits without reading its input: the host is not ended by SIGPIPE.
    func testAProgramThatIgnoresItsInputDoesNotKillTheHost() throws {
        try script("deaf", "exit 0")
        let input = [UInt8](repeating: 0x41, count: 4 << 20)
        XCTAssertNoThrow(try run("deaf", input: input, limits: .init(timeout: 60)).get())
    }

    func testFailuresNameTheProgramAndEscapeItsMessages() throws {
        try script("failing", "printf 'first \\033[31mred\\033[0m line\\nsecond line\\n' >&2; exit 3")
        XCTAssertEqual(message(run("failing", limits: .init())),
                       "`failing` failed (exit status 3): first \\u{1B}[31mred\\u{1B}[0m line\\nsecond line")
        try script("crashing", "kill -SEGV $$")
        XCTAssertEqual(message(run("crashing", limits: .init())), "`crashing` was ended by signal 11")
        XCTAssertEqual(message(Subprocess.run("no-such-program", arguments: [], path: dir.path, missing: "install it")), "install it")
        XCTAssertEqual(message(Subprocess.run("no-such-program", arguments: [], path: dir.path)),
                       "`no-such-program` is not installed (not found on PATH)")
        // Not executable: not found.
        try "#!/bin/sh\n".write(to: dir.appendingPathComponent("plain"), atomically: true, encoding: .utf8)
        XCTAssertEqual(message(run("plain", limits: .init())), "`plain` is not installed (not found on PATH)")
        try script("fine", "echo ok; echo note >&2")
        let ok = try run("fine", limits: .init()).get()
        XCTAssertEqual(String(decoding: ok.stdout, as: UTF8.self), "ok\n")
        XCTAssertEqual(String(decoding: ok.stderr, as: UTF8.self), "note\n")
    }

    /// Inside a request, a program gets at most the time the request has left.
    func testTheRequestDeadlineBoundsTheTimeLimit() throws {
        try script("sleeper", "exec sleep 1000")
        let r = Deadline.run(with: Deadline(seconds: 1)) {
            run("sleeper", limits: .init(timeout: 600))
        }
        XCTAssertEqual(message(r), "`sleeper` was stopped: the request's time limit (1 s) is over")
        XCTAssertNil(Deadline.current, "the deadline is the block's only")
        XCTAssertFalse(Deadline.expired)
    }

    func testDeadlineIsPerThreadAndNests() throws {
        XCTAssertNil(Deadline.current)
        let outer = Deadline(seconds: 100)
        Deadline.run(with: outer) {
            XCTAssertTrue(Deadline.current === outer)
            XCTAssertFalse(Deadline.expired)
            Deadline.run(with: Deadline(seconds: 0)) { XCTAssertTrue(Deadline.expired) }
            XCTAssertTrue(Deadline.current === outer)
            let other = Thread { XCTAssertNil(Deadline.current) }
            other.start()
            while !other.isFinished { usleep(1000) }
        }
        XCTAssertNil(Deadline.current)
    }
}

/// `TextEscape.html`: markup and control characters from data cannot reach a page as markup.
final class HTMLEscapeTests: XCTestCase {
    func testMarkupAndControlsAreEscaped() {
        XCTAssertEqual(TextEscape.html("plain text, 100%"), "plain text, 100%")
        XCTAssertEqual(TextEscape.html("<img src=x onerror='a(\"b\")'>&"), "&lt;img src=x onerror=&#39;a(&quot;b&quot;)&#39;&gt;&amp;")
        XCTAssertEqual(TextEscape.html("</script><script>"), "&lt;/script&gt;&lt;script&gt;")
        XCTAssertEqual(TextEscape.html("a\u{1B}[2J\u{07}b\u{7F}\u{85}c\tline\n"), "a\u{FFFD}[2J\u{FFFD}b\u{FFFD}\u{FFFD}c\tline\n")
        XCTAssertEqual(TextEscape.html("Ünïcödé ✓ \u{FFFF}"), "Ünïcödé ✓ \u{FFFD}")
    }
}
