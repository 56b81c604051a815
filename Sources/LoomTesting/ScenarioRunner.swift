import Foundation
import LoomCore
import LoomPlugins

/// `host test`: finds scenario files, runs them on worker threads (each file in a workspace
/// and Lua state of its own, made on the worker), and gathers the results in file order.
public enum ScenarioRunner {
    /// Runs every scenario file the options select. `progress` is called once per file, in
    /// file order (whatever order the workers finish in), from a worker thread.
    public static func run(_ options: ScenarioOptions, progress: (@Sendable (ScenarioFileOutcome) -> Void)? = nil) -> ScenarioReport {
        let (files, errors) = ScenarioDiscovery.files(options)
        let outcomes = run(files: files, options: options, progress: progress)
        var report = ScenarioReport(
            files: files, results: outcomes.flatMap(\.results), errors: errors, unreferencedSnapshots: [], prunedSnapshots: [])
        if options.coverage || options.lineCoverage { report.coverage = ScenarioCoverage.merged(outcomes) }
        if options.filter?.isEmpty ?? true {
            report.unreferencedSnapshots = unreferenced(outcomes)
            if options.prune {
                report.prunedSnapshots = prune(report.unreferencedSnapshots)
            }
        }
        return report
    }

    /// Runs the given files with `options.jobs` workers; outcomes in the order of `files`.
    public static func run(files: [ScenarioFile], options: ScenarioOptions,
                           progress: (@Sendable (ScenarioFileOutcome) -> Void)? = nil) -> [ScenarioFileOutcome] {
        if files.isEmpty { return [] }
        let collector = Collector(count: files.count, progress: progress)
        let workers = max(1, min(options.jobs, files.count))
        if workers == 1 {
            for (i, f) in files.enumerated() { collector.store(i, ScenarioFileRunner.run(f, options: options)) }
            return collector.all()
        }
        let done = DispatchGroup()
        for _ in 0..<workers {
            done.enter()
            let thread = Thread {
                while let i = collector.nextIndex() {
                    // The workspace (and its Lua state) is made here, on this thread, per file.
                    let outcome = ScenarioFileRunner.run(files[i], options: options)
                    collector.store(i, outcome)
                }
                done.leave()
            }
            thread.stackSize = 16 << 20
            thread.name = "loom-scenarios"
            thread.start()
        }
        done.wait()
        return collector.all()
    }

    /// Moves every pending snapshot (`*.snap.new`) of the selected scenario files into place.
    public static func accept(_ options: ScenarioOptions) -> ScenarioAcceptReport {
        let (files, errors) = ScenarioDiscovery.files(options)
        var accepted: [(pending: String, golden: String)] = []
        var errs = errors
        let fm = FileManager.default
        var dirs: [String] = []
        for f in files where !dirs.contains(f.snapshotDirectory) { dirs.append(f.snapshotDirectory) }
        for dir in dirs {
            let entries = ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            for e in entries where e.hasSuffix(".snap.new") {
                let pending = Project.join(dir, e)
                let golden = String(pending.dropLast(4))
                do {
                    if fm.fileExists(atPath: golden) { try fm.removeItem(atPath: golden) }
                    try fm.moveItem(atPath: pending, toPath: golden)
                    accepted.append((pending, golden))
                } catch {
                    errs.append(.error("cannot move \(pending) to \(golden): \(error.localizedDescription)"))
                }
            }
        }
        return ScenarioAcceptReport(accepted: accepted, errors: errs)
    }

    /// `.snap` files beside the completely run scenario files that no scenario referenced, and
    /// the snapshot folders of scenario files that no longer exist.
    static func unreferenced(_ outcomes: [ScenarioFileOutcome]) -> [String] {
        let fm = FileManager.default
        var out: [String] = []
        var referenced = Set<String>()
        for o in outcomes { for r in o.referencedSnapshots { referenced.insert(ScenarioDiscovery.standardized(r)) } }
        for o in outcomes where o.complete {
            let dir = o.file.snapshotDirectory
            for e in ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).sorted() where e.hasSuffix(".snap") {
                let p = Project.join(dir, e)
                if !referenced.contains(ScenarioDiscovery.standardized(p)) { out.append(p) }
            }
        }
        // Snapshot folders whose scenario file is gone (only where every file beside ran).
        var folders: [String: [ScenarioFileOutcome]] = [:]
        for o in outcomes {
            let snaps = (o.file.snapshotDirectory as NSString).deletingLastPathComponent
            folders[snaps, default: []].append(o)
        }
        for (snaps, list) in folders.sorted(by: { $0.key < $1.key }) where list.allSatisfy(\.complete) {
            let scenarioDir = (snaps as NSString).deletingLastPathComponent
            for stem in ((try? fm.contentsOfDirectory(atPath: snaps)) ?? []).sorted() {
                let sub = Project.join(snaps, stem)
                var isDir: ObjCBool = false
                guard fm.fileExists(atPath: sub, isDirectory: &isDir), isDir.boolValue else { continue }
                if fm.fileExists(atPath: Project.join(scenarioDir.isEmpty ? "." : scenarioDir, stem + ".lua")) { continue }
                for e in ((try? fm.contentsOfDirectory(atPath: sub)) ?? []).sorted() where e.hasSuffix(".snap") {
                    out.append(Project.join(sub, e))
                }
            }
        }
        return out
    }

    static func prune(_ files: [String]) -> [String] {
        let fm = FileManager.default
        var removed: [String] = []
        for f in files {
            if (try? fm.removeItem(atPath: f)) != nil { removed.append(f) }
            try? fm.removeItem(atPath: f + ".new")
            // Remove the folder when it is now empty.
            let dir = (f as NSString).deletingLastPathComponent
            if let rest = try? fm.contentsOfDirectory(atPath: dir), rest.isEmpty { try? fm.removeItem(atPath: dir) }
        }
        return removed
    }
}

/// Hands out file indices to workers and keeps outcomes in file order; reports them in order.
private final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var reported = 0
    private var outcomes: [ScenarioFileOutcome?]
    private let progress: (@Sendable (ScenarioFileOutcome) -> Void)?

    init(count: Int, progress: (@Sendable (ScenarioFileOutcome) -> Void)?) {
        outcomes = Array(repeating: nil, count: count)
        self.progress = progress
    }

    func nextIndex() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < outcomes.count else { return nil }
        next += 1
        return next - 1
    }

    func store(_ i: Int, _ o: ScenarioFileOutcome) {
        lock.lock()
        defer { lock.unlock() }
        outcomes[i] = o
        while reported < outcomes.count, let ready = outcomes[reported] {
            progress?(ready)
            reported += 1
        }
    }

    func all() -> [ScenarioFileOutcome] {
        lock.lock()
        defer { lock.unlock() }
        return outcomes.compactMap { $0 }
    }
}
