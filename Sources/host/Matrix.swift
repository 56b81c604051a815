import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomLayout
import LoomPopulation
import LoomStyles
import LoomWorkspace

/// `host matrix`'s output formats.
enum MatrixFormat: String, ExpressibleByArgument, CaseIterable {
    case text, csv, json, html
}

struct Matrix: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matrix",
        abstract: "Per segment of a population, how many users see each component, item and navigation graph edge of a screen.",
        discussion: """
            Segments are the distinct values of the --by attributes (e.g. --by tier,country), or each user by name \
            without --by. Counts come from the real rules, resolved as host eval does (--jobs workers, the same result \
            at any --jobs). HTML is one self-contained page with a sortable table. See docs/populations.md.
            """)

    @Argument(help: "The screen file or screen id.")
    var screen: String

    @OptionGroup var population: PopulationOptions
    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .long, help: ArgumentHelp("Comma-separated attributes whose values make the segments (default: each user).", valueName: "attrs"))
    var by: String?

    @Option(name: .long, help: "Output format: text, csv, json or html.")
    var format: MatrixFormat = .text

    @Flag(name: .customLong("no-graph"), help: "Count components and items only, not the navigation graph's edges.")
    var noGraph = false

    @Flag(name: .long, help: "Also lay each user's screen out (the device options, default iphone-15) and count the users each layout and accessibility finding reaches (text or json; docs/accessibility.md).")
    var findings = false

    var byAttributes: [String] {
        guard let by else { return [] }
        return by.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func validate() throws {
        if findings, format == .csv || format == .html {
            throw ValidationError("--findings prints with --format text or json")
        }
        guard let by else { return }
        var seen = Set<String>()
        for name in byAttributes {
            if name.isEmpty {
                throw ValidationError("--by '\(by)': an attribute name is empty; give names separated by commas, e.g. --by tier,country (leave out --by for one segment per user)")
            }
            if !seen.insert(name).inserted { throw ValidationError("--by '\(by)' names '\(name)' twice") }
        }
    }

    func run() throws {
        let by = byAttributes, graph = !noGraph, failFast = population.failFast
        let layoutContext: DeviceContext? = findings ? (deviceOptions.chosen ?? .standard) : nil
        let work: @Sendable (PopulationScreens, UserParser) -> (UserBatch) -> MatrixPart = { screens, parser in
            let counted = layoutContext.flatMap { FindingsCounter(ws: screens.workspace, context: $0) }
            let worker = MatrixWorker(screens: screens, parser: parser, by: by, graph: graph, failFast: failFast,
                                      findings: counted.map { c in { c.findings($0) } })
            return { worker.process($0) }
        }
        if findings, case .failure(let e) = ScreenPipeline.textMeasurer() {
            Console.error("--findings lays screens out, which needs a font: \(e.message)")
            throw ExitCode(1)
        }
        let (first, input, workers) = try population.start(
            screens: [screen], engine: engine, device: deviceOptions.chosen, work: work,
            unopened: { b in MatrixPart(matrix: SegmentMatrix(by: by), failures: (0..<b.count).map { _ in .error("this worker's workspace did not open") }, notes: ResolutionNotes()) })
        let screenID = first.screens[0].id
        var matrix = SegmentMatrix(by: by)
        var failures = 0
        var notes = ResolutionNotes()
        var found: [String: Int] = [:]
        var stopped = false
        let progress = Progress()
        workers.run(
            makeWorker: { work(first, input.parser) },
            next: { input.nextBatch() },
            consume: { (part: MatrixPart) -> Bool in
                matrix.merge(part.matrix)
                notes.merge(part.notes)
                for (line, n) in part.findings { found[line, default: 0] += n }
                for f in part.failures {
                    reportDiagnostic(f)
                    failures += 1
                    if population.failFast { stopped = true; break }
                }
                progress.tick(matrix.population + failures, fraction: input.fractionRead)
                return !stopped
            })
        progress.clear()
        let readError = input.readError
        matrix.addUnseen(declaredBy: first.screens[0].screen)
        var report = MatrixReport(matrix: matrix, screen: screenID)
        if findings { report.findings = found }
        Console.out(report.rendered(format))
        reportNotes(notes)
        if let e = readError { reportDiagnostic(e) }
        if matrix.population > 0 {
            for name in matrix.absentBy {
                let hint = name == "name" ? "; a user's name is its label, not an attribute: leave out --by for one segment per user"
                    : DidYouMean.suggest(name, among: matrix.namesSeen).map { "; did you mean '\($0)'?" } ?? ""
                let w = Diagnostic.warning("--by \(name): no user has the attribute '\(name)', so every user's \(name) is null\(hint)")
                reportDiagnostic(w)
            }
        }
        // Users as `host eval` counts them (every record read, failed ones included), then how
        // many of them the matrix counts.
        let read = matrix.population + failures, segments = matrix.segments.count
        let counted = "\(segments) segment\(segments == 1 ? "" : "s")"
        sinkError("matrix: \(read) user\(read == 1 ? "" : "s")" + (failures == 0 ? " in \(counted), none failed" : ", \(matrix.population) counted in \(counted), \(failures) failed")
                  + summaryEnding(stopped: stopped, inputCutShort: readError != nil) + "\n")
        if failures > 0 || notes.hasErrors || readError != nil { throw ExitCode(1) }
    }
}

/// `--findings` on one worker: the user's tree laid out on the context, its findings as
/// `host check --a11y` reports them. Users who see the same tree (the memoised population path
/// hands out the same node) share one layout: the last 64 distinct trees are kept.
final class FindingsCounter {
    let engine: LayoutEngine
    let context: DeviceContext
    private var memo: [(tree: ResolvedNode, lines: [String])] = []
    static let memoSize = 64

    init?(ws: Workspace, context: DeviceContext) {
        guard case .success(var e) = ScreenPipeline.layoutEngine(in: ws) else { return nil }
        e.accessibility = true
        engine = e
        self.context = context
    }

    func findings(_ tree: ResolvedNode?) -> [String] {
        guard let tree else { return [] }
        if let hit = memo.first(where: { $0.tree.isSameNode(as: tree) }) { return hit.lines }
        let lines = RuntimeCheck.checkedFindings(engine.layout(resolved: tree, on: context))
        if memo.count == FindingsCounter.memoSize { memo.removeFirst() }
        memo.append((tree, lines))
        return lines
    }
}
