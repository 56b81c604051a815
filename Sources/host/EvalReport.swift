import Foundation
import LoomCore
import LoomPopulation
import LoomStyles

/// Runs `host eval` and reports on it: the output streamed to stdout in input order, users that
/// could not be read reported at their line as they come, resolution problems once each with
/// how many users they concerned, a summary and (on a terminal) progress on stderr.
struct EvalReport {
    let failFast: Bool
    private(set) var users = 0
    private(set) var failures = 0
    private(set) var notes = ResolutionNotes()
    private(set) var stopped = false

    init(failFast: Bool) {
        self.failFast = failFast
    }

    var failed: Bool { failures > 0 || notes.hasErrors || inputFailed }
    /// Reading the input failed before its end (`UserInput.readError`).
    private var inputFailed = false

    /// Runs the users of `input` through the started `workers` and the caller's thread (its
    /// worker made by `makeWorker` at its first batch), streaming the output.
    mutating func run(input: UserInput, workers: PopulationWorkers<UserBatch, EvalChunk>, makeWorker: @escaping () -> (UserBatch) -> EvalChunk,
                      writer: EvalLineWriter) {
        let sink = OutputSink()
        var output = EvalOutput(writer: writer)
        let progress = Progress()
        sink.write(writer.header)
        workers.run(
            makeWorker: makeWorker,
            next: { input.nextBatch() },
            consume: { chunk in
                var text = chunk.text[...]
                if failFast, let f = chunk.failures.first { text = text.prefix(f.textBytes) }
                sink.write(bytes: output.text(text))
                for f in chunk.failures {
                    reportDiagnostic(f.diagnostic)
                    failures += 1
                    if failFast { stopped = true; break }
                }
                users += chunk.users
                notes.merge(chunk.notes)
                progress.tick(users, fraction: input.fractionRead)
                return !stopped
            })
        sink.write(writer.footer(any: output.wroteAny))
        sink.flush()
        progress.clear()
        if let e = input.readError { reportDiagnostic(e); inputFailed = true }
        reportNotes(notes)
        sinkError("eval: \(users) user\(users == 1 ? "" : "s")" + (failures == 0 ? ", none failed" : ", \(failures) failed")
                  + summaryEnding(stopped: stopped, inputCutShort: inputFailed) + "\n")
    }
}

/// One diagnostic on stderr, as `host eval` and `host matrix` report them.
func reportDiagnostic(_ d: Diagnostic) {
    sinkError(TreeOutput.diagnosticLine(d, style: Console.errStyle) + "\n")
}

/// A population run's resolution problems, each once with how many users it concerned and the
/// first user's line.
func reportNotes(_ notes: ResolutionNotes) {
    for d in notes.order {
        let c = notes.counts[d]!
        var x = d
        x.message += " (\(c.users) user\(c.users == 1 ? "" : "s")" + (c.firstLine > 0 ? ", first at line \(c.firstLine))" : ")")
        reportDiagnostic(x)
    }
}

/// What follows the counts on a population run's summary line when the run ended early.
func summaryEnding(stopped: Bool, inputCutShort: Bool) -> String {
    (stopped ? " (stopped at the first failure: --fail-fast)" : "") + (inputCutShort ? " (the input could not be read to its end)" : "")
}

func sinkError(_ s: String) {
    FileHandle.standardError.write(Data(s.utf8))
}

extension EvalChunk {
    /// A batch no worker could take (its workspace did not open; reported by the first one).
    static func unreadable(_ b: UserBatch) -> EvalChunk {
        var c = EvalChunk()
        c.users = b.count
        for _ in 0..<b.count { c.failures.append((0, .error("this worker's workspace did not open"))) }
        return c
    }
}

/// Users per second and the time left, on stderr when it is a terminal (never otherwise): one
/// line redrawn at most every 200 ms, the first 200 ms into the run (a rate over the first
/// batch, a few microseconds, would mean nothing; a run shorter than that draws nothing).
final class Progress {
    private let enabled = Console.stderrIsTerminal
    private let start = DispatchTime.now().uptimeNanoseconds
    private lazy var last: UInt64 = start
    private var drawn = false
    /// `fraction`: how much of the input is read, when known (a file), for the time left.
    func tick(_ users: Int, fraction: Double?) {
        guard enabled else { return }
        let t = DispatchTime.now().uptimeNanoseconds
        guard t - last > 200_000_000 else { return }
        last = t
        let secs = Double(t - start) / 1e9
        let rate = secs > 0 ? Double(users) / secs : 0
        var s = "\r\u{1B}[K\(users) users, \(Int(min(rate, 1e15))) users/s"
        if let f = fraction, f > 0, f < 1 { s += String(format: ", ETA %.0f s", secs / f - secs) }
        sinkError(s)
        drawn = true
    }

    func clear() { if drawn { sinkError("\r\u{1B}[K") } }
}
