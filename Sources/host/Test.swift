import ArgumentParser
import Foundation
import LoomCore
import LoomPlugins
import LoomTesting
import LuaRuntime

struct Test: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run scripted scenarios (Lua) with golden snapshots: the regression tests of a project.",
        discussion: """
            With no PATH, runs the *.lua files under the project's scenarios folder and under each of the \
            project's own plugin folders' scenarios/. With PATHs, exactly those files and folders (a folder: \
            every *.lua below it, skipping __snapshots__). A file's project is the nearest loom.json above it; \
            a plugin's own PLUGIN/scenarios/ is a project of its own (screens/, users.json beside the scenarios) \
            with that plugin loaded.

            Snapshots live in __snapshots__/ beside each scenario file. A missing one is recorded, except under \
            CI=true where it fails; a mismatch fails and writes NAME.snap.new beside it (accept with --accept).

            Exit status: 0 when every scenario passed, 1 on any failure.
            """)

    @Argument(help: "Scenario files or folders (default: the project's scenarios and its plugins' scenarios).")
    var paths: [String] = []

    @OptionGroup var engine: EngineOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Worker threads, each with its own Lua state (\(NumericFlag.jobs.text); default: the number of cores).", valueName: "n"), transform: NumericFlag.jobs.parse)
    var jobs: Int = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), NumericFlag.jobs.range.upperBound)

    @Option(name: .long, help: ArgumentHelp("Run only the scenarios whose name contains TEXT.", valueName: "text"))
    var filter: String?

    @Flag(name: .long, help: "Re-record every snapshot the scenarios reach.")
    var update = false

    @Flag(name: .long, help: "Move every pending snapshot (*.snap.new) of the selected scenario files into place, and exit.")
    var accept = false

    @Flag(name: .long, help: "Delete the snapshots no scenario referenced.")
    var prune = false

    @Option(name: .long, help: ArgumentHelp("Write a JUnit XML report to FILE.", valueName: "file"))
    var junit: String?

    @Option(name: .long, help: ArgumentHelp("Write a JSON report to FILE.", valueName: "file"))
    var json: String?

    @Option(name: .customLong("scenario-time-limit"), help: ArgumentHelp("Time budget of scenario code between two host operations, in milliseconds (\(NumericFlag.scenarioTimeLimit.text); default: 10000).", valueName: "ms"), transform: NumericFlag.scenarioTimeLimit.parse)
    var scenarioTimeLimit: Int = 10_000

    func validate() throws {
        try NumericFlag.jobs.check(jobs)
        try NumericFlag.scenarioTimeLimit.check(scenarioTimeLimit)
    }

    var options: ScenarioOptions {
        var o = ScenarioOptions()
        o.paths = paths
        o.project = engine.project
        o.extraPluginDirs = engine.plugins
        o.limits = engine.limits
        o.scenarioTimeLimitMilliseconds = scenarioTimeLimit
        o.jobs = jobs
        o.filter = filter
        o.update = update
        o.ci = ScenarioOptions.ciFromEnvironment
        o.prune = prune
        o.verbose = engine.verbose
        return o
    }

    func run() throws {
        engine.apply()
        let style = Console.outStyle
        if accept {
            let r = ScenarioRunner.accept(options)
            for (pending, golden) in r.accepted { Console.out("accepted \(TextEscape.escaped(golden))  (from \(TextEscape.escaped(pending)))\n") }
            for e in r.errors { Console.error(e.description) }
            Console.out("\(r.accepted.count) snapshot\(r.accepted.count == 1 ? "" : "s") accepted\n")
            if !r.errors.isEmpty { throw ExitCode(1) }
            return
        }
        let report = ScenarioRunner.run(options) { outcome in
            Console.out(Test.render(outcome.results, style: style))
        }
        var tail = ""
        for e in report.errors { tail += style.error("✗") + " " + TextEscape.escaped(e.message) + "\n" }
        if report.files.isEmpty && report.errors.isEmpty {
            tail += style.dim("no scenario files found") + "\n"
        }
        if !report.unreferencedSnapshots.isEmpty {
            let pruned = Set(report.prunedSnapshots)
            tail += "\n" + (prune ? "pruned unreferenced snapshots:" : "unreferenced snapshots (delete them with --prune):") + "\n"
            for s in report.unreferencedSnapshots { tail += "  \(TextEscape.escaped(s))\(prune && !pruned.contains(s) ? " (could not delete)" : "")\n" }
        }
        tail += "\n" + report.summary + "\n"
        Console.out(tail)
        if let junit { try write(report.junitXML, to: junit) }
        if let json { try write(report.json.serialized(pretty: true) + "\n", to: json) }
        if !report.succeeded { throw ExitCode(1) }
    }

    func write(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            Console.error("cannot write \(path): \(error.localizedDescription)")
            throw ExitCode(1)
        }
    }

    /// `✓ name (12 ms)` / `✗ name` with the failure indented below.
    static func render(_ results: [ScenarioResult], style: Style) -> String {
        var out = ""
        let e = TextEscape.escaped
        for r in results {
            let ms = r.durationMilliseconds < 10 ? String(format: "%.1f", r.durationMilliseconds) : String(Int(r.durationMilliseconds.rounded()))
            switch r.status {
            case .passed:
                out += style.ok("✓") + " \(e(r.name)) " + style.dim("(\(ms) ms)") + "\n"
            case .skipped:
                out += style.warning("-") + " \(e(r.name)) " + style.dim("(skipped\(r.message.map { ": " + e($0) } ?? ""))") + "\n"
            case .failed:
                out += style.error("✗") + " \(e(r.name)) " + style.dim("(\(ms) ms)") + "\n"
                // A failure is several lines by design (diffs): each line escaped, and indented.
                for line in (r.message ?? "failed").split(separator: "\n", omittingEmptySubsequences: false) {
                    out += "    " + colored(e(String(line)), style) + "\n"
                }
                if !r.output.isEmpty {
                    out += style.dim("    output:") + "\n"
                    for l in r.output { out += style.dim("      " + e(l)) + "\n" }
                }
            }
            for n in r.notes { out += style.dim("    " + e(n)) + "\n" }
        }
        return out
    }

    static func colored(_ line: String, _ style: Style) -> String {
        let t = line.drop { $0 == " " }
        if t.hasPrefix("+ ") { return style.ok(line) }
        if t.hasPrefix("- ") { return style.hidden(line) }
        if t.hasPrefix("~ ") { return style.warning(line) }
        return line
    }
}
