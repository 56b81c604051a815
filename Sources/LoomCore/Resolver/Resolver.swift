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

    public init(factory: Factory, screen: Screen, check: ScreenCheck, cache: ResolutionCache? = nil) {
        self.factory = factory
        self.screen = screen
        self.check = check
        self.cache = cache
    }

    public func resolve(for user: UserProfile, explain: Bool = false, context: ResolutionContext? = nil) -> Resolution {
        let ctx = context ?? ResolutionContext(user: user, screenID: screen.id, explain: explain)
        guard !ctx.explain, let cache else {
            let tree = resolve(screen.root, parentMeta: nil, ctx: ctx)
            ctx.reportNotCalledAgain()
            return Resolution(screen: screen.id, user: user, tree: tree, diagnostics: ctx.diagnostics)
        }
        // Builders are deterministic and see no user: the tree depends on the rules' outcomes
        // only. Evaluate every rule that would be reached (same order, same short-circuits, same
        // diagnostics), then reuse the tree of an earlier resolution with the same outcomes, or
        // build it replaying those outcomes.
        let leaves = runRulePlan(cache.rulePlan(self), ctx: ctx)
        ctx.reportNotCalledAgain()
        let key = OutcomeKey(leaves: leaves)
        if let hit = cache.trees[key] {
            ctx.diagnostics.append(contentsOf: hit.diagnostics)
            return Resolution(screen: screen.id, user: user, tree: hit.tree, diagnostics: ctx.diagnostics)
        }
        ctx.replayLeaves = leaves
        ctx.replayIndex = 0
        let before = ctx.diagnostics.count
        let tree = resolve(screen.root, parentMeta: nil, ctx: ctx)
        ctx.replayLeaves = nil
        ctx.reportNotCalledAgain()
        cache.store(key, tree: tree, diagnostics: Array(ctx.diagnostics.items[before...]))
        return Resolution(screen: screen.id, user: user, tree: tree, diagnostics: ctx.diagnostics)
    }

    /// Evaluates the rules a resolution reaches, in the order it reaches them, without building:
    /// a rule that is not true skips the rules of what it guards.
    func runRulePlan(_ plan: [RulePlanStep], ctx: ResolutionContext) -> [UInt8] {
        var leaves: [UInt8] = []
        leaves.reserveCapacity(plan.count + 16)
        plan.withUnsafeBufferPointer { steps in
            var i = 0
            while i < steps.count {
                let v = outcome(steps[i].rule, subject: steps[i].subject, ctx: ctx, into: &leaves)
                i = v == true ? i + 1 : steps[i].skip
            }
        }
        return leaves
    }

    /// Evaluates a rule as `evaluate` does (short-circuit, fail closed, diagnostics), recording
    /// only its leaves' outcomes (0 false, 1 true, 2 failed) in evaluation order.
    func outcome(_ rule: CompiledRule, subject: RuleSubject, ctx: ResolutionContext, into leaves: inout [UInt8]) -> Bool? {
        switch rule.op {
        case .leaf:
            guard let evaluator = rule.evaluator else {
                leaves.append(2)
                return nil
            }
            ctx.pluginCalls += 1  // a rule evaluation is always a plugin call (never cached)
            switch evaluator.evaluate(args: rule.args, at: rule.location, subject: subject, context: ctx) {
            case .success(let v):
                leaves.append(v ? 1 : 0)
                return v
            case .failure(let f):
                leaves.append(2)
                reportRuleFailure(f, name: rule.name, plugin: rule.plugin, subject: subject, at: rule.location, ctx: ctx)
                return nil
            }
        case .and, .or:
            let isAnd = rule.op == .and
            var decided: Bool?
            var failed = false
            for r in rule.children {
                if decided != nil { break }
                guard let v = outcome(r, subject: subject, ctx: ctx, into: &leaves) else {
                    failed = true
                    decided = false
                    continue
                }
                if isAnd && !v { decided = false }
                if !isAnd && v { decided = true }
            }
            return failed ? nil : (decided ?? isAnd)
        case .not:
            return outcome(rule.children[0], subject: subject, ctx: ctx, into: &leaves).map { !$0 }
        }
    }

    /// The trace `evaluate` would have made, rebuilt from recorded leaf outcomes (no plugin call).
    func replayTrace(_ rule: RuleExpression, _ leaves: [UInt8], _ cursor: inout Int) -> RuleTrace {
        switch rule {
        case .rule(_, _, let loc):
            let code = cursor < leaves.count ? leaves[cursor] : 2
            cursor += 1
            return RuleTrace(expression: "", value: code == 2 ? nil : code == 1, error: code == 2 ? "failed" : nil,
                             skipped: false, children: [], location: loc)
        case .and(let rs, let loc), .or(let rs, let loc):
            let isAnd: Bool
            if case .and = rule { isAnd = true } else { isAnd = false }
            var trace = RuleTrace(expression: "", value: nil, error: nil, skipped: false, children: [], location: loc)
            var decided: Bool?
            var failed = false
            for r in rs {
                if decided != nil {
                    trace.children.append(RuleTrace(expression: "", value: nil, error: nil, skipped: true, children: [], location: r.location))
                    continue
                }
                let t = replayTrace(r, leaves, &cursor)
                trace.children.append(t)
                guard let v = t.value else {
                    failed = true
                    decided = false
                    continue
                }
                if isAnd && !v { decided = false }
                if !isAnd && v { decided = true }
            }
            if failed { trace.error = "a sub-rule failed" } else { trace.value = decided ?? isAnd }
            return trace
        case .not(let r, let loc):
            let t = replayTrace(r, leaves, &cursor)
            var trace = RuleTrace(expression: "", value: t.value.map { !$0 }, error: nil, skipped: false, children: [t], location: loc)
            if t.value == nil { trace.error = "its rule failed" }
            return trace
        }
    }

    /// The rule plan of this screen: every rule a resolution may reach, in the order it reaches
    /// them (the same walk as `resolve`), each with where to go on when it is not true.
    func makeRulePlan() -> [RulePlanStep] {
        var plan: [RulePlanStep] = []
        func component(_ c: Component) {
            if isInvalid(c.serial) { return }
            let isSpotsRoot = c.type == ScreenParser.spotsRootType && c.path == "components"
            let reg = isSpotsRoot ? nil : factory.componentRegistration(c.type)
            var at: Int?
            if let rule = c.rule {
                at = plan.count
                plan.append(RulePlanStep(rule: CompiledRule(rule, factory: factory), subject: .component(c), skip: 0))
            }
            if isSpotsRoot || reg != nil {
                for child in c.children { component(child) }
                if reg?.kind == .collection {
                    for item in c.items where !isInvalid(item.serial) {
                        var itemAt: Int?
                        if let rule = item.rule {
                            itemAt = plan.count
                            plan.append(RulePlanStep(rule: CompiledRule(rule, factory: factory), subject: .item(item), skip: 0))
                        }
                        for child in item.children { component(child) }
                        if let itemAt { plan[itemAt].skip = plan.count }
                    }
                }
            }
            if let at { plan[at].skip = plan.count }
        }
        component(screen.root)
        return plan
    }

    @inline(__always)
    func isInvalid(_ serial: Int) -> Bool {
        check.invalid.isEmpty ? false : check.invalid[serial] != nil
    }

    /// The registration of a component's type (looked up once per component with a cache).
    @inline(__always)
    func registration(_ c: Component) -> ComponentRegistration? {
        guard let cache else { return factory.componentRegistration(c.type) }
        return cache.registration(c, serials: screen.serialCount, factory: factory)
    }

    /// A rule guarding a component or item: evaluated, or replayed from the rule walk.
    func reached(_ rule: RuleExpression, subject: RuleSubject, ctx: ResolutionContext) -> RuleTrace {
        if let leaves = ctx.replayLeaves {
            return replayTrace(rule, leaves, &ctx.replayIndex)
        }
        return evaluate(rule, subject: subject, ctx: ctx)
    }

    // MARK: Rules

    func evaluate(_ rule: RuleExpression, subject: RuleSubject, ctx: ResolutionContext) -> RuleTrace {
        switch rule {
        case .rule(let name, let args, let loc):
            var trace = RuleTrace(expression: ctx.explain ? rule.text : "", value: nil, error: nil, skipped: false, children: [], location: loc)
            guard let reg = factory.rules[name] else {
                trace.error = "rule '\(name)' is not registered"
                return trace
            }
            ctx.pluginCalls += 1  // a rule evaluation is always a plugin call (never cached)
            switch reg.evaluator.evaluate(args: args, at: loc, subject: subject, context: ctx) {
            case .success(let v): trace.value = v
            case .failure(let f):
                trace.error = f.message
                reportRuleFailure(f, name: name, plugin: reg.plugin.name, subject: subject, at: loc, ctx: ctx)
            }
            return trace
        case .and(let rs, let loc), .or(let rs, let loc):
            let isAnd: Bool
            if case .and = rule { isAnd = true } else { isAnd = false }
            var trace = RuleTrace(expression: ctx.explain ? rule.text : "", value: nil, error: nil, skipped: false, children: [], location: loc)
            var decided: Bool?
            var failed = false
            for r in rs {
                if decided != nil {
                    trace.children.append(RuleTrace(expression: ctx.explain ? r.text : "", value: nil, error: nil, skipped: true, children: [], location: r.location))
                    continue
                }
                let t = evaluate(r, subject: subject, ctx: ctx)
                trace.children.append(t)
                guard let v = t.value else {
                    // An error fails the whole expression closed.
                    failed = true
                    decided = false
                    continue
                }
                if isAnd && !v { decided = false }
                if !isAnd && v { decided = true }
            }
            if failed {
                trace.error = "a sub-rule failed"
            } else {
                trace.value = decided ?? isAnd
            }
            return trace
        case .not(let r, let loc):
            let t = evaluate(r, subject: subject, ctx: ctx)
            var trace = RuleTrace(expression: ctx.explain ? rule.text : "", value: t.value.map { !$0 }, error: nil, skipped: false, children: [t], location: loc)
            if t.value == nil { trace.error = "its rule failed" }
            return trace
        }
    }

    /// A failed rule's diagnostic; a rule not called again after exceeding a limit is counted
    /// and reported once, at the end of the resolution.
    func reportRuleFailure(_ f: BuildFailure, name: String, plugin: String, subject: RuleSubject, at loc: SourceLocation, ctx: ResolutionContext) {
        if f.notCalledAgain {
            ctx.countNotCalledAgain("rule '\(name)' of plugin \(plugin)", at: loc)
            return
        }
        let at = f.scriptLocation.map { " (\($0))" } ?? ""
        ctx.diagnostics.error("rule '\(name)' of plugin \(plugin) failed\(at): \(f.message); the \(subjectLabel(subject)) it guards is hidden", at: loc)
    }

    func subjectLabel(_ s: RuleSubject) -> String {
        switch s {
        case .component(let c): return "component '\(c.type)'" + (c.id.map { " '\($0)'" } ?? "")
        case .item(let i): return "item" + (i.title.map { " '\($0)'" } ?? "")
        }
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
        if let why = check.invalid[c.serial] { return hiddenNode(c, reason: why, rule: nil, ctx: ctx) }
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
        let isSpotsRoot = c.type == ScreenParser.spotsRootType && c.path == "components"
        let reg = isSpotsRoot ? nil : registration(c)
        if !isSpotsRoot && reg == nil { return hiddenNode(c, reason: "type '\(c.type)' is not registered", rule: trace, ctx: ctx) }
        if reg?.kind == .single, let cached = cache?.singles[c.serial] {
            var n = cached
            n.rule = trace
            return n
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
        if reg?.kind == .collection {
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
        }
        if reg?.kind == .wrapper && shown.count != 1 {
            var n = hiddenNode(c, reason: "its only child is hidden", rule: trace, ctx: ctx)
            n?.children = children
            return n
        }
        let output: BuildOutput
        if let reg {
            switch reg.builder.build(BuildRequest(component: c, children: shown, items: shownItems, context: ctx)) {
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
        if let order = output.childOrder {
            finalChildren = order.filter { $0 >= 0 && $0 < shown.count }.map { shown[$0] }
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
            actionLocation: c.actionLocation, meta: c.metaValue, path: c.path, location: c.location, serial: c.serial,
            origin: c)
        if reg?.kind == .single, let cache { cache.singles[c.serial] = node }
        node.rule = trace
        return node
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
            origin: item)
        if item.children.isEmpty, let cache { cache.items[item.serial] = r }
        r.rule = trace
        return r
    }

}

/// What a screen's resolutions share: the resolved single components and items (their output
/// depends on their own node only). Used from one thread, with one factory.
public final class ResolutionCache {
    @exclusivity(unchecked) var singles: [Int: ResolvedNode] = [:]
    @exclusivity(unchecked) var items: [Int: ResolvedItem] = [:]
    /// Whole trees by the outcomes of the rules that produced them (a few per screen: users of
    /// one segment share them), bounded.
    @exclusivity(unchecked) var trees: [OutcomeKey: (tree: ResolvedNode?, diagnostics: [Diagnostic])] = [:]
    public static let maxTrees = 64
    public init() {}

    /// Registrations by component serial (0: not looked up yet).
    @exclusivity(unchecked) var registrations: [ComponentRegistration?] = []
    @exclusivity(unchecked) var looked: [Bool] = []

    @inline(__always)
    func registration(_ c: Component, serials: Int, factory: Factory) -> ComponentRegistration? {
        if looked.count < serials {
            registrations = Array(repeating: nil, count: serials)
            looked = Array(repeating: false, count: serials)
        }
        if looked[c.serial] { return registrations[c.serial] }
        let r = factory.componentRegistration(c.type)
        registrations[c.serial] = r
        looked[c.serial] = true
        return r
    }

    private var plan: [RulePlanStep]?

    func rulePlan(_ resolver: Resolver) -> [RulePlanStep] {
        if let plan { return plan }
        let p = resolver.makeRulePlan()
        plan = p
        return p
    }

    func store(_ key: OutcomeKey, tree: ResolvedNode?, diagnostics: [Diagnostic]) {
        if trees.count >= ResolutionCache.maxTrees { trees.removeAll(keepingCapacity: true) }
        trees[key] = (tree, diagnostics)
    }
}

/// The outcomes of a resolution's rules: every leaf's value (true, false, failed, skipped) in
/// evaluation order.
struct OutcomeKey: Hashable {
    /// The leaves' outcomes in evaluation order: with the screen's fixed rule plan they determine
    /// which rules ran and what each returned.
    var leaves: [UInt8]
}

/// One rule of a screen's rule plan: evaluate `rule` for `subject`; when it is not true, go on at
/// `skip` (past the rules of what it guards).
struct RulePlanStep {
    var rule: CompiledRule
    var subject: RuleSubject
    var skip: Int
}

/// A rule expression with its rule registrations looked up once (for the rule plan's hot loop).
final class CompiledRule {
    enum Op { case leaf, and, or, not }
    let op: Op
    let name: String
    let evaluator: (any RuleEvaluating)?
    let plugin: String
    let args: JSONNode?
    let location: SourceLocation
    let children: [CompiledRule]

    init(_ rule: RuleExpression, factory: Factory) {
        switch rule {
        case .rule(let name, let args, let loc):
            op = .leaf
            self.name = name
            let reg = factory.rules[name]
            evaluator = reg?.evaluator
            plugin = reg?.plugin.name ?? ""
            self.args = args
            location = loc
            children = []
        case .and(let rs, let loc), .or(let rs, let loc):
            if case .and = rule { op = .and } else { op = .or }
            name = ""
            evaluator = nil
            plugin = ""
            args = nil
            location = loc
            children = rs.map { CompiledRule($0, factory: factory) }
        case .not(let r, let loc):
            op = .not
            name = ""
            evaluator = nil
            plugin = ""
            args = nil
            location = loc
            children = [CompiledRule(r, factory: factory)]
        }
    }
}
