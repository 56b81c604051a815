import Foundation
import LoomCore
import LoomWorkspace
import LoomPlugins
import LoomNavigation
import LuaRuntime
import OrderedCollections

/// Runs the scenarios of one file in a workspace of its own. Lives on one thread: the
/// workspace, its Lua state and every session are made and used there.
final class ScenarioFileRunner {
    let file: ScenarioFile
    let options: ScenarioOptions
    let ws: Workspace
    var state: LuaState { ws.engine.state }

    var envRef: LuaRef!
    var controlRef: LuaRef!
    let label: String

    // Bookkeeping of the scenario running now.
    var sessions = SessionTable()
    struct Running {
        var name: String
        var line: Int
        var start: UInt64
        var notes: [String] = []
        var logStart: Int
        /// The first session handle opened in this run (a `t:each_user` run checks its own).
        var firstHandle = 0
    }
    var scenario: Running?
    var sub: Running?
    var subsRan = false
    var results: [ScenarioResult] = []
    var referenced = Set<String>()
    /// Snapshot file → the result that wrote it (names must not collide).
    var snapshotOwners: [String: String] = [:]
    var unnamedCount: [String: Int] = [:]
    var complete = true
    /// What each `t:open` screen argument opens: its file, screen and entry point, found once
    /// per file's run (ScenarioFileRunner+Open.swift).
    var openTargets: [String: OpenTarget] = [:]
    /// With `options.coverage` / `lineCoverage`: what the file's sessions cover.
    var coverage: CoverageCollector?

    private init(file: ScenarioFile, options: ScenarioOptions, ws: Workspace) {
        self.file = file
        self.options = options
        self.ws = ws
        label = "scenario " + (file.path as NSString).lastPathComponent
    }

    /// How many distinct (user, parameters, device) sets of user views a file's workspace keeps.
    static let userViewReuse = 16

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func ms(since start: UInt64) -> Double { Double(now() - start) / 1_000_000 }

    /// Runs the file: loads its project, then its scenarios in declaration order.
    static func run(_ file: ScenarioFile, options: ScenarioOptions) -> ScenarioFileOutcome {
        let start = now()
        func fileFailure(_ message: String, line: Int = 0) -> ScenarioFileOutcome {
            ScenarioFileOutcome(
                file: file,
                results: [ScenarioResult(file: file.path, name: file.path, line: line, status: .failed, durationMilliseconds: ms(since: start), message: message)],
                referencedSnapshots: [], complete: false)
        }
        let ws: Workspace
        do {
            ws = try CoverageCollector.workspace(options) { () throws(LuaError) in
                do {
                    return try Workspace(options: workspaceOptions(file, options), anchor: nil)
                } catch let e as LuaError {
                    throw e
                } catch {
                    // Not the Lua runtime failing (Workspace.init throws nothing else with a
                    // plugin host given), but said as it would be rather than dropped.
                    throw LuaError(kind: .host, message: "\(error)")
                }
            }
        } catch {
            return fileFailure("cannot start the Lua runtime: \(error)")
        }
        var load = ws.loadDiagnostics
        // Property files that cannot be read fail the file as plugins that do not load do.
        load.append(contentsOf: ws.styleLoadDiagnostics)
        if load.hasErrors {
            return fileFailure("the project \(file.projectRoot) does not load:\n" + load.sorted.filter { $0.severity == .error }.map { "  \($0)" }.joined(separator: "\n"))
        }
        // Scenarios open the same few profiles again and again: each plugin's frozen view of a
        // user is made once per user, parameters and device, not once per resolution.
        ws.engine.userViewReuse = userViewReuse
        let runner = ScenarioFileRunner(file: file, options: options, ws: ws)
        if options.coverage { runner.coverage = CoverageCollector(ws: ws) }
        var outcome = runner.runFile(start: start)
        outcome.coverage = CoverageCollector.finish(runner.coverage, file: file, options: options, ws: ws)
        return outcome
    }

    /// The workspace of a scenario file: its project, and for a plugin's own scenarios the
    /// plugin itself (unless the standard or project plugins already include that folder).
    static func workspaceOptions(_ file: ScenarioFile, _ options: ScenarioOptions) -> Workspace.Options {
        var o = Workspace.Options()
        o.project = file.projectRoot
        o.extraPluginDirs = options.extraPluginDirs
        o.limits = options.limits
        o.fileLimits = options.fileLimits
        o.standardPlugins = options.standardPlugins
        o.verbose = options.verbose
        // Scenarios drive the Lua engine itself (sandbox, owners, coverage): always Lua.
        o.pluginHost = PluginEngine.host
        guard let plugin = file.plugin else { return o }
        let target = ScenarioDiscovery.standardized(plugin)
        let std = options.standardPlugins ?? PluginDiscovery.standardPluginsDirectory()
        var loaded: [PluginFolder] = []
        if case .success(let f) = PluginDiscovery.folders(in: std) { loaded += f }
        let (project, _) = Project.load(root: file.projectRoot, limits: options.fileLimits)
        for dir in project.pluginDirs + options.extraPluginDirs where FileManager.default.fileExists(atPath: dir) {
            if case .success(let f) = PluginDiscovery.folders(in: dir) { loaded += f }
        }
        if loaded.contains(where: { !StandardPlugins.isVirtual($0.path) && ScenarioDiscovery.standardized($0.path) == target }) { return o }
        let name = (plugin as NSString).lastPathComponent
        if loaded.contains(where: { $0.name == name }) {
            // A copy of a standard plugin (a checkout's Plugins/NAME used by a host whose
            // standard plugins are embedded): use that checkout's plugins as the standard ones.
            let parent = ScenarioDiscovery.parent(plugin)
            if FileManager.default.fileExists(atPath: Project.join(parent, "basic/plugin.lua")) {
                o.standardPlugins = parent
                return o
            }
        }
        o.extraPluginDirs.append(plugin)
        return o
    }

    // MARK: The file

    func runFile(start: UInt64) -> ScenarioFileOutcome {
        let top = state.top
        defer { state.top = top }
        // What the scenario file's own code allocates is charged to it, not to a plugin.
        let previousOwner = ws.engine.enter(ws.engine.newOwner(label))
        defer { ws.engine.leave(previousOwner) }
        var outcome = ScenarioFileOutcome(file: file, results: [], referencedSnapshots: [], complete: false)
        func fail(_ message: String, line: Int = 0) -> ScenarioFileOutcome {
            results.append(ScenarioResult(
                file: file.path, name: file.path, line: line, status: .failed, durationMilliseconds: Self.ms(since: start), message: message))
            outcome.results = results
            return outcome
        }
        let source: String
        do { source = try SafeFile.readString(file.path, limits: options.fileLimits) } catch {
            return fail("\(file.path): cannot read the scenario file: \(error.message)")
        }
        do {
            try setUpEnvironment()
        } catch {
            return fail("\(file.path): cannot set up the scenario environment: \(error)")
        }
        // The file's top level: declares its scenarios.
        do {
            state.push(envRef)
            try ws.engine.sandbox.loadChunk(source: source, chunkName: file.path, envIndex: -1)
            state.rotate(-2, 1)
            state.pop(1)
            try withScenarioLimits { () throws(LuaError) in try state.pcall(nargs: 0, nresults: 0) }
        } catch {
            let (loc, msg) = locate(error)
            return fail("\(loc): \(error.kind == .syntax ? "syntax error: " : "")\(msg)", line: error.line ?? 0)
        }
        // The declared scenarios.
        var declared: [(String, Int)] = []
        do {
            state.push(controlRef)
            state.getField(-1, "count")
            try state.pcall(nargs: 0, nresults: 1)
            let n = state.toInt(-1) ?? 0
            state.pop(2)
            for i in 0..<n {
                state.push(controlRef)
                state.getField(-1, "info")
                state.push(i + 1)
                try state.pcall(nargs: 1, nresults: 2)
                declared.append((state.toString(-2) ?? "?", state.toInt(-1) ?? 0))
                state.pop(3)
            }
        } catch {
            return fail("\(file.path): \(error)")
        }
        for (i, (name, line)) in declared.enumerated() {
            if let f = options.filter, !f.isEmpty, !name.contains(f) {
                complete = false
                continue
            }
            runScenario(index: i + 1, name: name, line: line)
        }
        outcome.results = results
        outcome.referencedSnapshots = referenced
        outcome.complete = complete
        return outcome
    }

    func withScenarioLimits<T>(_ body: () throws(LuaError) -> T) throws(LuaError) -> T {
        let saved = state.limits
        var l = saved
        l.timeBudgetNanoseconds = Int64(options.scenarioTimeLimitMilliseconds) * 1_000_000
        state.limits = l
        defer { state.limits = saved }
        return try body()
    }

    /// `file:line` and message of a Lua error, with the file name Lua shortened restored.
    func locate(_ e: LuaError) -> (String, String) {
        var f = e.file ?? file.path
        if f.hasPrefix("..."), file.path.hasSuffix(String(f.dropFirst(3))) { f = file.path }
        if let l = e.line { return ("\(f):\(l)", e.message) }
        return (f, e.message)
    }

    /// A message raised in Lua (`file:line: text`), with the shortened file name restored.
    func located(_ raw: String, fallbackLine: Int) -> (String, Int) {
        let e = LuaError(kind: .runtime, raw: raw)
        if e.file != nil, e.line != nil {
            let (loc, msg) = locate(e)
            return ("\(loc): \(msg)", e.line ?? fallbackLine)
        }
        return ("\(file.path):\(fallbackLine): \(raw)", fallbackLine)
    }

    func setUpEnvironment() throws(LuaError) {
        let dir = ScenarioDiscovery.parent(file.path)
        try ws.engine.sandbox.pushEnvironment(label: label, folder: dir)
        let env = state.absIndex(-1)
        state.pushFunction { [unowned self] call in self.registeredRules(call) }
        state.setField(env, "registered_rules")
        state.pushFunction { [unowned self] call in self.loadFile(call) }
        state.setField(env, "load_file")
        state.pushCopy(env)
        envRef = state.ref()
        // The DSL, bound to the same environment.
        try ws.engine.sandbox.loadChunk(source: ScenarioPrelude.source, chunkName: ScenarioPrelude.chunkName, envIndex: env)
        state.newTable()
        state.pushFunction { [unowned self] _ in
            self.state.push(self.state.callerLocation(level: 2, withFile: false)?.line ?? 0)
            return .success(1)
        }
        state.setField(-2, "where")
        try state.pcall(nargs: 1, nresults: 1)
        controlRef = state.ref()
        state.pop(1)
    }
}

/// The sessions of the scenario running now, by handle. The table hands the handles out, in
/// increasing order and never twice in a file's run (a session kept from an earlier scenario
/// finds nothing), so a scenario's sessions sit in an array in handle order.
struct SessionTable {
    /// The handle of `list[0]`.
    private var base = 1
    private var list: [ScenarioSession] = []

    /// The handle the next session will get.
    var nextHandle: Int { base + list.count }

    subscript(handle: Int) -> ScenarioSession? {
        let i = handle - base
        return list.indices.contains(i) ? list[i] : nil
    }

    /// Adds a session; its handle.
    mutating func add(_ session: ScenarioSession) -> Int {
        list.append(session)
        return base + list.count - 1
    }

    /// The sessions with a handle `include` selects, in handle order.
    func selected(_ include: (Int) -> Bool) -> [ScenarioSession] {
        list.indices.filter { include(base + $0) }.map { list[$0] }
    }

    /// Drops the sessions (their handles are not handed out again).
    mutating func removeAll() {
        base += list.count
        list.removeAll()
    }
}
