import ArgumentParser
import Foundation
import LoomCore
import LoomTesting

/// What `host test` prints and writes: results as they come, the summary, the reports.
enum ScenarioOutput {
    /// `--accept`: moves the pending snapshots into place; exits 1 when one cannot be moved.
    static func accept(_ options: ScenarioOptions) throws {
        let r = ScenarioRunner.accept(options)
        for (pending, golden) in r.accepted { Console.out("accepted \(TextEscape.escaped(golden))  (from \(TextEscape.escaped(pending)))\n") }
        Console.report(Diagnostics(r.errors))
        Console.out("\(r.accepted.count) snapshot\(r.accepted.count == 1 ? "" : "s") accepted\n")
        if !r.errors.isEmpty { throw ExitCode(1) }
    }

    /// Runs the scenarios, printing each file's results as it finishes; exits 1 on any failure.
    /// `journeys`, when given, runs after them (printing its own block) and its results join the
    /// scenarios' in the `--junit` and `--json` reports; returns whether they passed.
    @discardableResult
    static func run(_ options: ScenarioOptions, prune: Bool, junit: String?, json: String?, coverage: CoverageReport = CoverageReport(),
                    journeys: (() throws -> (results: [ScenarioResult], passed: Bool))? = nil) throws -> Bool {
        let style = Console.outStyle
        let report = ScenarioRunner.run(options) { outcome in
            Console.out(render(outcome.results, style: style))
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
        if let c = report.coverage { tail += coverage.text(c, style: style) }
        tail += "\n" + report.summary + "\n"
        let shortfall = report.coverage.flatMap(coverage.shortfall)
        if let shortfall { tail += style.error("✗") + " " + shortfall + "\n" }
        Console.out(tail)
        var journeysPassed = true
        var reported = report
        if let journeys {
            let j = try journeys()
            journeysPassed = j.passed
            reported.results += j.results
        }
        let writer = reportWriter(project: options.project)
        if let junit { try write(reported.junitXML, to: junit, writer) }
        if let json { try write(reported.json.serialized(pretty: true) + "\n", to: json, writer) }
        if let c = report.coverage { try coverage.write(c, writer) }
        if !report.succeeded || shortfall != nil { throw ExitCode(1) }
        return journeysPassed
    }

    /// The writer of the reports a user names (`--junit`, `--json`, `--coverage-json`,
    /// `--lcov`): fenced by the project the scenarios run in, so a report path may lie anywhere
    /// the user says, but never through a link inside the project; the file itself is never a
    /// link, FIFO or folder. Folders are not made (a missing one is a usage error).
    static func reportWriter(project: String?) -> SafeWriter {
        SafeWriter(root: project ?? Project.findRoot(from: ".") ?? ".", confined: false)
    }

    static func write(_ text: String, to path: String, _ writer: SafeWriter) throws {
        do {
            try writer.write(text, to: path, createFolders: false)
        } catch {
            Console.report(Diagnostics([.error("cannot write the report: \(error.message)", at: error.location)]))
            throw ExitCode(1)
        }
    }

    /// `✓ name (12 ms)` / `✗ name` with the failure indented below.
    static func render(_ results: [ScenarioResult], style: Style, durations: Bool = true) -> String {
        var out = ""
        let e = TextEscape.escaped
        for r in results {
            let ms = r.durationMilliseconds < 10 ? String(format: "%.1f", r.durationMilliseconds) : String(Int(r.durationMilliseconds.rounded()))
            let time = durations ? " " + style.dim("(\(ms) ms)") : ""
            switch r.status {
            case .passed:
                out += style.ok("✓") + " \(e(r.name))" + time + "\n"
            case .skipped:
                out += style.warning("-") + " \(e(r.name)) " + style.dim("(skipped\(r.message.map { ": " + e($0) } ?? ""))") + "\n"
            case .failed:
                out += style.error("✗") + " \(e(r.name))" + time + "\n"
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
