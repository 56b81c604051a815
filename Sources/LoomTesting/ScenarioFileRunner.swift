import CLua
import Foundation
import LoomCore
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

    private var envRef: LuaRef!
    private var controlRef: LuaRef!
    private let label: String

    // Bookkeeping of the scenario running now.
    private var sessions: [Int: ScenarioSession] = [:]
    private var nextHandle = 1
    private struct Running {
        var name: String
        var line: Int
        var start: UInt64
        var notes: [String] = []
        var logStart: Int
    }
    private var scenario: Running?
    private var sub: Running?
    private var subsRan = false
    private var results: [ScenarioResult] = []
    private var referenced = Set<String>()
    /// Snapshot file → the result that wrote it (names must not collide).
    private var snapshotOwners: [String: String] = [:]
    private var unnamedCount: [String: Int] = [:]
    private var complete = true

    private init(file: ScenarioFile, options: ScenarioOptions, ws: Workspace) {
        self.file = file
        self.options = options
        self.ws = ws
        label = "scenario " + (file.path as NSString).lastPathComponent
    }

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
            ws = try Workspace(options: workspaceOptions(file, options), anchor: nil)
        } catch {
            return fileFailure("cannot start the Lua runtime: \(error)")
        }
        let load = ws.loadDiagnostics
        if load.hasErrors {
            return fileFailure("the project \(file.projectRoot) does not load:\n" + load.sorted.filter { $0.severity == .error }.map { "  \($0)" }.joined(separator: "\n"))
        }
        let runner = ScenarioFileRunner(file: file, options: options, ws: ws)
        return runner.runFile(start: start)
    }

    /// The workspace of a scenario file: its project, and for a plugin's own scenarios the
    /// plugin itself (unless the standard or project plugins already include that folder).
    static func workspaceOptions(_ file: ScenarioFile, _ options: ScenarioOptions) -> Workspace.Options {
        var o = Workspace.Options()
        o.project = file.projectRoot
        o.extraPluginDirs = options.extraPluginDirs
        o.limits = options.limits
        o.standardPlugins = options.standardPlugins
        o.verbose = options.verbose
        guard let plugin = file.plugin else { return o }
        let target = ScenarioDiscovery.standardized(plugin)
        let std = options.standardPlugins ?? PluginDiscovery.standardPluginsDirectory()
        var loaded: [PluginFolder] = []
        if case .success(let f) = PluginDiscovery.folders(in: std) { loaded += f }
        let (project, _) = Project.load(root: file.projectRoot)
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

    private func runFile(start: UInt64) -> ScenarioFileOutcome {
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
        do { source = try SafeFile.readString(file.path) } catch {
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
            lua_rotate(state.L, -2, 1)
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

    private func withScenarioLimits<T>(_ body: () throws(LuaError) -> T) throws(LuaError) -> T {
        let saved = state.limits
        var l = saved
        l.timeBudgetNanoseconds = Int64(options.scenarioTimeLimitMilliseconds) * 1_000_000
        state.limits = l
        defer { state.limits = saved }
        return try body()
    }

    /// `file:line` and message of a Lua error, with the file name Lua shortened restored.
    private func locate(_ e: LuaError) -> (String, String) {
        var f = e.file ?? file.path
        if f.hasPrefix("..."), file.path.hasSuffix(String(f.dropFirst(3))) { f = file.path }
        if let l = e.line { return ("\(f):\(l)", e.message) }
        return (f, e.message)
    }

    /// A message raised in Lua (`file:line: text`), with the shortened file name restored.
    private func located(_ raw: String, fallbackLine: Int) -> (String, Int) {
        let e = LuaError(kind: .runtime, raw: raw)
        if e.file != nil, e.line != nil {
            let (loc, msg) = locate(e)
            return ("\(loc): \(msg)", e.line ?? fallbackLine)
        }
        return ("\(file.path):\(fallbackLine): \(raw)", fallbackLine)
    }

    private func setUpEnvironment() throws(LuaError) {
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
            var ar = lua_Debug()
            if lua_getstack(self.state.L, 2, &ar) != 0, lua_getinfo(self.state.L, "l", &ar) != 0 {
                self.state.push(Int(ar.currentline))
            } else {
                self.state.push(0)
            }
            return .success(1)
        }
        state.setField(-2, "where")
        try state.pcall(nargs: 1, nresults: 1)
        controlRef = state.ref()
        state.pop(1)
    }

    // MARK: One scenario

    private func runScenario(index: Int, name: String, line: Int) {
        scenario = Running(name: name, line: line, start: Self.now(), logStart: ws.engine.log.count)
        sub = nil
        subsRan = false
        sessions = [:]
        defer {
            sessions = [:]
            scenario = nil
            sub = nil
        }
        let base = state.top
        defer { state.top = base }
        let co: LuaRef
        do {
            state.push(controlRef)
            state.getField(-1, "start")
            state.push(index)
            try state.pcall(nargs: 1, nresults: 1)
            co = state.ref()
            state.pop(1)
        } catch {
            finish(.failed, message: "\(file.path):\(line): \(error)", line: line)
            return
        }
        var reply: Result<Reply, ScenarioFailure> = .success(.json(.null))
        while true {
            state.top = base
            let kind: String
            var op = "", handle: Int?, args: [JSONValue] = [], argError: String?
            do {
                state.push(controlRef)
                state.getField(-1, "resume")
                state.push(co)
                switch reply {
                case .success(.json(let v)):
                    state.push(true)
                    state.push(json: v)
                case .success(.ref(let r)):
                    state.push(true)
                    state.push(r)
                case .failure(let f):
                    state.push(false)
                    state.push(f.message)
                }
                let before = state.top - 4
                try withScenarioLimits { () throws(LuaError) in try state.pcall(nargs: 3, nresults: LUA_MULTRET) }
                let first = before + 1
                kind = state.toString(first) ?? "?"
                if kind == "op" {
                    op = state.toString(first + 1) ?? ""
                    handle = state.isInteger(first + 2) ? state.toInt(first + 2) : nil
                    let n = state.toInt(first + 4) ?? 0
                    let t = first + 3
                    if n > 0 {
                        for i in 1...n {
                            state.getIndex(t, i)
                            switch state.json(at: -1) {
                            case .success(let v): args.append(v)
                            case .failure(let e): argError = argError ?? "argument \(i): \(e.message)"
                            }
                            state.pop(1)
                        }
                    }
                } else if kind == "error" || kind == "skip" {
                    op = state.toString(first + 1) ?? ""
                }
            } catch {
                // A limit met inside the scenario surfaces in the driver: name the scenario.
                let (loc, msg) = locate(error)
                if error.kind == .time || error.kind == .memory || error.line == nil || (error.file ?? "").contains(ScenarioPrelude.chunkName) {
                    finish(.failed, message: "\(file.path):\(line): scenario '\(name)': \(msg)", line: line)
                } else {
                    finish(.failed, message: "\(loc): \(msg)", line: line)
                }
                return
            }
            switch kind {
            case "done":
                finish(.passed, message: nil, line: line)
                return
            case "skip":
                finish(.skipped, message: op, line: line)
                return
            case "error":
                let (msg, _) = located(op, fallbackLine: line)
                finish(.failed, message: msg, line: line)
                return
            case "op":
                if let argError {
                    reply = .failure(ScenarioFailure("\(op): \(argError)"))
                } else {
                    reply = perform(op, handle: handle, args: args)
                }
            default:
                // Never loop on an answer the driver cannot give: fail the scenario instead.
                finish(.failed, message: "\(file.path):\(line): scenario '\(name)': internal error: the scenario driver answered '\(kind)'", line: line)
                return
            }
        }
    }

    private func printed(since start: Int) -> [String] {
        ws.engine.log.dropFirst(start).filter { $0.0 == label }.map(\.1)
    }

    /// Records the scenario's result (or, for a `t:each_user` scenario that passed, only its
    /// profiles' results).
    private func finish(_ status: ScenarioStatus, message: String?, line: Int) {
        guard let s = scenario else { return }
        if let active = sub {
            // The scenario ended inside a profile's body (a limit escaped its pcall).
            results.append(ScenarioResult(
                file: file.path, name: active.name, line: line, status: .failed, durationMilliseconds: Self.ms(since: active.start),
                message: message, notes: active.notes, output: printed(since: active.logStart)))
            sub = nil
            subsRan = true
            if status == .failed { complete = false; return }
        }
        if status != .passed { complete = false }
        if status == .passed && subsRan { return }
        results.append(ScenarioResult(
            file: file.path, name: s.name, line: line, status: status, durationMilliseconds: Self.ms(since: s.start),
            message: message, notes: s.notes, output: status == .failed ? printed(since: s.logStart) : []))
    }

    private var resultName: String { sub?.name ?? scenario?.name ?? "?" }

    private func note(_ text: String) {
        if sub != nil { sub!.notes.append(text) } else { scenario?.notes.append(text) }
    }

    // MARK: Operations

    enum Reply {
        case json(JSONValue)
        case ref(LuaRef)
    }

    private func perform(_ op: String, handle: Int?, args: [JSONValue]) -> Result<Reply, ScenarioFailure> {
        do throws(ScenarioFailure) {
            switch op {
            case "open": return .success(.json(try open(args)))
            case "sub_begin": return .success(.json(try subBegin(args)))
            case "sub_end": return .success(.json(try subEnd(args)))
            case "call": return .success(try callDirect(args))
            default:
                guard let handle, let s = sessions[handle] else {
                    throw ScenarioFailure("s:\(op): not a session (open one with t:open)")
                }
                return .success(.json(try sessionOp(op, s, args)))
            }
        } catch {
            return .failure(error)
        }
    }

    private func string(_ args: [JSONValue], _ i: Int, _ what: String) throws(ScenarioFailure) -> String {
        guard i < args.count, case .string(let s) = args[i] else {
            let found = i < args.count ? args[i].kindName : "nothing"
            throw ScenarioFailure("\(what) must be a string, found \(found)")
        }
        return s
    }

    private func open(_ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        let screenArg = try string(args, 0, "t:open(screen, options): screen")
        var userName: String?
        var context = OrderedDictionary<String, JSONValue>()
        var now: String?
        if args.count > 2, case .string(let d) = args[2] { userName = d }
        if args.count > 1 {
            switch args[1] {
            case .null: break
            case .string(let u): userName = u
            case .object(let o):
                for (k, v) in o {
                    switch k {
                    case "user":
                        guard case .string(let u) = v else { throw ScenarioFailure("t:open: options.user must be a profile name (a string), found \(v.kindName)") }
                        userName = u
                    case "context":
                        guard case .object(let c) = v else { throw ScenarioFailure("t:open: options.context must be a table of attributes, found \(v.kindName)") }
                        context = c
                    case "now":
                        guard case .string(let n) = v else { throw ScenarioFailure("t:open: options.now must be an ISO-8601 string, found \(v.kindName)") }
                        now = n
                    default:
                        throw ScenarioFailure("t:open: unknown option '\(k)'\(DidYouMean.hint(k, among: ["user", "context", "now"])); options are user, context, now")
                    }
                }
            default:
                throw ScenarioFailure("t:open(screen, options): options must be a table { user = NAME, context = {…}, now = \"ISO\" } or a profile name, found \(args[1].kindName)")
            }
        }
        var profile: UserProfile
        switch ws.users.user(named: userName, context: [], now: now) {
        case .success(let p): profile = p
        case .failure(let d): throw ScenarioFailure("t:open: " + d.message.replacingOccurrences(of: "--now takes", with: "options.now takes"))
        }
        for (k, v) in context { profile.attributes[k] = v }
        // A screen id, a path from the working directory, or a path beside the scenario file.
        var locate = screenArg
        let beside = Project.join(ScenarioDiscovery.parent(self.file.path), screenArg)
        if screenArg.hasSuffix(".json"), !SafeFile.exists(screenArg), SafeFile.exists(beside) {
            locate = beside
        }
        // A path (not a screen id of the project) must stay inside the project folder (a
        // plugin's scenarios: inside the plugin's folder), symbolic links resolved.
        if SafeFile.exists(locate) {
            let root = self.file.plugin ?? self.file.projectRoot
            guard SafeFile.isInside(locate, root: root) else {
                throw ScenarioFailure("t:open: '\(screenArg)' is outside the \(self.file.plugin == nil ? "project" : "plugin") folder")
            }
        }
        let file: String
        switch ws.locateScreen(locate) {
        case .success(let f): file = f
        case .failure(let d): throw ScenarioFailure("t:open: " + d.message)
        }
        let (parsed, diagnostics, check) = ws.screen(file: file)
        guard let parsed, check != nil, !diagnostics.hasErrors else {
            throw ScenarioFailure("t:open: screen \(file) has errors:\n" + diagnostics.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        let (flows, fd) = ws.flows()
        if fd.hasErrors {
            throw ScenarioFailure("t:open: the project's flows have errors:\n" + fd.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        let entry = flows.entryPoint(forScreen: parsed.id)
        let ws = self.ws
        let sim: NavigationSimulator
        do {
            sim = try NavigationSimulator(flows: flows, entry: entry) { id in
                ws.visibleActions(screenID: id, user: profile, extra: parsed)
            }
        } catch {
            throw ScenarioFailure("t:open: \(error.message)")
        }
        let h = nextHandle
        nextHandle += 1
        sessions[h] = ScenarioSession(ws: ws, user: profile, opened: parsed, simulator: sim)
        return .int(h)
    }

    private func subBegin(_ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        if let s = sub { throw ScenarioFailure("t:each_user cannot be nested (inside '\(s.name)')") }
        let user = try string(args, 0, "t:each_user: a user")
        sub = Running(name: "\(scenario?.name ?? "?") [\(user)]", line: scenario?.line ?? 0, start: Self.now(), logStart: ws.engine.log.count)
        subsRan = true
        return .bool(true)
    }

    private func subEnd(_ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        guard let s = sub else { throw ScenarioFailure("t:each_user: no profile is running") }
        let kind = (try? string(args, 0, "kind")) ?? "failed"
        var message: String?
        var status = ScenarioStatus.passed
        switch kind {
        case "skipped":
            status = .skipped
            message = args.count > 1 ? args[1].string : nil
        case "failed":
            status = .failed
            complete = false
            let raw = args.count > 1 ? (args[1].string ?? "error") : "error"
            message = located(raw, fallbackLine: 0).0
        default: break
        }
        results.append(ScenarioResult(
            file: file.path, name: s.name, line: s.line, status: status, durationMilliseconds: Self.ms(since: s.start),
            message: message, notes: s.notes, output: status == .failed ? printed(since: s.logStart) : []))
        sub = nil
        return .null
    }

    // MARK: Session operations

    private func sessionOp(_ op: String, _ s: ScenarioSession, _ args: [JSONValue]) throws(ScenarioFailure) -> JSONValue {
        switch op {
        case "screen":
            return .string(s.screenID)
        case "stack":
            return .array(s.simulator.stack.entries.map { .string($0.screen) })
        case "user":
            var o = s.user.attributes
            if let n = s.user.name { o["profile"] = .string(n) }
            return .object(o)
        case "actions":
            let (_, _, r) = try s.current()
            var seen = OrderedSet<String>()
            for a in r.actions { seen.append(a.action) }
            return .array(seen.map { .string($0) })
        case "visible":
            let x = try string(args, 0, "s:visible(x): x")
            let (_, _, r) = try s.current()
            return .bool(!TreeSearch.find(x, in: TreeSearch.all(r.tree)).isEmpty)
        case "props":
            let x = try string(args, 0, "s:props(id): id")
            let m = try visibleMatch(s, x, "s:props")
            return m.props
        case "expect_visible":
            try expectVisible(s, try string(args, 0, "s:expect_visible(x): x"))
            return .null
        case "expect_hidden":
            try expectHidden(s, try string(args, 0, "s:expect_hidden(x): x"))
            return .null
        case "expect_screen":
            let want = try string(args, 0, "s:expect_screen(id): id")
            if s.screenID != want {
                throw ScenarioFailure("expected screen '\(want)', but the current screen is '\(s.screenID)' (stack: \(s.simulator.stack))")
            }
            return .null
        case "expect_stack":
            guard let first = args.first, case .array(let list) = first else {
                throw ScenarioFailure("s:expect_stack(screens): screens must be a list of screen ids, bottom first, found \(args.first?.kindName ?? "nothing")")
            }
            let want = list.map { $0.string ?? JSONNormal.text($0) }
            let have = s.simulator.stack.entries.map(\.screen)
            if want != have {
                throw ScenarioFailure("expected the stack \(JSONNormal.text(.array(want.map { .string($0) }))), got \(JSONNormal.text(.array(have.map { .string($0) }))) (\(s.simulator.stack))")
            }
            return .null
        case "expect_prop":
            let x = try string(args, 0, "s:expect_prop(id, key, value): id")
            let key = try string(args, 1, "s:expect_prop(id, key, value): key")
            let want = args.count > 2 ? args[2] : .null
            let m = try visibleMatch(s, x, "s:expect_prop")
            let got = Self.prop(m.props, key)
            if got == nil, case .null = want { return .null }
            guard let got else {
                var keys: [String] = []
                if case .object(let o) = m.props { keys = o.keys.sorted() }
                throw ScenarioFailure("expected props.\(key) of \(m.label) to be \(JSONNormal.text(want)), but it has no prop '\(key)'\(DidYouMean.hint(key, among: keys)); its props: \(keys.isEmpty ? "none" : keys.joined(separator: ", "))")
            }
            if !JSONNormal.equivalent(got, want) {
                throw ScenarioFailure("expected props.\(key) of \(m.label) to be \(JSONNormal.text(want)), got \(JSONNormal.text(got))")
            }
            return .null
        case "tap":
            return .string(try tap(s, try string(args, 0, "s:tap(action_or_id): action_or_id")))
        case "back":
            switch s.simulator.perform(Step(Step.backName)) {
            case .success: return .string(s.screenID)
            case .failure(let d): throw ScenarioFailure("s:back(): \(d.message)")
            }
        case "link":
            let url = try string(args, 0, "s:link(url): url")
            switch s.simulator.openLink(url) {
            case .success: return .string(s.screenID)
            case .failure(let d): throw ScenarioFailure("s:link('\(url)'): \(d.message)")
            }
        case "expect_snapshot":
            var name: String?
            if let a = args.first {
                switch a {
                case .null: break
                case .string(let n): name = n
                default: throw ScenarioFailure("s:expect_snapshot(name): name must be a string, found \(a.kindName)")
                }
            }
            try snapshot(s, name: name)
            return .null
        default:
            throw ScenarioFailure("unknown session operation '\(op)'")
        }
    }

    /// `a.b.1.c`: object keys, and 1-based list indices as in Lua.
    static func prop(_ v: JSONValue, _ key: String) -> JSONValue? {
        if case .object(let o) = v, let direct = o[key] { return direct }
        var cur = v
        for part in key.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            switch cur {
            case .object(let o):
                guard let next = o[part] else { return nil }
                cur = next
            case .array(let a):
                guard let i = Int(part), i >= 1, i <= a.count else { return nil }
                cur = a[i - 1]
            default: return nil
            }
        }
        return cur
    }

    private func where_(_ s: ScenarioSession) -> String { "on screen \(s.screenID) for \(s.userLabel)" }

    private func visibleMatch(_ s: ScenarioSession, _ x: String, _ what: String) throws(ScenarioFailure) -> TreeMatch {
        let (screen, _, r) = try s.current()
        let found = TreeSearch.find(x, in: TreeSearch.all(r.tree), categories: [.componentID, .itemID, .itemTitle])
        if let m = found.first { return m }
        throw ScenarioFailure("\(what)('\(x)'): no visible component or item '\(x)' \(where_(s))" + absentDetail(s, screen, x))
    }

    /// Why `x` is not visible: its rule trace, or the hidden component it sits in.
    private func absentDetail(_ s: ScenarioSession, _ screen: Screen, _ x: String) -> String {
        guard let (_, explained) = try? s.explained() else { return "" }
        let all = TreeSearch.all(explained.tree)
        let found = TreeSearch.find(x, in: all)
        var lines: [String] = []
        if !found.isEmpty {
            for m in found.prefix(3) where m.hidden {
                lines.append("  \(m.path) (\(m.label)) is hidden: \(m.hiddenReason ?? "")")
                if let t = m.rule { lines += TreeSearch.traceLines(t, indent: "    ") }
            }
        } else if let chain = TreeSearch.chain(to: x, in: screen) {
            // Not resolved at all: an ancestor is hidden. Report the deepest one present.
            let bySerial = Dictionary(all.filter { !$0.isItem }.map { ($0.serial, $0) }, uniquingKeysWith: { a, _ in a })
            if let hiddenAncestor = chain.reversed().compactMap({ bySerial[$0.serial] }).first(where: \.hidden) {
                lines.append("  it is inside \(hiddenAncestor.path) (\(hiddenAncestor.label)), which is hidden: \(hiddenAncestor.hiddenReason ?? "")")
                if let t = hiddenAncestor.rule { lines += TreeSearch.traceLines(t, indent: "    ") }
            }
        } else {
            let names = TreeSearch.names(in: screen)
            return "; screen \(screen.id) has no component or item '\(x)'\(DidYouMean.hint(x, among: names))"
        }
        return lines.isEmpty ? "" : "\n" + lines.joined(separator: "\n")
    }

    private func expectVisible(_ s: ScenarioSession, _ x: String) throws(ScenarioFailure) {
        let (screen, _, r) = try s.current()
        if !TreeSearch.find(x, in: TreeSearch.all(r.tree)).isEmpty { return }
        let names = TreeSearch.names(in: screen)
        if !names.contains(x) {
            throw ScenarioFailure("expected '\(x)' to be visible \(where_(s)), but screen \(screen.id) has no component or item '\(x)' (by id, title or action)\(DidYouMean.hint(x, among: names))")
        }
        throw ScenarioFailure("expected '\(x)' to be visible \(where_(s)), but it is hidden" + absentDetail(s, screen, x))
    }

    private func expectHidden(_ s: ScenarioSession, _ x: String) throws(ScenarioFailure) {
        let (screen, _, r) = try s.current()
        let visible = TreeSearch.find(x, in: TreeSearch.all(r.tree))
        if visible.isEmpty {
            let names = TreeSearch.names(in: screen)
            if !names.contains(x) {
                throw ScenarioFailure("expected '\(x)' to be hidden \(where_(s)), but screen \(screen.id) has no component or item '\(x)' at all (by id, title or action), so the expectation proves nothing\(DidYouMean.hint(x, among: names))")
            }
            return
        }
        var lines = ["expected '\(x)' to be hidden \(where_(s)), but it is visible"]
        let explained = (try? s.explained())?.1
        let traced = explained.map { TreeSearch.all($0.tree) } ?? []
        for m in visible.prefix(3) {
            lines.append("  \(m.path) (\(m.label))")
            if let t = traced.first(where: { $0.path == m.path })?.rule {
                lines += TreeSearch.traceLines(t, indent: "    ")
            } else {
                // Show the rules of the components above it that decided.
                let above = traced.filter { m.path.hasPrefix($0.path + "/") && $0.rule != nil }
                if above.isEmpty { lines.append("    it has no rule, and no component above it has one") }
                for a in above {
                    lines.append("    inside \(a.path) (\(a.label)):")
                    lines += TreeSearch.traceLines(a.rule!, indent: "      ")
                }
            }
        }
        throw ScenarioFailure(lines.joined(separator: "\n"))
    }

    private func tap(_ s: ScenarioSession, _ x: String) throws(ScenarioFailure) -> String {
        let (screen, _, r) = try s.current()
        let all = TreeSearch.all(r.tree)
        let visibleActions = OrderedSet(r.actions.map(\.action))
        var action: String?
        if let m = TreeSearch.find(x, in: all, categories: [.componentID, .itemID, .itemTitle]).first {
            guard let a = m.action else {
                throw ScenarioFailure("cannot tap '\(x)' \(where_(s)): \(m.path) (\(m.label)) has no action")
            }
            action = a
        } else if visibleActions.contains(x) {
            action = x
        }
        guard let action else {
            let list = visibleActions.isEmpty ? "none" : visibleActions.joined(separator: ", ")
            let names = TreeSearch.names(in: screen)
            if names.contains(x) {
                throw ScenarioFailure("cannot tap '\(x)' \(where_(s)): it is hidden; visible actions: \(list)" + absentDetail(s, screen, x))
            }
            throw ScenarioFailure("cannot tap '\(x)' \(where_(s)): it is not a visible action, nor the id or title of a visible component or item; visible actions: \(list)\(DidYouMean.hint(x, among: Array(visibleActions)))")
        }
        guard let step = Step(action: action) else {
            throw ScenarioFailure("cannot tap '\(x)': its action '\(action)' is not a navigation step")
        }
        switch s.simulator.perform(step) {
        case .success: return s.screenID
        case .failure(let d): throw ScenarioFailure("tap '\(x)'\(x == action ? "" : " (action \(action))") \(where_(s)): \(d.message)")
        }
    }

    // MARK: Snapshots

    static func sanitize(_ s: String) -> String {
        var out = ""
        var lastUnderscore = false
        for c in s.unicodeScalars {
            let keep = (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "-" || c == "."
            if keep {
                out.unicodeScalars.append(c)
                lastUnderscore = false
            } else if !lastUnderscore {
                out += "_"
                lastUnderscore = true
            }
        }
        while out.hasPrefix("_") || out.hasPrefix(".") { out.removeFirst() }
        while out.hasSuffix("_") || out.hasSuffix(".") { out.removeLast() }
        if out.isEmpty { out = "scenario" }
        if out.count > 120 { out = String(out.prefix(120)) }
        return out
    }

    /// The snapshot text of the session's current screen: tree, stack and graph, with paths
    /// relative to the project so the file does not depend on the working directory.
    func snapshotDocument(_ s: ScenarioSession) throws(ScenarioFailure) -> SnapshotDocument {
        let (screen, _, r) = try s.current()
        let graph = ws.navigationGraph(from: screen, user: s.user)
        var diags = Diagnostics()
        diags.append(contentsOf: r.diagnostics)
        diags.append(contentsOf: graph.diagnostics)
        let root = ws.project.root
        func rel(_ text: String) -> String {
            var t = text
            for prefix in Set([root, ScenarioDiscovery.standardized(root)]) where prefix != "." && !prefix.isEmpty {
                t = t.replacingOccurrences(of: prefix + "/", with: "")
            }
            return t
        }
        let userText = (s.user.name ?? "(anonymous)") + " " + JSONNormal.text(.object(s.user.attributes))
        return SnapshotDocument(
            screen: screen.id, user: userText, stack: s.simulator.stack.description,
            tree: r.tree.map(SnapNode.init), diagnostics: diags.sorted.map { rel($0.description) }, graph: rel(graph.text))
    }

    private func snapshot(_ s: ScenarioSession, name: String?) throws(ScenarioFailure) {
        let owner = resultName
        var base = Self.sanitize(owner)
        if let name {
            base += "-" + Self.sanitize(name)
        } else {
            let k = unnamedCount[owner, default: 0] + 1
            unnamedCount[owner] = k
            if k > 1 { base += "-\(k)" }
        }
        let path = Project.join(file.snapshotDirectory, base + ".snap")
        if let other = snapshotOwners[path], other != owner {
            throw ScenarioFailure("snapshot \(path) is already written by scenario '\(other)' (their names map to the same file); give this snapshot a name: s:expect_snapshot(\"name\")")
        }
        if snapshotOwners[path] != nil && name != nil {
            throw ScenarioFailure("snapshot '\(name!)' is taken twice in this scenario (\(path)); give each a distinct name")
        }
        snapshotOwners[path] = owner
        referenced.insert(path)
        let text = try snapshotDocument(s).text
        let fm = FileManager.default
        let pending = path + ".new"
        var existing: String?
        if SafeFile.exists(path) {
            do { existing = try SafeFile.readString(path) } catch { throw ScenarioFailure("snapshot \(path): \(error.message)") }
        }
        if let old = existing {
            if old == text {
                if fm.fileExists(atPath: pending) { try? fm.removeItem(atPath: pending) }
                return
            }
            if options.update {
                try write(text, to: path)
                if fm.fileExists(atPath: pending) { try? fm.removeItem(atPath: pending) }
                note("updated \(path)")
                return
            }
            try write(text, to: pending)
            var lines = ["snapshot \(path) does not match \(where_(s)); the new result is in \(pending) (review it, then `host test --accept`, or re-record with `host test --update`)"]
            let diff: [String]
            if let expected = SnapshotDocument.parse(old), let actual = SnapshotDocument.parse(text) {
                diff = expected.differences(to: actual)
            } else {
                diff = LineDiff.diff(old.split(separator: "\n").map(String.init), text.split(separator: "\n").map(String.init))
            }
            lines += diff.map { "  " + $0 }
            throw ScenarioFailure(lines.joined(separator: "\n"))
        }
        if options.ci && !options.update {
            throw ScenarioFailure("snapshot \(path) is missing, and under CI=true snapshots are never recorded: run `host test` locally to record it, review it and commit it")
        }
        try write(text, to: path)
        note("recorded \(path)")
    }

    private func write(_ text: String, to path: String) throws(ScenarioFailure) {
        let dir = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ScenarioFailure("cannot write \(path): \(error.localizedDescription)")
        }
    }

    // MARK: Host functions of the scenario environment

    /// Calls a host function of the environment (print, require, registered_rules, load_file)
    /// on the main Lua thread, for scenario code running in its coroutine.
    private func callDirect(_ args: [JSONValue]) throws(ScenarioFailure) -> Reply {
        let name = try string(args, 0, "host function name")
        let top = state.top
        defer { state.top = top }
        state.push(controlRef)
        state.getField(-1, "direct")
        guard state.type(-1) == LUA_TTABLE else { throw ScenarioFailure("\(name): not available") }
        state.getField(-1, name)
        guard state.type(-1) == LUA_TFUNCTION else { throw ScenarioFailure("\(name): not available") }
        for a in args.dropFirst() { state.push(json: a) }
        do {
            try withScenarioLimits { () throws(LuaError) in try state.pcall(nargs: Int32(args.count - 1), nresults: 1) }
        } catch {
            throw ScenarioFailure(error.file == nil ? error.message : error.description)
        }
        if state.type(-1) == LUA_TNIL { return .json(.null) }
        return .ref(state.ref())
    }

    /// `registered_rules(plugin?)`: `{ [name] = { evaluate = fn, check = fn } }` for the Lua
    /// rules registered (by that plugin), e.g. to run a plugin's unit checks in the sandbox.
    private func registeredRules(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        let plugin = call.string(1)
        if call.count >= 1, call.type(1) != LUA_TNIL, plugin == nil {
            return .failure(LuaHostError("registered_rules(plugin?): plugin must be a plugin name (a string)"))
        }
        state.newTable()
        for (name, reg) in ws.factory.rules.sorted(by: { $0.key < $1.key }) {
            if let plugin, reg.plugin.name != plugin { continue }
            guard let r = ws.engine.luaFunctions(of: reg.evaluator) else { continue }
            state.newTable()
            state.push(r.evaluate)
            state.setField(-2, "evaluate")
            if let c = r.check {
                state.push(c)
                state.setField(-2, "check")
            }
            state.setField(-2, name)
        }
        return .success(1)
    }

    /// `load_file(path)`: a Lua file of the project (or, for a plugin's scenarios, of the
    /// plugin), relative to the scenario file, loaded as a function in this environment.
    private func loadFile(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        guard let rel = call.string(1) else { return .failure(LuaHostError("load_file(path): path must be a string")) }
        let dir = ScenarioDiscovery.parent(file.path)
        let target = ScenarioDiscovery.standardized(Project.join(dir, rel))
        let allowed = ScenarioDiscovery.standardized(file.plugin ?? file.projectRoot)
        guard target.hasPrefix(allowed + "/") else {
            return .failure(LuaHostError("load_file('\(rel)'): only files inside \(file.plugin ?? file.projectRoot) can be loaded"))
        }
        guard SafeFile.isInside(target, root: file.plugin ?? file.projectRoot) else {
            return .failure(LuaHostError("load_file('\(rel)'): only files inside \(file.plugin ?? file.projectRoot) can be loaded"))
        }
        let source: String
        do { source = try SafeFile.readString(target) } catch {
            return .failure(LuaHostError("load_file('\(rel)'): cannot read \(target): \(error.message)"))
        }
        do {
            state.push(envRef)
            try ws.engine.sandbox.loadChunk(source: source, chunkName: Project.displayPath(target), envIndex: -1)
            lua_rotate(state.L, -2, 1)
            state.pop(1)
        } catch {
            return .failure(LuaHostError("load_file('\(rel)'): \(error)"))
        }
        return .success(1)
    }
}
