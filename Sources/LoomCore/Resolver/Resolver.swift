import OrderedCollections

/// Resolves a screen for one user: evaluates rules (AND / OR short-circuit left to right),
/// drops what is hidden, builds what is visible bottom-up. Fails closed: a component whose
/// type, meta, rule or builder cannot be resolved is not shown, and the reason is reported.
public struct Resolver {
    public let factory: Factory
    public let screen: Screen
    public let check: ScreenCheck
    /// Resolved single components and items of this screen, reused across resolutions
    /// (builders are deterministic and these see only their own node). One per screen and
    /// factory; nil disables it.
    public let cache: ResolutionCache?
    /// Set on the resolver of the copy of the screen a client receives (`ClientVariant`), with
    /// how diagnostics name that client.
    var clientVariant: ClientVariant?
    var clientLabel = ""
    /// The types that client renders (for nodes builders create, not in the copy).
    var clientSupported: Set<String> = []

    public init(factory: Factory, screen: Screen, check: ScreenCheck, cache: ResolutionCache? = nil) {
        self.factory = factory
        self.screen = screen
        self.check = check
        self.cache = cache
    }

    /// With clients.json (`factory.clients`), the resolver of the screen the user's client
    /// receives (its copy of the screen, `ClientVariant`, with the client's caches): nil without
    /// a clients.json or when applied already. An unknown client is warned about here, once per
    /// resolution.
    func clientResolver(for user: UserProfile, ctx: ResolutionContext) -> Resolver? {
        guard let clients = factory.clients, !ctx.log.clientsApplied else { return nil }
        ctx.log.clientsApplied = true
        let cls = clients.classify(user)
        if let w = Resolver.unknownClientWarning(clients, cls) { ctx.diagnostics.append(w) }
        return clientResolver(clients, cls)
    }

    /// The resolver of the copy of the screen a client receives (as `clientResolver(for:ctx:)`
    /// gives it to a user of that client): `index` an entry of clients.json, nil the unknown
    /// client. Nil without a clients.json. For callers that key work by client (`host eval`'s
    /// plans run this resolver's rule program for the users of that client).
    public func clientResolver(index: Int?) -> Resolver? {
        guard let clients = factory.clients else { return nil }
        return clientResolver(clients, ClientTable.Classification(index: index.flatMap { clients.clients.indices.contains($0) ? $0 : nil }))
    }

    /// The warning a resolution for an unknown client starts with (nil for a known client).
    public static func unknownClientWarning(_ clients: ClientTable, _ cls: ClientTable.Classification) -> Diagnostic? {
        guard cls.index == nil else { return nil }
        return .warning(
            "unknown client: \(cls.why ?? "no range holds the user's version"); only the \(clients.common.count) component types every client of clients.json renders are shown",
            at: clients.versionAttributeLocation)
    }

    private func clientResolver(_ clients: ClientTable, _ cls: ClientTable.Classification) -> Resolver {
        let label: String
        if let i = cls.index {
            label = "the user's client (clients[\(i)], \(TextEscape.escaped(clients.clients[i].range.text)))"
        } else {
            label = "an unknown client"
        }
        // Each client has its own copy and caches, even when the copy is the screen as it is:
        // nodes a builder creates are checked against the client as they are made, so a tree
        // kept for one client is not another's.
        let supported = clients.components(cls)
        func make() -> ClientVariant {
            ClientVariant.make(screen, supported: supported) ?? ClientVariant(screen: screen, removed: [:], replaced: [:])
        }
        let made: (variant: ClientVariant, cache: ResolutionCache?)
        if let cache { made = cache.clientVariant(cls.index ?? -1, make: make) } else { made = (make(), nil) }
        let v = made.variant
        var r = Resolver(factory: factory, screen: v.screen, check: check, cache: made.cache)
        r.clientVariant = v
        r.clientLabel = label
        r.clientSupported = supported
        return r
    }

    public func resolve(
        for user: UserProfile, explain: Bool = false, context: ResolutionContext? = nil, params: [String: String] = [:]
    ) -> Resolution {
        let ctx = context ?? ResolutionContext(user: user, screenID: screen.id, explain: explain, params: params)
        if let r = clientResolver(for: user, ctx: ctx) { return r.resolve(for: user, context: ctx) }
        // What builders made and which trees the rules chose depend on the parameters too: each
        // set of parameters has caches of its own.
        if let cache, !ctx.params.isEmpty {
            let scoped = cache.scoped(to: ctx.params)
            if scoped !== cache {
                var r = Resolver(factory: factory, screen: screen, check: check, cache: scoped)
                r.clientVariant = clientVariant
                r.clientLabel = clientLabel
                r.clientSupported = clientSupported
                return r.resolve(for: user, context: ctx)
            }
        }
        guard !ctx.explain, let cache else {
            let tree = resolve(screen.root, parentMeta: nil, ctx: ctx)
            ctx.reportNotCalledAgain()
            return Resolution(
                screen: screen.id, user: user, tree: tree, diagnostics: ctx.diagnostics, evaluatedCreatedRules: ctx.created.evaluatedRule)
        }
        // Builders are deterministic and see no user: the tree depends on the rules' outcomes
        // only. Evaluate every rule that would be reached (same order, same short-circuits, same
        // diagnostics), then reuse the tree of an earlier resolution with the same outcomes, or
        // build it replaying those outcomes.
        let leaves = cache.ruleProgram(self).outcomes(ctx)
        ctx.reportNotCalledAgain()
        return resolveCached(user: user, ctx: ctx, cache: cache, leaves: leaves)
    }

    /// `resolve` with the rule program's outcomes already known (`ruleProgram` run by the
    /// caller for this user and context: each reached leaf's value, 0 or 1, in order; no rule
    /// failed): the rules are not called again, the tree is the one those outcomes choose. Without
    /// a cache, with parameters or `explain`, it resolves as `resolve` does. `keepTree` false: a
    /// tree built here is not added to the cache's trees (a caller keeping its own answer by
    /// outcomes, like `host eval`'s, would only churn that bounded table).
    public func resolve(for user: UserProfile, context ctx: ResolutionContext, replaying leaves: [UInt8], keepTree: Bool = true) -> Resolution {
        // The outcomes are those of this screen's rule program: a client's copy of the screen
        // has a program of its own, run there.
        if let r = clientResolver(for: user, ctx: ctx) { return r.resolve(for: user, context: ctx) }
        guard let cache, ctx.params.isEmpty, !ctx.explain else { return resolve(for: user, context: ctx) }
        return resolveCached(user: user, ctx: ctx, cache: cache, leaves: leaves, keepTree: keepTree)
    }

    /// `resolve(for:context:replaying:keepTree:)` where `leaves` are the outcomes of the rule
    /// program of the user's client's copy of the screen (`clientResolver(index:).ruleProgram`,
    /// the client being the one clients.json gives the user): the client is applied as `resolve`
    /// applies it (an unknown client's warning first), then those outcomes replayed there.
    /// Without a clients.json, the same as `resolve(for:context:replaying:keepTree:)`.
    public func resolve(for user: UserProfile, context ctx: ResolutionContext, replayingClientProgram leaves: [UInt8], keepTree: Bool = true) -> Resolution {
        guard let r = clientResolver(for: user, ctx: ctx) else { return resolve(for: user, context: ctx, replaying: leaves, keepTree: keepTree) }
        return r.resolve(for: user, context: ctx, replaying: leaves, keepTree: keepTree)
    }

    private func resolveCached(user: UserProfile, ctx: ResolutionContext, cache: ResolutionCache, leaves: [UInt8], keepTree: Bool = true) -> Resolution {
        let key = OutcomeKey(leaves: leaves)
        if let hit = cache.trees.get(key) {
            ctx.diagnostics.append(contentsOf: hit.diagnostics)
            return Resolution(screen: screen.id, user: user, tree: hit.tree, diagnostics: ctx.diagnostics)
        }
        if let hit = reusedCreatedTree(key, cache: cache, ctx: ctx) {
            ctx.diagnostics.append(contentsOf: hit.diagnostics)
            return Resolution(screen: screen.id, user: user, tree: hit.tree, diagnostics: ctx.diagnostics, evaluatedCreatedRules: true)
        }
        ctx.replayLeaves = leaves
        ctx.replayIndex = 0
        let before = ctx.diagnostics.count
        let tree = resolve(screen.root, parentMeta: nil, ctx: ctx)
        ctx.replayLeaves = nil
        ctx.reportNotCalledAgain()
        // A tree holding created nodes with rules depends on their outcomes too: kept with those
        // outcomes, reused only when they come out the same (see `reusedCreatedTree`).
        if !ctx.created.evaluatedRule {
            if keepTree { cache.store(key, tree: tree, diagnostics: Array(ctx.diagnostics.items[before...])) }
        } else if !ctx.created.failedRule {
            cache.storeCreatedTree(key, CreatedTree(
                checks: ctx.created.trail, tree: tree, diagnostics: Array(ctx.diagnostics.items[before...])))
        }
        return Resolution(
            screen: screen.id, user: user, tree: tree, diagnostics: ctx.diagnostics, evaluatedCreatedRules: ctx.created.evaluatedRule)
    }

    @inline(__always)
    func isInvalid(_ serial: Int) -> Bool {
        check.invalid.isEmpty ? false : check.invalid[serial] != nil
    }

    /// The registration of a component's type (looked up once per component with a cache).
    @inline(__always)
    func registration(_ c: Component) -> ComponentRegistration? {
        guard let cache, c.creation == nil else { return factory.componentRegistration(c.type) }
        return cache.registration(c, serials: screen.serialCount, factory: factory)
    }

    /// A rule guarding a component or item: evaluated, or replayed from the rule program's outcomes.
    func reached(_ rule: RuleExpression, subject: RuleSubject, ctx: ResolutionContext) -> RuleTrace {
        // A created node's rule is not in the rule program: always evaluated.
        if case .component(let c) = subject, c.creation != nil {
            ctx.created.evaluatedRule = true
            var live = LiveRuleWalk(factory: factory, subject: subject, ctx: ctx)
            let trace = RuleEvaluator.run(rule, &live)
            ctx.created.trail.append(CreatedRuleCheck(rule: rule, subject: c, trace: trace))
            if trace.value == nil { ctx.created.failedRule = true }
            return trace
        }
        if let leaves = ctx.replayLeaves {
            var replay = ReplayRuleWalk(leaves: leaves, cursor: ctx.replayIndex)
            let trace = RuleEvaluator.run(rule, &replay)
            ctx.replayIndex = replay.cursor
            return trace
        }
        var live = LiveRuleWalk(factory: factory, subject: subject, ctx: ctx)
        return RuleEvaluator.run(rule, &live)
    }

    // MARK: Components

    func hiddenNode(_ c: Component, reason: @autoclosure () -> String, rule: RuleTrace?, ctx: ResolutionContext) -> ResolvedNode? {
        guard ctx.explain else { return nil }
        var n = ResolvedNode(
            type: c.type, id: c.id, view: "", props: .object([:]), children: [], items: nil, action: c.action,
            actionLocation: c.actionLocation, meta: c.metaValue, path: c.path, location: c.location, serial: c.serial)
        n.hidden = true
        n.hiddenReason = reason()
        n.rule = rule
        return n
    }

    func resolve(_ c: Component, parentMeta: MetaSchema?, ctx: ResolutionContext) -> ResolvedNode? {
        if let why = invalidReason(c, ctx: ctx) { return hiddenNode(c, reason: why, rule: nil, ctx: ctx) }
        var trace: RuleTrace?
        if let rule = c.rule {
            let t = reached(rule, subject: .component(c), ctx: ctx)
            trace = t
            if t.value != true {
                return hiddenNode(
                    c, reason: t.value == false ? "rule \(rule.text) is false" : "rule \(rule.text) failed: \(t.error ?? "error")",
                    rule: t, ctx: ctx)
            }
        }
        if let v = clientVariant {
            if let u = v.removed[c.serial] {
                ctx.diagnostics.append(.unsupported(u, client: clientLabel))
                return hiddenNode(c, reason: "\(clientLabel) cannot render '\(c.type)'", rule: trace, ctx: ctx)
            }
            if let u = v.replaced[c.serial] { ctx.diagnostics.append(.unsupported(u, client: clientLabel)) }
            // A node a builder created (`ui.*`) has no fallback: one the client cannot render is removed.
            if c.creation != nil, !clientSupported.contains(c.type) {
                let u = UnsupportedNode(type: c.type, id: c.id, path: c.path, location: c.location, fallback: nil, dropped: false)
                ctx.diagnostics.append(.unsupported(u, client: clientLabel))
                return hiddenNode(c, reason: "\(clientLabel) cannot render '\(c.type)'", rule: trace, ctx: ctx)
            }
        }
        let isSpotsRoot = c.type == ScreenParser.spotsRootType && c.path == "components"
        let reg = isSpotsRoot ? nil : registration(c)
        if !isSpotsRoot && reg == nil { return hiddenNode(c, reason: "type '\(c.type)' is not registered", rule: trace, ctx: ctx) }
        // The style (its diagnostics reported each resolution; values memoized by the workspace).
        var nodeStyle: NodeStyle?
        if let styleFor = ctx.styleFor, let st = styleFor(c, reg, ctx) {
            nodeStyle = st
            ctx.nodeStyles[c.serial] = st
        }
        if reg?.kind == .single, c.isLasting, let cached = cache?.singles[c.serial] {
            var n = cached
            n.rule = trace
            return n
        }
        var boundMeta: JSONValue?
        if let meta = c.meta, hasParamBindings(c) {
            let (value, missing) = ParamBinding.substitute(meta, params: ctx.params)
            if !missing.isEmpty {
                reportMissing(missing, in: c, ctx: ctx)
                return hiddenNode(c, reason: "its meta needs param '\(missing[0].name)', which this resolution lacks", rule: trace, ctx: ctx)
            }
            boundMeta = value
            ctx.boundMeta[c.serial] = value
        }

        // Without --explain nothing hidden is returned, so one array serves (no copies).
        var children: [ResolvedNode] = []
        var shown: [ResolvedNode] = []
        children.reserveCapacity(c.children.count)
        for child in c.children {
            if let n = resolve(child, parentMeta: reg?.childMeta, ctx: ctx) {
                if ctx.explain {
                    children.append(n)
                    if !n.hidden { shown.append(n) }
                } else {
                    shown.append(n)
                }
            }
        }
        var items: [ResolvedItem] = []
        var shownItems: [ResolvedItem] = []
        var header: ResolvedNode?
        var footer: ResolvedNode?
        if reg?.kind == .collection {
            header = c.header.flatMap { resolvePart($0, collection: reg!, ctx: ctx) }
            shownItems.reserveCapacity(c.items.count)
            for item in c.items {
                if let ri = resolveItem(item, collection: reg!, ctx: ctx) {
                    if ctx.explain {
                        items.append(ri)
                        if !ri.hidden { shownItems.append(ri) }
                    } else {
                        shownItems.append(ri)
                    }
                }
            }
            footer = c.footer.flatMap { resolvePart($0, collection: reg!, ctx: ctx) }
        }
        if reg?.kind == .wrapper && shown.count != 1 {
            var n = hiddenNode(c, reason: "its only child is hidden", rule: trace, ctx: ctx)
            n?.children = children
            return n
        }
        let output: BuildOutput
        if let reg {
            let request = BuildRequest(
                component: c, children: shown, items: shownItems, context: ctx,
                header: header?.hidden == true ? nil : header, footer: footer?.hidden == true ? nil : footer)
            switch reg.builder.build(request) {
            case .success(let o): output = o
            case .failure(let f):
                if f.notCalledAgain {
                    ctx.countNotCalledAgain("the builder of '\(c.type)' (plugin \(reg.plugin.name))", at: c.location)
                } else {
                    let at = f.scriptLocation.map { " (\($0))" } ?? ""
                    ctx.diagnostics.error("builder of '\(c.type)' (plugin \(reg.plugin.name))\(at) failed: \(f.message); the component is hidden", at: c.location)
                }
                return hiddenNode(c, reason: "its builder failed: \(f.message)", rule: trace, ctx: ctx)
            }
        } else {
            output = BuildOutput(view: "Screen", props: .object([:]))
        }
        var finalChildren: [ResolvedNode]
        if let built = output.children {
            finalChildren = resolveBuilt(built, parent: c, registration: reg, shown: shown, ctx: ctx)
            if ctx.explain {
                // Children the builder dropped stay visible as hidden, with why.
                let kept = Set(finalChildren.map(\.serial))
                for var s in shown where !kept.contains(s.serial) {
                    s.hidden = true
                    s.hiddenReason = "the builder of '\(c.type)' left it out"
                    finalChildren.append(s)
                }
            }
        } else {
            finalChildren = ctx.explain ? children : shown
        }
        var node = ResolvedNode(
            type: c.type, id: c.id, view: output.view, props: output.props, children: finalChildren,
            items: reg?.kind == .collection ? (ctx.explain ? items : shownItems) : nil, action: c.action,
            actionLocation: c.actionLocation, meta: boundMeta ?? c.metaValue, path: c.path, location: c.location, serial: c.serial,
            origin: c, header: header, footer: footer, style: c.style?.plain,
            extraMeta: extraMeta(c, ctx: ctx), resolvedStyle: nodeStyle)
        // A single that created children is not reused whole: what they show depends on their
        // rules, evaluated per resolution (its builder's output stays cached by the engine).
        if reg?.kind == .single, c.isLasting, output.children == nil, let cache { cache.singles[c.serial] = node }
        node.rule = trace
        return node
    }

    /// A collection's header or footer: a component, or an item as Spots reads it (built by its
    /// item view, shown as an item in the header's place: `ResolvedNode.asItem`).
    func resolvePart(_ part: Component, collection: ComponentRegistration, ctx: ResolutionContext) -> ResolvedNode? {
        guard let item = part.readsAsItem(factory) else { return resolve(part, parentMeta: nil, ctx: ctx) }
        guard let ri = resolveItem(item, collection: collection, ctx: ctx) else { return nil }
        var n = ResolvedNode(
            type: ri.kind ?? "item", id: ri.id, view: ri.view, props: ri.props, children: [], items: nil, action: ri.action,
            actionLocation: ri.actionLocation, meta: item.meta?.plain, path: ri.path, location: ri.location, serial: part.serial,
            origin: part, asItem: ri)
        n.hidden = ri.hidden
        n.hiddenReason = ri.hiddenReason
        n.rule = ri.rule
        return n
    }

    func resolveItem(_ item: Item, collection: ComponentRegistration, ctx: ResolutionContext) -> ResolvedItem? {
        func hidden(_ reason: @autoclosure () -> String, _ t: RuleTrace?) -> ResolvedItem? {
            guard ctx.explain else { return nil }
            var r = ResolvedItem(
                kind: item.kind, id: item.id, title: item.title, view: "", props: .object([:]), action: item.action,
                actionLocation: item.actionLocation, children: [], path: item.path, location: item.location)
            r.hidden = true
            r.hiddenReason = reason()
            r.rule = t
            return r
        }
        if let why = check.invalid[item.serial] { return hidden(why, nil) }
        var trace: RuleTrace?
        if let rule = item.rule {
            let t = reached(rule, subject: .item(item), ctx: ctx)
            trace = t
            if t.value != true {
                return hidden(t.value == false ? "rule \(rule.text) is false" : "rule \(rule.text) failed: \(t.error ?? "error")", t)
            }
        }
        if item.children.isEmpty, let cached = cache?.items[item.serial] {
            var r = cached
            r.rule = trace
            return r
        }
        let view: String
        let props: JSONValue
        if let kind = item.kind, let reg = factory.items[kind] {
            switch reg.builder.build(item, context: ctx) {
            case .success(let o):
                view = o.view
                props = o.props
            case .failure(let f):
                if f.notCalledAgain {
                    ctx.countNotCalledAgain("the item view '\(kind)' (plugin \(reg.plugin.name))", at: item.location)
                } else {
                    let at = f.scriptLocation.map { " (\($0))" } ?? ""
                    ctx.diagnostics.error("item view '\(kind)' (plugin \(reg.plugin.name))\(at) failed: \(f.message); the item is hidden", at: item.location)
                }
                return hidden("its item view failed: \(f.message)", trace)
            }
        } else {
            view = collection.itemView
            props = item.defaultProps
        }
        var children: [ResolvedNode] = []
        for c in item.children {
            if let n = resolve(c, parentMeta: nil, ctx: ctx) { children.append(n) }
        }
        var r = ResolvedItem(
            kind: item.kind, id: item.id, title: item.title, view: view, props: props, action: item.action,
            actionLocation: item.actionLocation, children: children, path: item.path, location: item.location,
            origin: item, size: item.size?.plain)
        if item.children.isEmpty, let cache { cache.items[item.serial] = r }
        r.rule = trace
        return r
    }

}
