import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomPopulation
import LoomStyles
import LoomWorkspace

/// What a sweep worker made of a batch of users: the counts, and the users that could not be
/// read or resolved at some instant (each located at its line).
struct SweepPart: Sendable {
    var counts: SweepCounts
    var failures: [Diagnostic] = []
    var notes = ResolutionNotes()
    var names: Set<String> = []
}

/// Resolves one user at every instant of a window in one workspace (one per worker thread, with
/// its own Lua state), comparing each instant's tree and graph with the instant before's as a
/// population diff compares two versions (`PopulationDiffFact.facts`). Each resolution goes
/// through `ScreenPipeline.resolve`: the screen is prepared once per workspace and its trees
/// cached by rule outcomes, so instants whose rules agree cost a cache hit. Only the previous
/// instant's tree is kept.
final class SweepWorker {
    let side: DiffSide
    let window: SweepWindow
    let device: DeviceContext?
    let by: [String]
    let parser: UserParser?

    init(side: DiffSide, window: SweepWindow, device: DeviceContext?, by: [String], parser: UserParser?) {
        self.side = side
        self.window = window
        self.device = device
        self.by = by
        self.parser = parser
    }

    /// The facts of each instant at which something changed for `profile` (instant indices from
    /// 1), or the errors of the first instant it could not be resolved at (its `now` named).
    func sweep(_ profile: UserProfile, data: [String: DataValue]?, notes: inout ResolutionNotes, line: Int)
        -> Result<[(instant: Int, facts: Set<PopulationDiffFact>)], DiffInputError> {
        var previous: (tree: JSONValue?, graph: JSONValue?)?
        var out: [(instant: Int, facts: Set<PopulationDiffFact>)] = []
        var p = profile
        // The user's problems over every instant, counted once for the user (not once per instant).
        var met: [Diagnostic] = [], seen = Set<Diagnostic>()
        defer { notes.add(user: met, line: line) }
        for k in 0..<window.count {
            let now = window.instant(k)
            p.attributes["now"] = .string(now)
            var r = ScreenRequest(screen: side.file, profile: p, device: device, compute: [.tree, .graph])
            if let data { r.data = data }
            let result = ScreenPipeline.resolve(r, in: side.ws)
            if let f = result.failure {
                var d = Diagnostics()
                for x in f.errors.isEmpty ? f.items : f.errors {
                    var y = x
                    y.message = "at now=\(now): " + y.message
                    d.append(y)
                }
                return .failure(DiffInputError(diagnostics: d))
            }
            guard let res = result.resolution else { continue }
            for d in res.diagnostics.items where seen.insert(d).inserted { met.append(d) }
            let current = (tree: res.tree.map { TreeOutput.json($0, explain: false) }, graph: result.graph?.json)
            if let prev = previous {
                let facts = PopulationDiffFact.facts(old: prev.tree, new: current.tree, oldGraph: prev.graph, newGraph: current.graph)
                if !facts.isEmpty { out.append((k, facts)) }
            }
            previous = current
        }
        return .success(out)
    }

    /// A batch of a population's users, each swept and counted in its segment.
    func process(_ batch: UserBatch) -> SweepPart {
        let batch = batch.split()
        var part = SweepPart(counts: SweepCounts(by: by))
        guard let parser else { return part }
        for k in 0..<batch.count {
            switch parser.parse(batch.pending(k)) {
            case .failure(let d): part.failures.append(d)
            case .success(let record):
                for name in record.profile.attributes.keys where part.names.count < PopulationDiffWorker.namesKept { part.names.insert(name) }
                switch sweep(record.profile, data: record.data, notes: &part.notes, line: record.line) {
                case .failure(let ds):
                    for var d in ds.diagnostics.items {
                        if d.location == nil { d.location = SourceLocation(file: parser.displayPath, line: record.line, column: 0) }
                        part.failures.append(d)
                    }
                case .success(let changes):
                    let segment = part.counts.segment(of: record.profile.attributes)
                    part.counts.add(segment: segment, changes: changes)
                }
            }
        }
        return part
    }
}

extension Diff {
    /// `--now FROM..TO`: a calendar sweep, when the value holds a range.
    var sweepRange: String? { user.now.flatMap { $0.contains("..") ? $0 : nil } }

    /// The window of a sweep; its problems are usage errors (checked in `validate`).
    func sweepWindow() throws -> SweepWindow {
        switch SweepWindow.parse(range: sweepRange ?? "", step: step ?? "1d") {
        case .success(let w): return w
        case .failure(let m): throw ValidationError(m.message)
        }
    }

    /// Usage checks of a sweep: one screen, no second version, no picture.
    func validateSweep() throws {
        if new != nil || rev != nil || pluginsOld != nil {
            throw ValidationError("--now FROM..TO sweeps one screen through time: give one screen, not a second version (OLD NEW, --rev, --plugins-old)")
        }
        if render { throw ValidationError("--render draws two versions; a sweep (--now FROM..TO) compares instants: leave out --render") }
        if format == .html { throw ValidationError("--format html is for a population diff of two versions; a sweep prints text, json or markdown") }
        if segmentUsers { throw ValidationError("--segment-users is for a population diff of two versions, not a sweep") }
        if populationPath == nil, !user.context.isEmpty, users != nil {
            throw ValidationError("--context applies to one profile (--user), not to --users")
        }
        _ = try sweepWindow()
    }

    var sweepFormat: SweepReport.Format { SweepReport.Format(rawValue: format.rawValue) ?? .text }

    /// The sweep: every instant resolved for the one user (`--user`, `--context`), each profile
    /// (`--users all|names`) or every user of a population (`--users FILE`, streamed on --jobs
    /// workers), and what changed from each instant to the next per segment. Exit 1 when
    /// anything changes within the window, 0 otherwise, 2 on errors (nothing printed then).
    func runSweep() throws {
        let window = try sweepWindow()
        let spec = PopulationDiffSide(label: old, options: workspaceOptions, screen: old)
        let (side, screenID) = try exitingOnDiffInputErrors {
            let side = try spec.open()
            var d = side.ws.loadDiagnostics
            let s = side.ws.screen(file: side.file)
            d.append(contentsOf: s.diagnostics)
            if Console.report(d) || s.screen == nil || s.check == nil { throw ExitCode(2) }
            return (side, s.screen!.id)
        }
        let counts: SweepCounts
        if let path = populationPath {
            counts = try sweepPopulation(window: window, spec: spec, first: side, path: path)
        } else {
            counts = try sweepProfiles(window: window, side: side)
        }
        Console.out(SweepReport(screen: screenID, window: window, counts: counts).rendered(sweepFormat))
        throw ExitCode(counts.changed ? 1 : 0)
    }

    /// `--user U` (or none: the anonymous user) or `--users all|names`: one segment per profile.
    private func sweepProfiles(window: SweepWindow, side: DiffSide) throws -> SweepCounts {
        var names: [String?]
        if let u = users {
            names = u == "all" ? side.ws.users.profiles.keys.map { Optional($0) }
                : u.split(separator: ",").map { Optional($0.trimmingCharacters(in: .whitespaces)) }
        } else {
            names = [user.user]
        }
        if names.isEmpty { names = [nil] }
        let worker = SweepWorker(side: side, window: window, device: deviceOptions.chosen, by: ["profile"], parser: nil)
        var counts = SweepCounts(by: ["profile"])
        var notes = ResolutionNotes()
        var failed = Diagnostics()
        for name in names {
            // --context applies to the one --user (validate refuses it with --users).
            let made = UserSelection.commandLine(profile: name, context: users == nil ? user.allContext : [], now: nil)
                .flatMap { $0.user(in: side.ws.users) }
            let profile: UserProfile
            switch made {
            case .success(let p): profile = p
            case .failure(let d):
                failed.append(d)
                continue
            }
            switch worker.sweep(profile, data: nil, notes: &notes, line: 0) {
            case .failure(let ds): failed.append(contentsOf: ds.diagnostics)
            case .success(let changes): counts.add(segment: [name.map { .string($0) } ?? .null], changes: changes)
            }
        }
        for d in notes.order { reportDiagnostic(d) }
        if !failed.isEmpty {
            Console.report(failed)
            throw ExitCode(2)
        }
        return counts
    }

    /// `--users FILE`: every user swept on --jobs workers (each with its own workspace), counts
    /// merged as they come (the same at any --jobs: counts add up in any order).
    private func sweepPopulation(window: SweepWindow, spec: PopulationDiffSide, first: DiffSide, path: String) throws -> SweepCounts {
        let by = byAttributes, device = deviceOptions.chosen
        let input: UserInput
        // The population's own `now` is replaced at every instant: no --now for the parser.
        switch UserInput.open(path, format: usersFormat, now: nil, firstLine: firstLine, workers: jobs, fileLimits: engine.fileLimits) {
        case .success(let i): input = i
        case .failure(let e):
            Console.report(Diagnostics([e]))
            throw ExitCode(2)
        }
        let parser = input.parser
        let workers = PopulationWorkers<UserBatch, SweepPart>(threads: jobs - 1, eager: PopulationPipeline.eagerThreads(jobs: jobs)) {
            guard let s = try? spec.open() else {
                return { b in SweepPart(counts: SweepCounts(by: by), failures: (0..<b.count).map { _ in .error("this worker's workspace did not open") }) }
            }
            let w = SweepWorker(side: s, window: window, device: device, by: by, parser: parser)
            return { w.process($0) }
        }
        let firstWorker = SweepWorker(side: first, window: window, device: device, by: by, parser: parser)
        return try runPopulationParts(workers, first: { firstWorker.process($0) }, input: input, counts: SweepCounts(by: by),
                                      summary: { "sweep: \($0) user\($0 == 1 ? "" : "s") at \(window.count) instant\(window.count == 1 ? "" : "s")" })
    }
}
