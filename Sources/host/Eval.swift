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
        var types: [String: CSVType] = [:]
        if let schema {
            switch CSVColumn.loadSchema(schema) {
            case .success(let t): types = t
            case .failure(let e): Console.report(Diagnostics([e])); throw ExitCode(1)
            }
        }
        switch UserInput.open(users, format: usersFormat, schema: types, now: now, firstLine: firstLine) {
        case .success(let i): return i
        case .failure(let e): Console.report(Diagnostics([e])); throw ExitCode(1)
        }
    }

    /// The screens in the caller's workspace (load problems reported; exit 1 on errors). The
    /// engine's options are applied first, unless `applied` (by `workers`, whose threads are
    /// running by then).
    func screens(_ args: [String], engine: EngineOptions, device: DeviceContext?, applied: Bool = false) throws -> PopulationScreens {
        if !applied { engine.apply() }
        let (screens, d) = PopulationScreens.open(options: engine.workspaceOptions(device: device), screens: args)
        Console.report(d)
        guard let screens else { throw ExitCode(1) }
        return screens
    }
}

extension PopulationOptions {
    /// The `--jobs` workers after the caller's, started before the caller opens its own
    /// workspace (the engine's options applied first): each opens its workspace on its thread at
    /// once, at the same time as the caller's, rather than once the run has begun (about 5 ms on
    /// these machines, a large part of a short run), and makes its worker with `make` at its
    /// first batch, when the input's parser is known (`parser`, set by the caller before the run).
    /// A worker whose workspace did not open answers `unopened` (the caller's reports why).
    func workers<Output: Sendable>(
        screens args: [String], engine: EngineOptions, device: DeviceContext?, parser: LateParser,
        make: @escaping @Sendable (PopulationScreens, UserParser) -> (UserBatch) -> Output,
        unopened: @escaping @Sendable (UserBatch) -> Output
    ) -> PopulationWorkers<UserBatch, Output> {
        engine.apply()
        let options = engine.workspaceOptions(device: device)
        return PopulationWorkers(threads: jobs - 1) {
            let screens = PopulationScreens.open(options: options, screens: args).0
            var work: ((UserBatch) -> Output)?
            return { b in
                if work == nil {
                    guard let screens, let p = parser.value else { return unopened(b) }
                    work = make(screens, p)
                }
                return work!(b)
            }
        }
    }
}

/// The input's parser, for workers started before the input is opened: set once by the caller
/// before the run hands out any batch.
final class LateParser: @unchecked Sendable {
    private let lock = NSLock()
    private var parser: UserParser?
    var value: UserParser? {
        get { lock.lock(); defer { lock.unlock() }; return parser }
        set { lock.lock(); parser = newValue; lock.unlock() }
    }
}

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
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
        let writer = EvalLineWriter(format: format, select: select)
        // One worker has nothing to share its answers with.
        let shared = population.jobs > 1 ? SharedAnswers() : nil
        let parser = LateParser()
        let workers = population.workers(
            screens: screens, engine: engine, device: deviceOptions.chosen, parser: parser,
            make: { screens, p in
                let worker = EvalWorker(screens: screens, parser: p, writer: writer, shared: shared)
                return { worker.process($0) }
            },
            unopened: { EvalChunk.unreadable($0) })
        let main = try population.screens(screens, engine: engine, device: deviceOptions.chosen, applied: true)
        let input = try population.input()
        parser.value = input.parser
        var report = EvalReport(failFast: population.failFast)
        report.run(workers: workers, first: main, input: input, writer: writer, shared: shared)
        if report.failed { throw ExitCode(1) }
    }
}
