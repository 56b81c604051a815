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
            let (found, problems) = unreferenced(outcomes)
            report.unreferencedSnapshots = found.map(\.path)
            report.errors += problems
            if options.prune {
                let (removed, failures) = prune(found)
                report.prunedSnapshots = removed
                report.errors += failures
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

    /// Moves every pending snapshot (`*.snap.new`) of the selected scenario files into place,
    /// through the safe writer fenced by each file's project: a linked snapshot folder, or a
    /// pending file that is a link or FIFO, is an error naming it, never followed.
    public static func accept(_ options: ScenarioOptions) -> ScenarioAcceptReport {
        let (files, errors) = ScenarioDiscovery.files(options)
        var accepted: [(pending: String, golden: String)] = []
        var errs = errors
        var dirs: [(dir: String, root: String)] = []
        for f in files where !dirs.contains(where: { $0.dir == f.snapshotDirectory }) {
            dirs.append((f.snapshotDirectory, f.projectRoot))
        }
        for (dir, root) in dirs {
            let writer = SafeWriter(root: root, confined: false)
            let entries: [SafeWriter.Entry]
            do { entries = try writer.list(dir) ?? [] } catch {
                errs.append(error)
                continue
            }
            // An accepted snapshot's picture (--render-failures) shows a failure that is gone.
            for e in entries where e.name.hasSuffix(".snap.new.svg") { _ = try? writer.delete(Project.join(dir, e.name)) }
            for e in entries where e.name.hasSuffix(".snap.new") {
                let pending = Project.join(dir, e.name)
                let golden = String(pending.dropLast(4))
                do {
                    try writer.move(pending, to: golden)
                    accepted.append((pending, golden))
                } catch {
                    errs.append(.error("cannot move \(pending) to \(golden): \(error.message)", at: error.location))
                }
            }
        }
        return ScenarioAcceptReport(accepted: accepted, errors: errs)
    }

    /// A snapshot file and the project whose writer may delete it.
    struct SnapshotFile {
        var path: String
        var root: String
    }

    /// `.snap` files beside the completely run scenario files that no scenario referenced, and
    /// the snapshot folders of scenario files that no longer exist. Folders are listed through
    /// the safe writer: a linked snapshot folder inside the project is an error, never listed
    /// (so `--prune` cannot reach outside it).
    static func unreferenced(_ outcomes: [ScenarioFileOutcome]) -> (files: [SnapshotFile], errors: [Diagnostic]) {
        var out: [SnapshotFile] = []
        var errors: [Diagnostic] = []
        // One error per cause: the same linked folder refuses each folder listed below it.
        var refused = Set<String>()
        func entries(_ dir: String, _ writer: SafeWriter) -> [SafeWriter.Entry] {
            do { return try writer.list(dir) ?? [] } catch {
                if refused.insert(error.message).inserted { errors.append(error) }
                return []
            }
        }
        var referenced = Set<String>()
        for o in outcomes { for r in o.referencedSnapshots { referenced.insert(ScenarioDiscovery.standardized(r)) } }
        for o in outcomes where o.complete {
            let dir = o.file.snapshotDirectory
            let writer = SafeWriter(root: o.file.projectRoot, confined: false)
            for e in entries(dir, writer) where e.name.hasSuffix(".snap") && e.kind != .directory {
                let p = Project.join(dir, e.name)
                if !referenced.contains(ScenarioDiscovery.standardized(p)) { out.append(SnapshotFile(path: p, root: o.file.projectRoot)) }
            }
        }
        // Snapshot folders whose scenario file is gone (only where every file beside ran).
        var folders: [String: [ScenarioFileOutcome]] = [:]
        for o in outcomes {
            let snaps = (o.file.snapshotDirectory as NSString).deletingLastPathComponent
            folders[snaps, default: []].append(o)
        }
        for (snaps, list) in folders.sorted(by: { $0.key < $1.key }) where list.allSatisfy(\.complete) {
            guard let root = list.first?.file.projectRoot else { continue }
            let writer = SafeWriter(root: root, confined: false)
            let scenarioDir = (snaps as NSString).deletingLastPathComponent
            // Only real folders (a link in their place is neither listed nor followed).
            for stem in entries(snaps, writer) where stem.kind == .directory {
                if SafeFile.exists(Project.join(scenarioDir.isEmpty ? "." : scenarioDir, stem.name + ".lua")) { continue }
                let sub = Project.join(snaps, stem.name)
                for e in entries(sub, writer) where e.name.hasSuffix(".snap") && e.kind != .directory {
                    out.append(SnapshotFile(path: Project.join(sub, e.name), root: root))
                }
            }
        }
        return (out, errors)
    }

    /// Deletes the files (and their pending `.new`) through the safe writer, then their folder
    /// when it is left empty; the paths deleted, and why any could not be.
    static func prune(_ files: [SnapshotFile]) -> (removed: [String], errors: [Diagnostic]) {
        var removed: [String] = []
        var errors: [Diagnostic] = []
        for f in files {
            let writer = SafeWriter(root: f.root, confined: false)
            do { if try writer.delete(f.path) { removed.append(f.path) } } catch { errors.append(error) }
            do { try writer.delete(f.path + ".new") } catch { errors.append(error) }
            writer.removeFolderIfEmpty((f.path as NSString).deletingLastPathComponent)
        }
        return (removed, errors)
    }
}

/// Hands out file indices to workers and keeps outcomes in file order; reports them in order.
final class Collector {
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
