import ArgumentParser
import Foundation
import LoomCore
import LoomPlugins
import LoomPopulation
import LoomStyles

extension EvalSelect: ExpressibleByArgument {}
extension EvalOutputFormat: ExpressibleByArgument {}
extension UserFileFormat: ExpressibleByArgument {}

/// Options `host eval` and `host matrix` share: where the users come from.
struct PopulationOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The users: users.json profiles (.json), JSON Lines (one attribute object per line, optional \"name\"), or CSV with a header (.csv); - reads standard input.", valueName: "file"))
    var users: String

    @Option(name: .customLong("users-format"), help: ArgumentHelp("How --users is written: jsonl, csv or profiles (default: by the file's extension; standard input: jsonl).", valueName: "format"))
    var usersFormat: UserFileFormat?

    @Option(name: .long, help: ArgumentHelp("CSV only: a JSON object typing columns (string, integer, number, boolean, json) instead of the default rule.", valueName: "file"))
    var schema: String?

    @Option(name: .long, help: ArgumentHelp("The evaluation time, ISO-8601, given to every user as the attribute `now`.", valueName: "time"))
    var now: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Worker threads, each with its own Lua state (\(NumericFlag.jobs.text); default: the number of cores).", valueName: "n"), transform: NumericFlag.jobs.parse)
    var jobs: Int = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), NumericFlag.jobs.range.upperBound)

    @Option(name: .customLong("first-line"), help: ArgumentHelp("The line number of the input's first line, for a part of a larger file (user labels and error locations; default: 1).", valueName: "n"))
    var firstLine: Int = 1

    @Flag(name: .customLong("fail-fast"), help: "Stop at the first user that cannot be read (default: report it and go on).")
    var failFast = false

    func validate() throws {
        try NumericFlag.jobs.check(jobs)
        if firstLine < 1 { throw ValidationError("--first-line takes a line number (1 or more), found \(firstLine)") }
        if let now, !ISODate.isValid(now) {
            throw ValidationError("--now takes an ISO-8601 date or date-time (e.g. 2026-11-21T12:00:00Z), found '\(now)'")
        }
    }

    /// The users' source (its CSV header read), or exit 1 with the reason.
    func input() throws -> UserInput {
        try reported(openInput())
    }

    /// The users' source (its CSV header read), or the reason it cannot be read (not reported).
    func openInput() -> Result<UserInput, Diagnostic> {
        var types: [String: CSVType] = [:]
        if let schema {
            switch CSVColumn.loadSchema(schema) {
            case .success(let t): types = t
            case .failure(let e): return .failure(e)
            }
        }
        return UserInput.open(users, format: usersFormat, schema: types, now: now, firstLine: firstLine, workers: jobs)
    }

    /// The source `openInput` gave, or exit 1 with the reason.
    func reported(_ opened: Result<UserInput, Diagnostic>) throws -> UserInput {
        switch opened {
        case .success(let i): return i
        case .failure(let e): Console.report(Diagnostics([e])); throw ExitCode(1)
        }
    }

    /// The screens in the caller's workspace (load problems reported; exit 1 on errors).
    func screens(_ args: [String], engine: EngineOptions, device: DeviceContext?) throws -> PopulationScreens {
        engine.apply()
        let (screens, d) = PopulationScreens.open(options: engine.workspaceOptions(device: device), screens: args)
        Console.report(d)
        guard let screens else { throw ExitCode(1) }
        return screens
    }
}

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Resolve screens for a whole population of users: one output line per user and screen, streamed, in input order.",
        discussion: """
            Users are read from --users (users.json, JSON Lines or CSV; - for standard input) and resolved on --jobs \
            worker threads, each with its own Lua state; output is the same byte for byte at any --jobs. A user whose \
            record cannot be read is reported at its line (file:line:column: error: …) and the others go on \
            (--fail-fast stops); a summary goes to stderr. Exit status: 0 success, 1 when any user failed or a rule \
            failed. See docs/populations.md.
            """)

    @Argument(help: "The screen files or screen ids.")
    var screens: [String]

    @OptionGroup var population: PopulationOptions
    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .long, help: "Output format: jsonl, csv or json.")
    var format: EvalOutputFormat = .jsonl

    @Option(name: .long, help: "What each line holds: visible (component and item ids), tree, actions or hash.")
    var select: EvalSelect = .visible

    func validate() throws {
        if screens.isEmpty { throw ValidationError("host eval needs at least one screen") }
    }

    func run() throws {
        engine.apply()
        let writer = EvalLineWriter(format: format, select: select)
        var report = EvalReport(jobs: population.jobs, failFast: population.failFast)
        // The users' source first (its problem reported after the screens'), so that the worker
        // threads open their workspaces while this thread opens its own.
        let opened = population.openInput()
        if case .success(let input) = opened {
            report.start(screens: screens, options: engine.workspaceOptions(device: deviceOptions.chosen), parser: input.parser, writer: writer)
        }
        let main = try population.screens(screens, engine: engine, device: deviceOptions.chosen)
        let input = try population.reported(opened)
        report.run(first: main, input: input, writer: writer)
        if report.failed { throw ExitCode(1) }
    }
}
