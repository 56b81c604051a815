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
    /// screen's rule plan (such a tree is not reused by outcome).
    var evaluatedRule = false
}

extension Resolver {
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
                let made = makeCreated(spec, path: "\(c.path)/ui[\(k)]", depth: (c.creation?.depth ?? 0) + 1, builder: c.type, ctx: ctx)
                k += 1
                let found = ScreenChecker.check(created: made, parent: reg, factory: factory)
                ctx.diagnostics.append(contentsOf: found.diagnostics)
                for (serial, why) in found.invalid where ctx.created.invalid[serial] == nil { ctx.created.invalid[serial] = why }
                for (serial, extra) in found.undeclaredMeta { ctx.created.undeclaredMeta[serial] = extra }
                if let n = resolve(made, parentMeta: reg?.childMeta, ctx: ctx) { out.append(n) }
            }
        }
        return out
    }

    /// A created node as a component (and what it holds), located at its `ui.*` call. Past the
    /// depth or count bound it is made without its children and marked invalid (hidden, with
    /// a located error).
    func makeCreated(_ s: CreatedNode, path: String, depth: Int, builder: String, ctx: ResolutionContext) -> Component {
        if ctx.created.nextSerial < 0 { ctx.created.nextSerial = screen.serialCount }
        let serial = ctx.created.nextSerial
        ctx.created.nextSerial += 1
        ctx.created.count += 1
        let loc = s.location
        let pos = SourcePosition(line: loc.line, column: loc.column)
        var stop: String?
        if depth > CreatedNodeLimits.maxDepth {
            stop = "created nodes nest more than \(CreatedNodeLimits.maxDepth) levels deep"
            ctx.diagnostics.error(
                "'\(s.type)' created by the builder of '\(builder)' at \(path) nests more than \(CreatedNodeLimits.maxDepth) levels of "
                    + "created nodes (a builder that creates its own type without end?); it is hidden with what it holds", at: loc)
        } else if ctx.created.count > CreatedNodeLimits.maxCount {
            stop = "more than \(CreatedNodeLimits.maxCount) nodes were created in this resolution"
            if !ctx.created.reportedCount {
                ctx.created.reportedCount = true
                ctx.diagnostics.error(
                    "builders created more than \(CreatedNodeLimits.maxCount) nodes in this resolution; '\(s.type)' at \(path) "
                        + "and every node created after it are hidden", at: loc)
            }
        }
        var rule: RuleExpression?
        var children: [Component] = []
        if stop == nil {
            if let r = s.rule {
                var d = Diagnostics()
                rule = RuleExpression.parse(.at(pos, r), file: loc.file, diagnostics: &d)
                ctx.diagnostics.append(contentsOf: d)
            }
            var j = 0
            for case .created(let child) in s.children {
                children.append(makeCreated(child, path: "\(path)/ui[\(j)]", depth: depth + 1, builder: builder, ctx: ctx))
                j += 1
            }
        }
        let made = Component(
            type: s.type, typeLocation: loc, id: s.id, idLocation: s.id == nil ? nil : loc, meta: s.meta.map { .at(pos, $0) },
            children: children, rule: rule, hasRule: s.rule != nil, items: [], hasItems: false, layout: nil, header: nil,
            footer: nil, title: nil, action: s.action, actionLocation: s.action == nil ? nil : loc,
            style: s.style.map { .at(pos, $0) }, location: loc, path: path, serial: serial,
            constraints: s.constraints.map { .at(pos, $0) }, creation: Creation(depth: depth, builder: builder))
        if let stop { ctx.created.invalid[serial] = stop }
        return made
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
