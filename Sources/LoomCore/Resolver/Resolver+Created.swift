/// Nodes builders create with `ui.*` (docs/plugin-api.md, "Creating nodes: ui.*"): each becomes
/// a component like one read from a screen file — checked against its type's meta schema, its
/// rule evaluated, its style resolved, its builder run — located at its Lua call, with the path
/// `<parent path>/ui[k]` and a serial past the screen's.
struct CreatedNodesState {
    /// The next serial to hand out (-1: not started; the first is the screen's serial count).
    var nextSerial = -1
    var count = 0
    var reportedCount = false
    /// Created nodes that must not be shown, with why (`ScreenCheck.invalid` for them).
    var invalid: [Int: String] = [:]
    /// Their meta keys their type does not declare (`ScreenCheck.undeclaredMeta` for them).
    var undeclaredMeta: [Int: JSONValue] = [:]
    /// A created node's rule was evaluated: the tree depends on more than the outcomes of the
    /// screen's rule program (such a tree is reused only when their outcomes come out the same).
    var evaluatedRule = false
    /// The created nodes' rules evaluated, in order, with their traces.
    var trail: [CreatedRuleCheck] = []
    /// One of them failed (its diagnostics belong to this resolution: the tree is not kept).
    var failedRule = false
}

/// A created node's rule as a resolution evaluated it.
struct CreatedRuleCheck {
    var rule: RuleExpression
    var subject: Component
    var trace: RuleTrace
}

/// A tree holding created nodes with rules, kept under the outcomes of the screen's rule program
/// with the outcomes of those rules: builders are deterministic, so the same outcomes of the
/// same rules in the same order give the same tree.
struct CreatedTree {
    var checks: [CreatedRuleCheck]
    var tree: ResolvedNode?
    var diagnostics: [Diagnostic]
}

extension Resolver {
    /// A kept tree whose created nodes' rules come out, evaluated now in the order the tree's
    /// resolution evaluated them, exactly as they did then (nil: none; then the tree is built).
    /// Stops at the first rule that differs; a rule that fails is a miss (the build reports it).
    func reusedCreatedTree(_ key: OutcomeKey, cache: ResolutionCache, ctx: ResolutionContext) -> CreatedTree? {
        guard let variants = cache.createdTrees.get(key) else { return nil }
        // Each rule is evaluated once for all variants that reach it at the same place.
        var evaluated: [(subject: ObjectIdentifier, rule: RuleExpression, trace: RuleTrace)] = []
        for v in variants {
            var same = true
            for (i, check) in v.checks.enumerated() {
                let trace: RuleTrace
                if i < evaluated.count, evaluated[i].subject == ObjectIdentifier(check.subject), evaluated[i].rule == check.rule {
                    trace = evaluated[i].trace
                } else {
                    var live = LiveRuleWalk(factory: factory, subject: .component(check.subject), ctx: ctx)
                    trace = RuleEvaluator.run(check.rule, &live)
                    if trace.value == nil { return nil }
                    let entry = (ObjectIdentifier(check.subject), check.rule, trace)
                    if i < evaluated.count { evaluated[i] = entry } else { evaluated.append(entry) }
                }
                if trace != check.trace {
                    same = false
                    break
                }
            }
            if same { return v }
        }
        return nil
    }

    /// Why a component must not be shown (its static check, or a created node's).
    @inline(__always)
    func invalidReason(_ c: Component, ctx: ResolutionContext) -> String? {
        if c.creation == nil { return check.invalid.isEmpty ? nil : check.invalid[c.serial] }
        return ctx.created.invalid[c.serial]
    }

    /// The meta keys a component's type does not declare.
    @inline(__always)
    func extraMeta(_ c: Component, ctx: ResolutionContext) -> JSONValue? {
        if c.creation == nil { return check.undeclaredMeta.isEmpty ? nil : check.undeclaredMeta[c.serial] }
        return ctx.created.undeclaredMeta[c.serial]
    }

    /// The children a builder returned, resolved: those it was given as they are, the nodes it
    /// created made into components (checked, then resolved like any other).
    func resolveBuilt(
        _ built: [BuiltChild], parent c: Component, registration reg: ComponentRegistration?, shown: [ResolvedNode],
        ctx: ResolutionContext
    ) -> [ResolvedNode] {
        var out: [ResolvedNode] = []
        out.reserveCapacity(built.count)
        var k = 0
        for b in built {
            switch b {
            case .given(let i):
                if i >= 0 && i < shown.count { out.append(shown[i]) }
            case .created(let spec):
                let made = created(spec, parent: c, index: k, registration: reg, ctx: ctx)
                k += 1
                if let n = resolve(made, parentMeta: reg?.childMeta, ctx: ctx) { out.append(n) }
            }
        }
        return out
    }

    /// The component of a created node: with a cache, the one made the first time this parent's
    /// builder created this node (the same object every resolution, so what is cached by
    /// identity — builder outputs, node tables — serves it); its diagnostics are reported again
    /// each time. Made afresh without a cache, or when the count bound is reached.
    func created(
        _ spec: CreatedNode, parent c: Component, index k: Int, registration reg: ComponentRegistration?, ctx: ResolutionContext
    ) -> Component {
        let key = CreatedKey(parent: ObjectIdentifier(c), index: k, node: spec)
        if let cache, let e = cache.createdNodes.get(key), ctx.created.count + e.size <= CreatedNodeLimits.maxCount {
            ctx.created.count += e.size
            e.report(into: ctx)
            return e.component
        }
        var made = MadeNodes(shared: cache != nil)
        let component = makeCreated(
            spec, path: "\(c.path)/ui[\(k)]", depth: (c.creation?.depth ?? 0) + 1, builder: c.type, made: &made, ctx: ctx)
        let found = ScreenChecker.check(created: component, parent: reg, factory: factory)
        made.diagnostics.append(contentsOf: found.diagnostics)
        for (serial, why) in found.invalid where made.invalid[serial] == nil { made.invalid[serial] = why }
        made.undeclaredMeta.merge(found.undeclaredMeta) { a, _ in a }
        let entry = CreatedEntry(component: component, size: made.size, diagnostics: made.diagnostics, invalid: made.invalid,
                                 undeclaredMeta: made.undeclaredMeta)
        ctx.created.count += made.size
        entry.report(into: ctx)
        if let cache, !made.counted { cache.storeCreated(key, entry) }
        return component
    }

    /// A created node as a component (and what it holds), located at its `ui.*` call. Past the
    /// depth or count bound it is made without its children and marked invalid (hidden, with
    /// a located error).
    func makeCreated(
        _ s: CreatedNode, path: String, depth: Int, builder: String, made: inout MadeNodes, ctx: ResolutionContext
    ) -> Component {
        let serial: Int
        if let cache {
            serial = cache.nextCreatedSerial(after: screen.serialCount)
        } else {
            if ctx.created.nextSerial < 0 { ctx.created.nextSerial = screen.serialCount }
            serial = ctx.created.nextSerial
            ctx.created.nextSerial += 1
        }
        made.size += 1
        let loc = s.location
        let pos = SourcePosition(line: loc.line, column: loc.column)
        var stop: String?
        if depth > CreatedNodeLimits.maxDepth {
            stop = "created nodes nest more than \(CreatedNodeLimits.maxDepth) levels deep"
            made.diagnostics.error(
                "'\(s.type)' created by the builder of '\(builder)' at \(path) nests more than \(CreatedNodeLimits.maxDepth) levels of "
                    + "created nodes (a builder that creates its own type without end?); it is hidden with what it holds", at: loc)
        } else if ctx.created.count + made.size > CreatedNodeLimits.maxCount {
            stop = "more than \(CreatedNodeLimits.maxCount) nodes were created in this resolution"
            made.counted = true
            if !ctx.created.reportedCount {
                ctx.created.reportedCount = true
                made.diagnostics.error(
                    "builders created more than \(CreatedNodeLimits.maxCount) nodes in this resolution; '\(s.type)' at \(path) "
                        + "and every node created after it are hidden", at: loc)
            }
        }
        var rule: RuleExpression?
        var children: [Component] = []
        if stop == nil {
            if let r = s.rule { rule = RuleExpression.parse(.at(pos, r), file: loc.file, diagnostics: &made.diagnostics) }
            var j = 0
            for case .created(let child) in s.children {
                children.append(makeCreated(child, path: "\(path)/ui[\(j)]", depth: depth + 1, builder: builder, made: &made, ctx: ctx))
                j += 1
            }
        }
        let component = Component(
            type: s.type, typeLocation: loc, id: s.id, idLocation: s.id == nil ? nil : loc, meta: s.meta.map { .at(pos, $0) },
            children: children, rule: rule, hasRule: s.rule != nil, items: [], hasItems: false, layout: nil, header: nil,
            footer: nil, title: nil, action: s.action, actionLocation: s.action == nil ? nil : loc,
            style: s.style.map { .at(pos, $0) }, location: loc, path: path, serial: serial,
            constraints: s.constraints.map { .at(pos, $0) }, creation: Creation(depth: depth, builder: builder, shared: made.shared))
        if let stop { made.invalid[serial] = stop }
        return component
    }
}

/// What making one created node (and what it holds) found.
struct MadeNodes {
    /// Kept by the resolution cache (the same object every resolution).
    var shared: Bool
    var size = 0
    var diagnostics = Diagnostics()
    var invalid: [Int: String] = [:]
    var undeclaredMeta: [Int: JSONValue] = [:]
    /// The count bound hid part of it: it depends on this resolution, so it is not kept.
    var counted = false
}

/// A created node the resolution cache keeps: by the component whose builder created it, its
/// place among what that builder created, and what the `ui.*` call wrote.
struct CreatedKey: Hashable {
    var parent: ObjectIdentifier
    var index: Int
    var node: CreatedNode
}

struct CreatedEntry {
    var component: Component
    var size: Int
    var diagnostics: Diagnostics
    var invalid: [Int: String]
    var undeclaredMeta: [Int: JSONValue]

    /// Its diagnostics and checks, for this resolution.
    func report(into ctx: ResolutionContext) {
        ctx.diagnostics.append(contentsOf: diagnostics)
        for (serial, why) in invalid { ctx.created.invalid[serial] = why }
        for (serial, extra) in undeclaredMeta { ctx.created.undeclaredMeta[serial] = extra }
    }
}

extension ResolvedNode {
    /// True for a node a builder created with `ui.*` (its path ends in `ui[k]`; a screen file's
    /// paths never do).
    public var isCreated: Bool {
        guard let slash = path.lastIndex(of: "/") else { return false }
        return path[path.index(after: slash)...].hasPrefix("ui[")
    }
}
