import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomPopulation
import LoomStyles
import LoomWorkspace

/// One side of a population diff as each worker thread opens it: its label, its workspace's
/// options (the project, or a revision's checkout, or other plugins) and its screen.
struct PopulationDiffSide: Sendable {
    var label: String
    var options: Workspace.Options
    var screen: String

    func open() throws -> DiffSide { try DiffSide(label: label, options: options, screen: screen) }
}

/// What a worker made of a batch (`PopulationRunPart`, as a sweep's part).
struct PopulationDiffPart: Sendable {
    var counts: PopulationDiffCounts
    var failures: [Diagnostic] = []
    var notes = ResolutionNotes()
    var names: Set<String> = []
}

/// Resolves batches of users with both versions of a screen (one per worker thread, each with
/// its own two workspaces and Lua states) and counts what changed for each, per segment. Each
/// side goes through the same pipeline as `host run` (`ScreenPipeline.resolve`: the workspace's
/// cache of trees by rule outcomes, the user's own data when a record brings some), and its
/// graph as `host graph` explores it.
final class PopulationDiffWorker {
    let old: DiffSide, new: DiffSide
    let parser: UserParser
    let by: [String]
    let device: DeviceContext?
    /// Whether each side's navigation graph is explored and its edges compared (`--no-graph`: no).
    let graph: Bool
    static let namesKept = 256

    init(old: DiffSide, new: DiffSide, parser: UserParser, by: [String], device: DeviceContext?, graph: Bool = true) {
        self.graph = graph
        self.old = old
        self.new = new
        self.parser = parser
        self.by = by
        self.device = device
    }

    /// Problems that stop the diff before any user: the projects' load errors, a screen that
    /// does not parse (as `host diff` checks them for profiles).
    static func check(old: DiffSide, new: DiffSide) -> (screenID: String?, diagnostics: Diagnostics) {
        var load = old.ws.loadDiagnostics
        load.append(contentsOf: new.ws.loadDiagnostics)
        let a = old.ws.screen(file: old.file), b = new.ws.screen(file: new.file)
        load.append(contentsOf: a.diagnostics)
        load.append(contentsOf: b.diagnostics)
        guard !load.hasErrors, a.screen != nil, a.check != nil, let s = b.screen, b.check != nil else { return (nil, load) }
        return (s.id, load)
    }

    func process(_ batch: UserBatch) -> PopulationDiffPart {
        let batch = batch.split()
        var part = PopulationDiffPart(counts: PopulationDiffCounts(by: by))
        for k in 0..<batch.count {
            switch parser.parse(batch.pending(k)) {
            case .failure(let d): part.failures.append(d)
            case .success(let record): compare(record, into: &part)
            }
        }
        return part
    }

    private func compare(_ record: UserRecord, into part: inout PopulationDiffPart) {
        for name in record.profile.attributes.keys where part.names.count < Self.namesKept { part.names.insert(name) }
        func request(_ side: DiffSide) -> ScreenRequest {
            var r = ScreenRequest(screen: side.file, profile: record.profile, device: device, compute: graph ? [.tree, .graph] : [.tree])
            if let d = record.data { r.data = d }
            return r
        }
        let ra = ScreenPipeline.resolve(request(old), in: old.ws), rb = ScreenPipeline.resolve(request(new), in: new.ws)
        // A user one side cannot resolve (its own data breaking a schema, say): an error at its
        // line, the new side's complaint first.
        if let f = rb.failure ?? ra.failure {
            for var d in f.errors.isEmpty ? f.items : f.errors {
                if d.location == nil { d.location = SourceLocation(file: parser.displayPath, line: record.line, column: 0) }
                part.failures.append(d)
            }
            return
        }
        guard let a = ra.resolution, let b = rb.resolution else { return }
        // A problem both sides meet (an unknown client, a rule failing in both versions) is one user's.
        part.notes.add(user: a.diagnostics.items + b.diagnostics.items, line: record.line)
        let facts = PopulationDiffFact.facts(old: a.tree.map { TreeOutput.json($0, explain: false) },
                                             new: b.tree.map { TreeOutput.json($0, explain: false) },
                                             oldGraph: ra.graph?.json, newGraph: rb.graph?.json)
        part.counts.add(attributes: record.profile.attributes, facts: facts)
    }
}

extension Diff {
    /// `--users FILE`: every user of the population resolved with both versions, the counts per
    /// segment printed in `format`. Exit 1 when anything changed, 0 otherwise, 2 on errors
    /// (nothing is printed then: partial counts would read as the whole population's).
    func runPopulation(old oldSpec: PopulationDiffSide, new newSpec: PopulationDiffSide, path: String) throws {
        let by = byAttributes, device = deviceOptions.chosen, graph = !noGraph
        let input: UserInput
        switch UserInput.open(path, format: usersFormat, now: user.now, firstLine: firstLine, workers: jobs, fileLimits: engine.fileLimits) {
        case .success(let i): input = i
        case .failure(let e):
            Console.report(Diagnostics([e]))
            throw ExitCode(2)
        }
        let parser = input.parser
        let workers = PopulationWorkers<UserBatch, PopulationDiffPart>(threads: jobs - 1, eager: PopulationPipeline.eagerThreads(jobs: jobs)) {
            guard let o = try? oldSpec.open(), let n = try? newSpec.open() else {
                return { b in PopulationDiffPart(counts: PopulationDiffCounts(by: by),
                                                 failures: (0..<b.count).map { _ in .error("this worker's workspaces did not open") }) }
            }
            let w = PopulationDiffWorker(old: o, new: n, parser: parser, by: by, device: device, graph: graph)
            return { w.process($0) }
        }
        let (first, screenID) = try exitingOnDiffInputErrors {
            let o = try oldSpec.open(), n = try newSpec.open()
            let (id, d) = PopulationDiffWorker.check(old: o, new: n)
            if Console.report(d) || id == nil { throw ExitCode(2) }
            return (PopulationDiffWorker(old: o, new: n, parser: parser, by: by, device: device, graph: graph), id!)
        }
        let counts = try runPopulationParts(workers, first: { first.process($0) }, input: input, counts: PopulationDiffCounts(by: by),
                                            summary: { "diff: \($0) user\($0 == 1 ? "" : "s")" })
        var report = PopulationDiffReport(screen: screenID, oldLabel: oldSpec.label, newLabel: newSpec.label, counts: counts)
        report.segmentUsers = segmentUsers
        Console.out(report.rendered(format.population))
        throw ExitCode(counts.changed ? 1 : 0)
    }
}
