import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LuaRuntime

/// What `host test` runs and how. Plain values: safe to hand to worker threads.
public struct ScenarioOptions: Sendable {
    /// Scenario files and folders (a folder: every `*.lua` below it, skipping `__snapshots__`
    /// and plugin folders). Empty: the project's `scenarios` folder and each of the project's
    /// own plugin folders' `scenarios/`.
    public var paths: [String] = []
    /// `--project`: the project of every scenario file (a plugin's own scenarios excepted), and
    /// the project whose scenarios run when no path is given.
    public var project: String?
    public var extraPluginDirs: [String] = []
    /// The standard plugins folder (nil: found as the host finds it).
    public var standardPlugins: String?
    /// Limits of the plugins' calls into Lua.
    public var limits: PluginLimits = .default
    /// How much of each file is read (`--max-file-size`): scenario files, files they load,
    /// snapshots, and every file of the workspaces they open.
    public var fileLimits: FileLimits = .standard
    /// Time budget of each slice of scenario code between two host operations (the scenario
    /// runs as a coroutine; every rule and builder it triggers has the plugins' own budget).
    public var scenarioTimeLimitMilliseconds = 10_000
    /// Worker threads (each with its own workspace and Lua state).
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Runs only the scenarios whose declared name contains this text.
    public var filter: String?
    /// Re-record every snapshot reached.
    public var update = false
    /// Under CI a missing snapshot fails and nothing is recorded (`CI=true`).
    public var ci = false
    /// Delete unreferenced snapshots after the run.
    public var prune = false
    /// `--render-failures`: a picture beside each failing snapshot's `.snap.new` (SnapshotPicture).
    public var renderFailures = false
    /// Print plugins' and scenarios' `print` output to stderr as it happens.
    public var verbose = false
    /// Gather rule, component, screen, edge and profile coverage (`ScenarioReport.coverage`).
    public var coverage = false
    /// Record Lua line coverage of plugin files (a line hook: only when asked for).
    public var lineCoverage = false

    public init() {}

    /// `CI=true` (or `1`) in the environment.
    public static var ciFromEnvironment: Bool {
        let v = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
        return v == "true" || v == "1"
    }
}

public enum ScenarioStatus: String, Sendable, Hashable {
    case passed, failed, skipped
}

/// The outcome of one scenario (or of one profile of a `t:each_user` scenario, named
/// `scenario [profile]`), or of a scenario file that could not be loaded.
public struct ScenarioResult: Sendable, Hashable {
    public var file: String
    public var name: String
    /// Where the scenario is declared (0 when unknown, e.g. a file that did not load).
    public var line: Int
    public var status: ScenarioStatus
    public var durationMilliseconds: Double
    /// The failure (first line `file:line: message`, then details), or the skip reason.
    public var message: String?
    /// What happened to snapshots (`recorded …`, `updated …`, `wrote pending …`).
    public var notes: [String]
    /// Lines the scenario printed.
    public var output: [String]

    public init(file: String, name: String, line: Int, status: ScenarioStatus, durationMilliseconds: Double,
                message: String? = nil, notes: [String] = [], output: [String] = []) {
        self.file = file
        self.name = name
        self.line = line
        self.status = status
        self.durationMilliseconds = durationMilliseconds
        self.message = message
        self.notes = notes
        self.output = output
    }
}

/// A scenario file and the project it runs in.
public struct ScenarioFile: Sendable, Hashable {
    public var path: String
    /// The project folder (for a plugin's own scenarios: `PLUGIN/scenarios`).
    public var projectRoot: String
    /// For a plugin's own scenarios: the plugin folder, loaded into the workspace.
    public var plugin: String?

    public init(path: String, projectRoot: String, plugin: String? = nil) {
        self.path = path
        self.projectRoot = projectRoot
        self.plugin = plugin
    }

    /// `DIR/__snapshots__/STEM/`.
    public var snapshotDirectory: String {
        let dir = (path as NSString).deletingLastPathComponent
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return Project.join(Project.join(dir.isEmpty ? "." : dir, "__snapshots__"), stem)
    }
}

/// The results of one scenario file.
public struct ScenarioFileOutcome: Sendable {
    public var file: ScenarioFile
    public var results: [ScenarioResult]
    /// Snapshot files the file's scenarios referenced (recorded, compared or updated).
    public var referencedSnapshots: Set<String>
    /// True when every scenario of the file ran to its end (no filter, no failure): only then
    /// can a snapshot that nothing referenced be called unreferenced.
    public var complete: Bool
    /// What the file's scenarios covered (with `coverage` or `lineCoverage`).
    public var coverage: ScenarioCoverage? = nil
}

/// Everything a run produced, in a deterministic order (by file, then declaration order).
public struct ScenarioReport: Sendable {
    public var files: [ScenarioFile]
    public var results: [ScenarioResult]
    /// Problems finding the scenarios (a path that does not exist, …); they fail the run.
    public var errors: [Diagnostic]
    /// `.snap` files no scenario referenced (deleted with `prune`).
    public var unreferencedSnapshots: [String]
    public var prunedSnapshots: [String]
    /// What the whole run covered, merged over the files (with `coverage` or `lineCoverage`).
    public var coverage: ScenarioCoverage? = nil

    public var passed: Int { results.filter { $0.status == .passed }.count }
    public var failed: Int { results.filter { $0.status == .failed }.count }
    public var skipped: Int { results.filter { $0.status == .skipped }.count }
    public var succeeded: Bool { failed == 0 && errors.isEmpty }

    /// `N passed, N failed` (`, N skipped` when any).
    public var summary: String {
        var s = "\(passed) passed, \(failed + errors.count) failed"
        if skipped > 0 { s += ", \(skipped) skipped" }
        return s
    }
}

/// What `accept` did.
public struct ScenarioAcceptReport: Sendable {
    /// (pending file, golden file) pairs moved into place.
    public var accepted: [(pending: String, golden: String)]
    public var errors: [Diagnostic]
}
