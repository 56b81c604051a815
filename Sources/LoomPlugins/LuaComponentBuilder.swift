import LoomCore
import LuaRuntime

/// A component builder registered by a Lua plugin (`host.single`, `host.wrapper`, …).
final class LuaComponentBuilder: ComponentBuilding {
    unowned let engine: PluginEngine
    let function: LuaRef
    let kind: ComponentKind
    let type: String
    let plugin: PluginInfo
    let owner: Int32
    let exhausted = ExhaustedMark()
    /// A wrapper, cluster or collection builder declaring one parameter (the node) and no `...`:
    /// it cannot see the child or items passed as the second argument, so (builders being
    /// deterministic) its output depends on its node alone. Read once, from the function.
    private(set) lazy var blind: Bool = {
        guard kind != .single, let p = engine.state.parameters(of: function) else { return false }
        return p.fixed <= 1 && !p.vararg
    }()
    init(engine: PluginEngine, function: LuaRef, kind: ComponentKind, type: String, plugin: PluginInfo, owner: Int32) {
        self.engine = engine
        self.function = function
        self.kind = kind
        self.type = type
        self.plugin = plugin
        self.owner = owner
    }

    func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
        let engine = self.engine
        // A single's output depends on its node only, unless the resolution has parameters
        // (then its node carries them, and its meta may be bound to them): cached otherwise, by
        // component, or with a resolved style by component and style (its node carries them).
        // A created node (`ui.*`) made for one resolution only is never cached by identity.
        // So is the output of a wrapper, cluster or collection builder that cannot see its
        // children or items (`blind`), when its node holds no resolved header or footer, as
        // long as it returns no children of its own (kept apart from singles' outputs, whose
        // resolved tables are made differently).
        let plain = request.context.params.isEmpty && request.context.boundMeta.isEmpty && request.component.isLasting
        let cacheable = plain && (kind == .single || (blind && request.component.header == nil && request.component.footer == nil))
        let nodeStyle = request.context.nodeStyles.isEmpty ? nil : request.context.nodeStyles[request.component.serial]
        let style = cacheable ? nodeStyle : nil
        let styledKey = style.map { StyledKey(request.component, $0) }
        if cacheable, let cached = engine.keptOutput(single: kind == .single, request.component, styled: styledKey) {
            return .success(cached)
        }
        if exhausted.isSet, let f = exhausted.failure(in: request.context) { return .failure(f) }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        request.context.pluginCalls += 1
        if let record = engine.buildRecorder { record(self, request) }  // bench builder_call only
        state.push(function)
        let data = engine.resolutionTables(request.context)
        let nargs: Int32
        do {
            nargs = try pushArguments(request, data, style: nodeStyle)
        } catch {
            return .failure(engine.failure(error))
        }
        var childrenIndex: Int32?
        if kind == .cluster || kind == .wrapper {
            // Keep the children passed (a wrapper's one child as a list of one), to recognise
            // the children the builder returns.
            if kind == .cluster {
                state.pushCopy(-1)
            } else {
                state.newTable(narr: 1)
                if request.children.first != nil {
                    state.pushCopy(-2)
                    state.setIndex(-2, 1)
                }
            }
            state.rotate(-(nargs + 2), 1)
            childrenIndex = state.absIndex(-(nargs + 2))
        }
        let previousOwner = engine.enter(owner)
        defer { engine.leave(previousOwner) }
        // The nodes this call creates with `ui.*` (builders do not nest: one scope at a time).
        let scope = BuildScope()
        let outerScope = engine.buildScope
        engine.buildScope = scope
        defer { engine.buildScope = outerScope }
        do {
            try state.pcall(nargs: nargs, nresults: 1)
        } catch {
            _ = engine.endBuildScope(scope)
            exhausted.note(error, in: request.context)
            return .failure(engine.failure(error))
        }
        var result = engine.readBuildResult(
            what: "the builder of '\(type)' (plugin \(plugin.name))", childrenIndex: childrenIndex,
            children: kind == .wrapper ? request.children.prefix(1) : request.children[...], scope: scope)
        if let unplaced = engine.endBuildScope(scope), case .success = result {
            result = .failure(BuildFailure(unplaced))
        }
        if cacheable, case .success(let out) = result, kind == .single || out.children == nil {
            engine.keep(out, single: kind == .single, request.component, styled: styledKey)
        }
        return result
    }

    /// Pushes the builder's arguments: its node table, then (not for a single) its child (a
    /// wrapper's, nil when it has none), its children's list (a cluster's) or its items' list (a
    /// collection's). Returns how many were pushed. (Also what bench builder_call's bare calls
    /// are handed, made once.)
    func pushArguments(_ request: BuildRequest, _ data: ResolutionTables, style nodeStyle: NodeStyle?) throws(LuaError) -> Int32 {
        let engine = self.engine
        let state = engine.state
        try engine.pushNode(request, data, style: nodeStyle)
        switch kind {
        case .single:
            return 1
        case .wrapper:
            if let c = request.children.first { engine.pushResolved(c, data) } else { state.pushNil() }
        case .cluster:
            state.newTable(narr: Int32(request.children.count))
            for (i, c) in request.children.enumerated() {
                engine.pushResolved(c, data)
                state.setIndex(-2, i + 1)
            }
        case .collection:
            state.newTable(narr: Int32(request.items.count))
            for (i, it) in request.items.enumerated() {
                try engine.pushResolved(it)
                state.setIndex(-2, i + 1)
            }
        }
        return 2
    }
}

extension PluginEngine {
    /// A builder's kept output for a component (with a resolved style: for the component and
    /// that style): a single's, or a blind builder's, kept apart (their resolved tables are made
    /// differently).
    @inline(__always)
    func keptOutput(single: Bool, _ c: Component, styled: StyledKey?) -> BuildOutput? {
        if let styled { return single ? styledSingles[styled] : styledBlindOutputs[styled] }
        return single ? singleCache[ObjectIdentifier(c)] : blindOutputs[ObjectIdentifier(c)]
    }

    /// Keeps a builder's output where `keptOutput` finds it (the component kept alive, so its
    /// identity is not reused by another).
    func keep(_ out: BuildOutput, single: Bool, _ c: Component, styled: StyledKey?) {
        switch (single, styled) {
        case (true, let k?): styledSingles[k] = out
        case (true, nil): singleCache[ObjectIdentifier(c)] = out
        case (false, let k?): styledBlindOutputs[k] = out
        case (false, nil): blindOutputs[ObjectIdentifier(c)] = out
        }
        retained.append(c)
    }
}
