import ArgumentParser
import Foundation
import LoomCore
import LoomWorkspace
import LoomTesting
import LoomCommands

struct Test: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run scripted scenarios (Lua) with golden snapshots: the regression tests of a project.",
        discussion: """
            With no PATH, runs the *.lua files under the project's scenarios folder and under each of the \
            project's own plugin folders' scenarios/, then checks the project's journeys.json (host journeys), \
            each journey and profile a result. With PATHs, exactly those files and folders (a folder: \
            every *.lua below it, skipping __snapshots__). A file's project is the nearest loom.json above it; \
            a plugin's own PLUGIN/scenarios/ is a project of its own (screens/, users.json beside the scenarios) \
            with that plugin loaded.

            Snapshots live in __snapshots__/ beside each scenario file. A missing one is recorded, except under \
            CI=true where it fails; a mismatch fails and writes NAME.snap.new beside it (accept with --accept); \
            with --render-failures also NAME.snap.new.svg, the recorded and the new screen side by side.

            --coverage prints, after the results, which rule expressions were true / false / errored, which \
            components and items were shown and hidden, which screens were opened, which navigation steps were \
            offered and taken and which profiles were used; --coverage-json writes the same as JSON; \
            --min-coverage fails the run below a percentage of rule outcomes seen (each rule expression has two, \
            true and false). --lcov writes Lua line coverage of plugin files (LCOV, for genhtml), counted by a line \
            hook only when asked for. See docs/scenarios.md.

            Exit status: 0 when every scenario passed (and coverage is at least --min-coverage), 1 on any failure.
            """)

    @Argument(help: "Scenario files or folders (default: the project's scenarios and its plugins' scenarios).")
    var paths: [String] = []

    @OptionGroup var engine: EngineOptions

    @Option(name: .shortAndLong, parsing: .unconditional, help: ArgumentHelp("Worker threads, each with its own Lua state (\(NumericFlag.jobs.text); default: the number of cores).", valueName: "n"), transform: NumericFlag.jobs.parse)
    var jobs: Int = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), NumericFlag.jobs.range.upperBound)

    @Option(name: .long, help: ArgumentHelp("Run only the scenarios whose name contains TEXT.", valueName: "text"))
    var filter: String?

    @Flag(name: .long, help: "Re-record every snapshot the scenarios reach.")
    var update = false

    @Flag(name: .long, help: "Move every pending snapshot (*.snap.new) of the selected scenario files into place, and exit.")
    var accept = false

    @Flag(name: .long, help: "Delete the snapshots no scenario referenced.")
    var prune = false

    @Flag(name: .customLong("render-failures"), help: "Beside each NAME.snap.new of a failing snapshot that has frames (a screen opened for a device), write NAME.snap.new.svg: the recorded and the new screen side by side, changes outlined as host diff --render draws them.")
    var renderFailures = false

    @Option(name: .long, help: ArgumentHelp("Write a JUnit XML report to FILE.", valueName: "file"))
    var junit: String?

    @Option(name: .long, help: ArgumentHelp("Write a JSON report to FILE.", valueName: "file"))
    var json: String?

    @Option(name: .customLong("scenario-time-limit"), parsing: .unconditional, help: ArgumentHelp("Time budget of scenario code between two host operations, in milliseconds (\(NumericFlag.scenarioTimeLimit.text); default: 10000).", valueName: "ms"), transform: NumericFlag.scenarioTimeLimit.parse)
    var scenarioTimeLimit: Int = 10_000

    @Flag(name: .long, help: "Print coverage after the results: rules true / false / errored, components and items shown / hidden, screens opened, steps taken, profiles used.")
    var coverage = false

    @Option(name: .customLong("coverage-json"), help: ArgumentHelp("Write the coverage as JSON to FILE (shape: docs/schema/coverage.schema.json).", valueName: "file"))
    var coverageJSON: String?

    @Option(name: .customLong("min-coverage"), parsing: .unconditional, help: ArgumentHelp("Fail (exit 1) when fewer than N percent (0–100) of rule outcomes were seen; each rule expression has two, true and false.", valueName: "n"), transform: CoverageReport.parseMinimum)
    var minCoverage: Double?

    @Option(name: .long, help: ArgumentHelp("Write Lua line coverage of plugin files to FILE (LCOV tracefile, for genhtml); the line hook runs only with this flag.", valueName: "file"))
    var lcov: String?

    @Flag(name: .long, help: "After the run, watch the project and rerun the scenarios a save can affect (a scenario file, the scenarios that opened a changed screen, or all after a plugin, users, flows or loom.json change); Ctrl-C stops.")
    var watch = false

    func validate() throws {
        if watch && (accept || update) { throw ValidationError("--watch cannot be combined with --accept or --update") }
        try NumericFlag.jobs.check(jobs)
        try NumericFlag.scenarioTimeLimit.check(scenarioTimeLimit)
        if !accept {
            let writer = ScenarioOutput.reportWriter(project: engine.project)
            try coverageReport.validate(writer)
            if let junit { try CoverageReport.checkWritable(junit, flag: "--junit", writer: writer) }
            if let json { try CoverageReport.checkWritable(json, flag: "--json", writer: writer) }
        }
    }

    var coverageReport: CoverageReport {
        CoverageReport(table: coverage, jsonFile: coverageJSON, lcovFile: lcov, minimum: minCoverage)
    }

    var options: ScenarioOptions {
        var o = ScenarioOptions()
        o.paths = paths
        o.project = engine.project
        o.extraPluginDirs = engine.plugins
        o.limits = engine.limits
        o.fileLimits = engine.fileLimits
        o.scenarioTimeLimitMilliseconds = scenarioTimeLimit
        o.jobs = jobs
        o.filter = filter
        o.update = update
        o.ci = ScenarioOptions.ciFromEnvironment
        o.prune = prune
        o.renderFailures = renderFailures
        o.verbose = engine.verbose
        o.coverage = coverageReport.wanted
        o.lineCoverage = lcov != nil
        return o
    }

    func run() throws {
        if accept { return try ScenarioOutput.accept(options) }
        if watch { return try watchLoop() }
        // The project's journeys run after the scenarios (without PATHs), whether or not they
        // passed; their results go into the --junit and --json reports with the scenarios'.
        let journeysPassed = try ScenarioOutput.run(options, prune: prune, junit: junit, json: json, coverage: coverageReport,
                                                    journeys: paths.isEmpty ? { try runJourneys() } : nil)
        if !journeysPassed { throw ExitCode(1) }
        // Every scenario passed (or there is none): the project's configuration errors still fail the run.
        if paths.isEmpty { try ConfigurationCheck.exitOnErrors(engine) }
    }

    /// The project's journeys.json (docs/navigation.md, "Journeys"), each journey and segment a
    /// result like a scenario's (`--filter` selects them by name too), printed and returned (for
    /// the reports); `passed` false when one fails or the file has an error. Nothing when the
    /// project has none.
    func runJourneys() throws -> (results: [ScenarioResult], passed: Bool) {
        let ws = try engine.workspace(screen: nil)
        guard let report = Journeys.report(ws, users: nil) else { return ([], true) }
        var results: [ScenarioResult] = []
        for entry in report.entries {
            for c in entry.checks {
                let name = "journey \(entry.journey.name) [\(report.segments[c.segment].label)]"
                if let filter, !name.contains(filter) { continue }
                var message = "\(entry.journey.location): \(c.verdict.summary)"
                if !c.verdict.path.isEmpty { message += "\npath: " + JourneyReport.pathText(c.verdict.path) }
                if let h = c.verdict.hidden?.hiddenBy {
                    message += "\nhidden by: \(h.reason) at \(h.path)" + (h.location.map { " (\($0))" } ?? "")
                }
                results.append(ScenarioResult(
                    file: ws.journeysFile, name: name, line: entry.journey.location.line,
                    status: c.verdict.outcome == .pass ? .passed : .failed, durationMilliseconds: 0,
                    message: c.verdict.outcome == .pass ? nil : message))
            }
        }
        // Rendered as scenario results, without durations (the journeys are checked together).
        var out = "\n" + ScenarioOutput.render(results, style: Console.outStyle, durations: false)
        let failed = results.filter { $0.status == .failed }.count
        out += "journeys: \(results.count - failed) passed, \(failed) failed\n"
        Console.out(out)
        let diagnosticsFailed = Console.report(report.diagnostics)
        return (results, failed == 0 && !diagnosticsFailed)
    }
}
