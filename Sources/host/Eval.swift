import ArgumentParser
import Foundation
import LoomCore
import LoomWorkspace
import LoomPopulation
import LoomStyles

extension EvalSelect: ExpressibleByArgument {}
extension EvalOutputFormat: ExpressibleByArgument {}
extension UserFileFormat: ExpressibleByArgument {}

extension NumericFlag {
    /// Up to 2^53, so that line numbers never overflow (`RecordReader.firstLineRange`).
    static let firstLine = NumericFlag(flag: "--first-line", unit: "lines", range: RecordReader.firstLineRange, what: "a line number")
}

/// Options `host eval` and `host matrix` share: where the users come from.
struct PopulationOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The users: users.json profiles (.json), JSON Lines (one attribute object per line, optional \"name\", and \"data\": the user's own data sources), or CSV with a header (.csv); - reads standard input.", valueName: "file"))
    var users: String

    @Option(name: .customLong("users-format"), help: ArgumentHelp("How --users is written: jsonl, csv or profiles (default: by the file's extension; standard input: jsonl).", valueName: "format"))
    var usersFormat: UserFileFormat?

    @Option(name: .long, help: ArgumentHelp("CSV only: a JSON object typing columns (string, integer, number, boolean, json) instead of the default rule.", valueName: "file"))
    var schema: String?

    @Option(name: .long, help: ArgumentHelp("The evaluation time, ISO-8601, given to every user as the attribute `now`.", valueName: "time"))
    var now: String?

    @Option(name: .long, help: ArgumentHelp("The locale strings resolve for, set as every user's `locale` attribute: over a user's own `locale`, as host run --locale sets it over a profile's (to keep each user's own, leave it out: users without one get loom.json's default_locale). A right-to-left locale mirrors the layout; pseudo-locales en-XA and ar-XB. A tag the project has no strings for is an error.", valueName: "tag"))
    var locale: String?

    @Option(name: .shortAndLong, parsing: .unconditional, help: ArgumentHelp("Worker threads, each with its own Lua state (\(NumericFlag.jobs.text); default: the number of cores).", valueName: "n"), transform: NumericFlag.jobs.parse)
    var jobs: Int = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), NumericFlag.jobs.range.upperBound)

    @Option(name: .customLong("first-line"), parsing: .unconditional, help: ArgumentHelp("The line number of the input's first line, for a part of a larger file (user labels and error locations; \(NumericFlag.firstLine.text)).", valueName: "n"), transform: NumericFlag.firstLine.parse)
    var firstLine: Int = 1

    @Flag(name: .customLong("fail-fast"), help: "Stop at the first user that cannot be read (default: report it and go on).")
    var failFast = false

    func validate() throws {
        try NumericFlag.jobs.check(jobs)
        try NumericFlag.firstLine.check(firstLine)
        if let now, !ISODate.isValid(now) {
            throw ValidationError("--now takes an ISO-8601 date or date-time (e.g. 2026-11-21T12:00:00Z), found '\(now)'")
        }
        if let locale, !StringCatalog.isTag(locale) {
            throw ValidationError("--locale '\(TextEscape.escaped(locale))' is not a locale tag such as en, nb-NO or ar-XB")
        }
    }

    /// The users' source (its CSV header read), or the reason it cannot be read (not reported).
    private func openInput(fileLimits: FileLimits) -> Result<UserInput, Diagnostic> {
        var types: [String: CSVType] = [:]
        if let schema {
            switch CSVColumn.loadSchema(schema, limits: fileLimits) {
            case .success(let t): types = t
            case .failure(let e): return .failure(e)
            }
        }
        return UserInput.open(users, format: usersFormat, schema: types, now: now, locale: locale, firstLine: firstLine, workers: jobs, fileLimits: fileLimits)
    }

    /// Opens the users' source, starts the worker threads, then opens the caller's workspace of
    /// `args`: one thread per core beside this one opens its own workspace at once, meanwhile,
    /// and is ready when the users come (`PopulationPipeline.eagerThreads`); the others open
    /// theirs at their first batch. `work` makes a worker for a workspace (here and on each
    /// thread); `unopened` answers a batch on a thread whose workspace did not open. Problems
    /// are reported, the screens' first; exit 1 on either.
    func start<Output: Sendable>(screens args: [String], engine: EngineOptions, device: DeviceContext?,
                                 work: @escaping @Sendable (PopulationScreens, UserParser) -> (UserBatch) -> Output,
                                 unopened: @escaping @Sendable (UserBatch) -> Output) throws
        -> (first: PopulationScreens, input: UserInput, workers: PopulationWorkers<UserBatch, Output>) {
        let input: UserInput
        switch openInput(fileLimits: engine.fileLimits) {
        case .success(let i): input = i
        case .failure(let e):
            _ = try screens(args, engine: engine, device: device)
            Console.report(Diagnostics([e]))
            throw ExitCode(1)
        }
        let options = engine.workspaceOptions(device: device), parser = input.parser
        let workers = PopulationWorkers<UserBatch, Output>(threads: jobs - 1, eager: PopulationPipeline.eagerThreads(jobs: jobs)) {
            guard let screens = PopulationScreens.open(options: options, screens: args).0 else { return unopened }
            return work(screens, parser)
        }
        return (try screens(args, engine: engine, device: device), input, workers)
    }

    /// The screens in the caller's workspace (load problems reported; exit 1 on errors).
    func screens(_ args: [String], engine: EngineOptions, device: DeviceContext?) throws -> PopulationScreens {
        let (screens, d) = PopulationScreens.open(options: engine.workspaceOptions(device: device), screens: args)
        Console.report(d)
        guard let screens else { throw ExitCode(1) }
        if let locale, let problem = PopulationOptions.unknownLocale(locale, in: screens.workspace.strings) {
            Console.error(problem)
            throw ExitCode(1)
        }
        return screens
    }

    /// Why `--locale tag` cannot be what the user meant, or nil: in a project with strings, a
    /// tag none of whose language's files exist (`fr` when there are `en`, `nb`, `ar`) would
    /// silently show the default locale's texts to every user, so it is an error with a
    /// did-you-mean among the project's locales and the pseudo-locales. A project without
    /// strings takes any tag (only its direction matters there).
    static func unknownLocale(_ tag: String, in catalog: StringCatalog) -> String? {
        guard !catalog.isEmpty, PseudoLocale(tag) == nil, catalog.languageChain(tag).isEmpty else { return nil }
        let known = catalog.tables.keys.map { catalog.writtenTag($0) }.sorted() + ["en-XA", "ar-XB"]
        // Two bare language subtags a letter apart are two languages (`fr`, `ar`), not a typo:
        // no suggestion between them (`nbb` → `nb`, `en-XB` → `en-XA` are still suggested).
        func bare(_ t: String) -> Bool { t.count <= 3 && !t.contains("-") && !t.contains("_") }
        let near = DidYouMean.suggest(tag, among: known).flatMap { bare(tag) && bare($0) && tag.count == $0.count ? nil : $0 }
            .map { "; did you mean '\($0)'?" } ?? ""
        return "--locale '\(tag)': the project has no strings for that language (its locales: \(known.joined(separator: ", ")))\(near)"
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

    @Option(name: .long, help: "What each line holds: visible (component and item ids), tree, actions, hash, or unsupported (the nodes the user's client cannot render, with clients.json).")
    var select: EvalSelect = .visible

    func validate() throws {
        if screens.isEmpty { throw ValidationError("host eval needs at least one screen") }
    }

    func run() throws {
        let writer = EvalLineWriter(format: format, select: select)
        // One worker has nothing to share its answers with.
        let shared = population.jobs > 1 ? SharedAnswers() : nil
        let work: @Sendable (PopulationScreens, UserParser) -> (UserBatch) -> EvalChunk = { screens, parser in
            let worker = EvalWorker(screens: screens, parser: parser, writer: writer, shared: shared)
            return { worker.process($0) }
        }
        let (first, input, workers) = try population.start(screens: screens, engine: engine, device: deviceOptions.chosen,
                                                           work: work, unopened: { EvalChunk.unreadable($0) })
        var report = EvalReport(failFast: population.failFast)
        report.run(input: input, workers: workers, makeWorker: { work(first, input.parser) }, writer: writer)
        if report.failed { throw ExitCode(1) }
    }
}
