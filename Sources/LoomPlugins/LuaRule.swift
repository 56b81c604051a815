import LoomCore
import LuaRuntime

/// A rule registered by a Lua plugin (`host.rule`): its argument check and its evaluation.
final class LuaRule: ObservableRule, AttributeReading {
    let engineRef: UncheckedRef<PluginEngine>
    /// Borrowed (`_read`), not returned: no retain and release around every rule call.
    var engine: PluginEngine { _read { yield engineRef.object } }
    let function: LuaRef
    let checkFunction: LuaRef?
    let name: String
    let plugin: PluginInfo

    let fnRef: Int32
    /// The engine's state (calls go through its main thread: a rule may be registered from
    /// inside a coroutine, whose thread must not be kept).
    let stateRef: UncheckedRef<LuaState>
    var state: LuaState { _read { yield stateRef.object } }
    /// The resolution in which this rule exceeded a limit: it is not called again there.
    let exhausted = ExhaustedMark()
    /// A flat call's warning that the rule used a view it kept from an earlier user, until taken
    /// (`takeKeptViewNote`).
    var keptViewNote: Diagnostic?

    let owner: Int32
    /// The state's main thread (`LuaState.mainThread`): the hot path calls through it, holding
    /// no reference to the state object (nothing to retain and release per call).
    let mainThread: OpaquePointer
    /// The state's limits block (`LuaState.limitsHandle`), handed to every call so C does not
    /// look it up.
    let limits: OpaquePointer

    /// The declared argument schema (`options.args`): its defaults are filled into the
    /// arguments the rule receives.
    var arguments: ArgumentSchema?
    /// The attributes it reads (`options.reads`), when declared.
    var reads: AttributeReads?
    /// The frozen defaults a reference without arguments receives (-2: not made yet; -1: none).
    private var defaultsTable: Int32 = -2
    /// Whether the rule's function only reads named fields of the user (0: not known yet; 1:
    /// it does, its fields added to its plugin's plain view; -1: it does not). See `isPlain`.
    private var plainReads: Int8 = 0

    /// Whether the rule's function uses the user only to read fields it names
    /// (`LuaState.fieldReads`, read from its bytecode once): `host eval` then calls it with its
    /// plugin's plain view of the user (`PluginEngine.plainViewRef`), where every other rule gets
    /// a frozen view.
    @inline(__always)
    func isPlain(_ engine: PluginEngine) -> Bool {
        if _fastPath(plainReads != 0) { return plainReads > 0 }
        return findPlainReads(engine)
    }

    @inline(never)
    private func findPlainReads(_ engine: PluginEngine) -> Bool {
        guard engine.plainViews, let keys = engine.state.fieldReads(ofFunction: fnRef) else {
            plainReads = engine.plainViews ? -1 : 0
            return false
        }
        engine.addPlainReads(owner: owner, keys: keys)
        plainReads = 1
        return true
    }

    func defaultsRefForCreated() throws(LuaError) -> Int32 { try defaultsRef() }

    /// The arguments of a reference that gives none: nil, or the declared defaults.
    @inline(__always)
    private func defaultsRef() throws(LuaError) -> Int32 {
        if _fastPath(defaultsTable != -2) { return defaultsTable }
        return try makeDefaults()
    }

    @inline(never)
    private func makeDefaults() throws(LuaError) -> Int32 {
        guard let d = arguments?.defaultsAlone else {
            defaultsTable = -1
            return -1
        }
        let state = engine.state
        _ = state.push(json: d, keepingOrder: true)
        try engine.sandbox.freezeTree()
        defaultsTable = state.rawRef()
        return defaultsTable
    }

    init(engine: PluginEngine, function: LuaRef, check: LuaRef?, name: String, plugin: PluginInfo, owner: Int32) {
        engineRef = UncheckedRef(engine)
        self.owner = owner
        self.function = function
        fnRef = function.ref
        stateRef = UncheckedRef(engine.state)
        mainThread = engine.state.mainThread
        limits = engine.state.limitsHandle
        self.checkFunction = check
        self.name = name
        self.plugin = plugin
    }

    func check(args: JSONNode?, file: String) -> [String] {
        // Arguments handed to Lua stay within the nesting limit (reported at their location).
        if let deep = args?.firstTooDeep() {
            return ["the arguments are \(Limits.nestingMessage) (at \(deep.position.line):\(deep.position.column))"]
        }
        guard let checkFunction else { return [] }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        let previousOwner = engine.enter(owner)
        defer { engine.leave(previousOwner) }
        state.push(checkFunction)
        do {
            try engine.pushArgs(args, key: nil)
            try state.pcall(nargs: 1, nresults: 1)
        } catch {
            return ["its argument check (plugin \(plugin.name)) failed: \(error)"]
        }
        switch state.type(-1) {
        case .nil: return []
        case .string, .table: return state.checkMessages(at: -1)
        case .boolean where state.toBool(-1):
            return []
        default:
            return ["its argument check (plugin \(plugin.name)) returned a \(state.typeName(-1)); expected nothing or a message"]
        }
    }

    /// Inlined into the protocol's witness: a call whose tables are made already (every call
    /// after a subject's first in a resolution) costs the witness alone, not a second call with
    /// the whole evaluation's frame; anything else goes on in `evaluateMaking`.
    @inline(__always)
    func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        if _fastPath(!exhausted.isSet), let r = callWithMadeTables(args: args, at: location, subject: subject, context: context) { return r }
        return evaluateMaking(args: args, at: location, subject: subject, context: context)
    }

    /// The call when every table it takes is made already (`PluginEngine.madeTables`); nil when
    /// one is missing.
    @inline(__always)
    private func callWithMadeTables(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure>? {
        let defaults = defaultsTable
        guard let t = engineRef.withObject({ $0.madeTables(owner: owner, context: context, subject: subject, hasArgs: args != nil, at: location, defaults: defaults) })
        else { return nil }
        return call(user: t.user, args: t.args, node: t.node, context: context)
    }

    /// `evaluate` when the rule met a limit in some resolution, or a table of the call is not
    /// made yet.
    @inline(never)
    private func evaluateMaking(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        if exhausted.isSet {
            if let f = exhausted.failure(in: context) { return .failure(f) }
            // Marked in another resolution: `evaluate` did not look for made tables (when the
            // rule is not marked, it did, and one was missing).
            if let r = callWithMadeTables(args: args, at: location, subject: subject, context: context) { return r }
        }
        switch references(args: args, at: location, subject: subject, context: context) {
        case .failure(let f): return .failure(f)
        case .success(.created(let c, let user)): return evaluateCreated(args: args, subject: c, user: user, context: context)
        case .success(.tables(let user, let node, let argsRef)): return call(user: user, args: argsRef, node: node, context: context)
        }
    }

    /// What a call takes: the registry references of the user's view, the node and the
    /// arguments; or, for a node a builder created, the user's view alone.
    private enum CallTables {
        case tables(user: Int32, node: Int32, args: Int32)
        case created(Component, user: Int32)
    }

    /// `userTable`: the user's view is not wanted, this table stands for it (`evaluateObserved`).
    private func references(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext,
                            userTable: Int32? = nil) -> Result<CallTables, BuildFailure> {
        // The engine borrowed for the body (no retain and release per rule call).
        engineRef.withObject { engine in references(engine, args: args, at: location, subject: subject, context: context, userTable: userTable) }
    }

    @inline(__always)
    private func references(_ engine: PluginEngine, args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext,
                            userTable: Int32? = nil) -> Result<CallTables, BuildFailure> {
        do {
            let user: Int32
            if let userTable { user = userTable } else { user = try engine.userRef(context, owner: owner, subject: subject) }
            if case .component(let c) = subject, c.creation != nil { return .success(.created(c, user: user)) }
            let (node, argsRef) = try nodeAndArgs(engine, args: args, at: location, subject: subject)
            return .success(.tables(user: user, node: node, args: argsRef))
        } catch {
            return .failure(engine.failure(error))
        }
    }

    /// The registry references of the node table and the arguments a call for `subject` (not a
    /// node a builder created) hands the rule.
    @inline(__always)
    func nodeAndArgs(_ engine: PluginEngine, args: JSONNode?, at location: SourceLocation, subject: RuleSubject) throws(LuaError) -> (node: Int32, args: Int32) {
        let node: Int32, subjectKey: UInt
        switch subject {
        case .component(let c):
            node = try engine.nodeRef(c)
            subjectKey = IdentityMap.key(c)
        case .item(let i):
            node = try engine.itemRef(i)
            subjectKey = IdentityMap.key(i)
        }
        if let args { return (node, try engine.argsRef(args, subject: subjectKey, location: location, schema: arguments)) }
        return (node, try defaultsRef())
    }
}

extension LuaRule {
    /// `evaluate` with the user's view replaced by a recording view of the same table (see
    /// `ObservableRule`). Subjects a builder created are evaluated plainly (reads: nil).
    func evaluateObserved(args: JSONNode?, at location: SourceLocation, subject: RuleSubject,
                          context: ResolutionContext) -> (result: Result<Bool, BuildFailure>, reads: [String]?) {
        if _slowPath(exhausted.isSet), let f = exhausted.failure(in: context) { return (.failure(f), nil) }
        // A subject of the screen (not a template element's, not a node a builder created) whose
        // user view is not made yet in this resolution: the view's table alone, seen only through
        // the recording view (`PluginEngine.userTable`; a narrowed call's context sees no other
        // call, and a plain call made later gets the view over the same table).
        if subject.scope == nil, !LuaRule.createdByBuilder(subject),
           let table = engineRef.withObject({ $0.userTable(context, owner: owner) }) {
            switch references(args: args, at: location, subject: subject, context: context, userTable: table) {
            case .failure(let f): return (.failure(f), nil)
            case .success(.created): break  // not reached (checked above): the usual path below
            case .success(.tables(_, let node, let argsRef)):
                if let recording = state.recordingView(ofTable: table, name: "node") {
                    return observed(recording, args: argsRef, node: node, context: context)
                }
            }
        }
        let user: Int32, node: Int32, argsRef: Int32
        switch references(args: args, at: location, subject: subject, context: context) {
        case .failure(let f): return (.failure(f), nil)
        case .success(.created(let c, let u)): return (evaluateCreated(args: args, subject: c, user: u, context: context), nil)
        case .success(.tables(let u, let n, let a)): (user, node, argsRef) = (u, n, a)
        }
        guard let recording = state.recordingView(of: user) else { return (call(user: user, args: argsRef, node: node, context: context), nil) }
        return observed(recording, args: argsRef, node: node, context: context)
    }

    /// The call through `recording` (released after): its result, and what it read when it
    /// succeeded without logging a line.
    private func observed(_ recording: RecordingView, args argsRef: Int32, node: Int32, context: ResolutionContext)
        -> (result: Result<Bool, BuildFailure>, reads: [String]?) {
        defer { state.release(recording) }
        let logged = engine.sandbox.logCalls
        let result = call(user: recording.view, args: argsRef, node: node, context: context)
        guard case .success = result, engine.sandbox.logCalls == logged else { return (result, nil) }
        return (result, state.reads(recording))
    }

    /// Whether `subject` is a node a builder created (`ui.*`): its calls take their own path.
    @inline(__always)
    static func createdByBuilder(_ subject: RuleSubject) -> Bool {
        if case .component(let c) = subject, c.creation != nil { return true }
        return false
    }
}

extension LuaRule {
    /// A rule guarding a node a builder created (`ui.*`): its arguments are made for this call
    /// and released after (nodes made on one Lua line may differ in their arguments: nothing is
    /// cached by location), its node table too unless the node lasts across resolutions.
    private func evaluateCreated(args: JSONNode?, subject c: Component, user: Int32, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        let engine = self.engine
        var made: [Int32] = []
        defer { for r in made { state.release(rawRef: r) } }
        let node: Int32, argsRef: Int32
        do {
            if c.isLasting {
                node = try engine.nodeRef(c)
            } else {
                state.push(json: PluginEngine.nodeJSON(c), keepingOrder: true)
                try engine.sandbox.freezeTree()
                node = state.rawRef()
                made.append(node)
            }
            if let args {
                if let schema = arguments, schema.hasDefaults {
                    state.push(json: schema.withDefaults(args.plain), keepingOrder: true)
                } else {
                    state.push(json: args, keepingOrder: true)
                }
                if state.type(-1) == .table { try engine.sandbox.freezeTree() }
                argsRef = state.rawRef()
                made.append(argsRef)
            } else {
                argsRef = try defaultsRefForCreated()
            }
        } catch {
            return .failure(engine.failure(error))
        }
        return call(user: user, args: argsRef, node: node, context: context)
    }
}

extension LuaRule {
    /// Calls the rule's function with the user, arguments and node tables; its answer must be
    /// a boolean. A time or memory limit it hits is noted, so it is not called again this
    /// resolution.
    @inline(__always)
    func call(user: Int32, args argsRef: Int32, node: Int32, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        let answer = LuaState.callRulePacked(mainThread, limits: limits, owner: owner, function: fnRef, user: user, args: argsRef, node: node)
        if _fastPath(answer == LuaState.ruleAnsweredTrue) { return .success(true) }
        if _fastPath(answer == LuaState.ruleAnsweredFalse) { return .success(false) }
        return callFailed(status: LuaState.ruleStatus(answer), exceeded: LuaState.ruleExceeded(answer), context: context)
    }

    /// The rule raised, met a limit (`status` not LUA_OK: the error on the stack), or returned
    /// something not a boolean (left on the stack).
    @inline(never)
    private func callFailed(status: Int32, exceeded: Int32, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        if status != 0 {
            let error = state.popError(status: status, exceeded: exceeded)
            exhausted.note(error, in: context)
            return .failure(engine.failure(error))
        }
        defer { state.pop(1) }
        return .failure(BuildFailure("rule '\(name)' (plugin \(plugin.name)) returned \(state.type(-1) == .nil ? "nil" : "a " + state.typeName(-1)), expected a boolean"))
    }
}

extension PluginEngine {
    /// The Lua functions behind a rule registered by a Lua plugin (nil for other evaluators),
    /// e.g. for a plugin's unit checks run in the sandbox (`registered_rules`).
    public func luaFunctions(of evaluator: RuleEvaluating) -> (evaluate: LuaRef, check: LuaRef?)? {
        guard let r = evaluator as? LuaRule else { return nil }
        return (r.function, r.checkFunction)
    }
}
