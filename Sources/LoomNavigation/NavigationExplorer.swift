import LoomCore
/// Explores the navigation graph one user can walk: from the entry, resolve each screen (the
/// caller's `actions` closure, giving only visible actions), ask the flows where each step
/// leads, repeat to a fixed point. Each screen is resolved at most once; each (screen, flow)
/// pair is explored once; each (flow, step) is asked once. Bounded on any input.
public enum NavigationExplorer {
    /// How deep a step may be forwarded between flows (child flow steps, parent forwarding).
    public static let maxForwarding = 16

    /// - Parameters:
    ///   - screens: every screen the project defines, with its file; used for unreachable
    ///     screens and did-you-mean hints.
    ///   - actions: the visible actions of a screen for this user, or nil when the screen does
    ///     not exist.
    ///   - context: the user flows read (a Lua flow's `ctx.user`, flows.json `when`), the same
    ///     for every step: the graph is one user's, and deterministic.
    ///   - linkContext: what flows read while a deep link is opened, for the screen a step
    ///     comes from (pass `host navigate`'s, so links land where it lands); by default
    ///     `context` with that screen's parameters.
    public static func explore(
        flows: FlowSet, entry: EntryPoint, screens: [String: SourceLocation] = [:],
        context: NavigationContext = NavigationContext(),
        linkContext: ((NavigationEntry?) -> NavigationContext)? = nil,
        actions: (String) -> ScreenActions?
    ) -> NavigationGraph {
        withoutActuallyEscaping(actions) { actions in
            let run = Exploration(flows: flows, screens: screens, actions: actions)
            run.context = context
            run.linkContext = linkContext
            return run.explore(entry)
        }
    }
}

/// One exploration: the graph being built and what is left to explore.
final class Exploration {
    let flows: FlowSet
    let screens: [String: SourceLocation]
    let actions: (String) -> ScreenActions?

    var resolved: [String: ScreenActions] = [:]
    var missing: Set<String> = []
    var nodeIndex: [NodeKey: Int] = [:]
    var nodeKeys: [NodeKey] = []
    var queue: [Int] = []
    var navCache: [FlowStep: Result<[Contribution], Diagnostic>] = [:]
    var edgeIndex: [EdgeKey: Int] = [:]
    var edges: [EdgeBuild] = []
    var enterers: [String: [Enterer]] = [:]
    var entererSet: Set<[String]> = []
    var deferred: [String: [Deferred]] = [:]
    var deferredSet: Set<Deferred> = []
    var canEnd: Set<String> = []
    var findings: [NavigationGraph.Finding] = []
    var findingSet: Set<NavigationGraph.Finding> = []
    lazy var screenIds: [String] = screens.keys.sorted()
    var context = NavigationContext()
    var linkContext: ((NavigationEntry?) -> NavigationContext)?
    /// Where each declared deep link lands (set once the actions are explored).
    var landings: [Landing] = []

    init(flows: FlowSet, screens: [String: SourceLocation], actions: @escaping (String) -> ScreenActions?) {
        self.flows = flows
        self.screens = screens
        self.actions = actions
    }

    // MARK: Resolution and bookkeeping

    func resolve(_ screen: String) -> ScreenActions? {
        if let r = resolved[screen] { return r }
        if missing.contains(screen) { return nil }
        if let r = actions(screen) {
            resolved[screen] = r
            return r
        }
        missing.insert(screen)
        return nil
    }

    func node(_ key: NodeKey) -> Int {
        if let i = nodeIndex[key] { return i }
        let i = nodeKeys.count
        nodeKeys.append(key)
        nodeIndex[key] = i
        queue.append(i)
        return i
    }

    func navigate(_ flow: String, _ step: Step) -> Result<[Contribution], Diagnostic> {
        let key = FlowStep(flow: flow, step: step)
        if let r = navCache[key] { return r }
        var ctx = context
        // A step's parameter is what the screen it leads to receives; flows read the
        // parameters of the screen the step comes from, which an exploration does not track.
        ctx.params = [:]
        let r = flows[flow]!.navigator.navigate(step, context: ctx)
        navCache[key] = r
        return r
    }

    func report(_ kind: NavigationGraph.Finding.Kind, _ severity: Severity, _ message: String, at location: SourceLocation?) {
        let f = NavigationGraph.Finding(kind, severity, message, at: location)
        if findingSet.insert(f).inserted { findings.append(f) }
    }

    func screenName(_ i: Int) -> String { nodeKeys[i].screen }

    func describe(_ origin: Origin) -> String {
        "action '\(origin.site.action)' on screen '\(screenName(origin.from))'"
    }

    func addEdge(from: Int, to: Int, origin: Origin, kind: ContributionKind, flow: String?, params: [String: String] = [:]) {
        let key = EdgeKey(from: from, step: origin.step.name, to: to)
        if let i = edgeIndex[key] {
            if !origin.site.gated { edges[i].gated = false }
            // A visible action producing the edge makes it visible (journey graphs only).
            if edges[i].hiddenBy != nil, origin.site.hiddenBy == nil {
                edges[i].hiddenBy = nil
                edges[i].location = origin.site.location
                edges[i].example = origin.step.param
                edges[i].params = params
                return
            }
            if edges[i].example == nil, let p = origin.step.param {
                edges[i].example = p
                edges[i].params = params
            }
            return
        }
        edgeIndex[key] = edges.count
        edges.append(EdgeBuild(
            from: from, to: to, step: origin.step.name, kind: kind, example: origin.step.param,
            gated: origin.site.gated, flow: flow, location: origin.site.location, params: params,
            hiddenBy: origin.site.hiddenBy))
    }

    // MARK: Exploration

    func explore(_ entry: EntryPoint) -> NavigationGraph {
        var entryFlow = entry.flow
        if let f = entryFlow, flows[f] == nil {
            report(.unknownFlow, .error, "entry flow '\(f)' is not defined" + DidYouMean.hint(f, among: flows.names), at: nil)
            entryFlow = nil
        }
        if resolve(entry.screen) == nil {
            report(.unknownScreen, .error,
                "entry screen '\(entry.screen)' does not exist" + DidYouMean.hint(entry.screen, among: screenIds),
                at: entryFlow.flatMap { flows[$0]?.startLocation ?? flows[$0]?.location })
        } else {
            _ = node(NodeKey(screen: entry.screen, flow: entryFlow))
        }

        var head = 0
        func drain() {
            // A `host serve` request past its deadline stops exploring (its answer is a 503).
            while head < queue.count, !Deadline.expired {
                process(queue[head])
                head += 1
            }
        }
        drain()
        // Deep links enter from outside the app: the screen (in its flow) each one lands on is
        // a node of the graph even when no action leads there, explored like the others.
        landings = landLinks(from: EntryPoint(screen: entry.screen, flow: entryFlow))
        for l in landings {
            if case .success(let e) = l.result, resolve(e.screen) != nil { _ = node(NodeKey(screen: e.screen, flow: e.flow)) }
        }
        drain()

        // Steps forwarded to a parent that no flow ever entered.
        for flow in deferred.keys.sorted() where (enterers[flow] ?? []).isEmpty {
            for d in deferred[flow]! where !d.isFinish {
                report(.unhandledAction, .warning,
                    "\(describe(d.origin)) forwards step '\(d.step!)' to the parent of flow '\(flow)', but no flow enters '\(flow)'",
                    at: d.origin.site.location)
            }
        }
        return build(entry: entry, entryFlow: entryFlow)
    }

    func process(_ i: Int) {
        let key = nodeKeys[i]
        guard let screen = resolve(key.screen) else { return }
        for site in screen.actions {
            guard let step = Step(action: site.action) else {
                let shown = site.action.isEmpty ? "an empty action" : "action '\(site.action)'"
                report(.unhandledAction, .error,
                    "\(shown) on screen '\(key.screen)' is not a navigation step (the name before ':' is empty)",
                    at: site.location)
                continue
            }
            // `back` is the simulator's own step (pop, dismiss, leave the flow): no edge.
            if step.isBack { continue }
            let origin = Origin(from: i, step: step, site: site)
            guard let flow = key.flow else {
                report(.unhandledAction, .warning,
                    "\(describe(origin)): no flow handles step '\(step.name)'"
                        + (flows.isEmpty ? " (the project defines no flows)" : " (the screen is shown outside any flow)"),
                    at: site.location)
                continue
            }
            switch navigate(flow, step) {
            case .failure(let d):
                report(.unhandledAction, .error, "\(describe(origin)): flow '\(flow)' failed on step '\(step)': \(failure(d))", at: site.location ?? d.location)
            case .success(let contributions):
                if !apply(contributions, flow: flow, origin: origin, kind: nil, chain: [FlowStep(flow: flow, step: step)]) {
                    report(.unhandledAction, .warning,
                        "\(describe(origin)) is not handled: flow '\(flow)' returns nothing for step '\(step.name)'",
                        at: site.location)
                }
            }
        }
    }

    func failure(_ d: Diagnostic) -> String {
        if let l = d.location { return "\(l): \(d.message)" }
        return d.message
    }

    /// Applies a flow's contributions for the user's action at `origin`. `kind` is the
    /// contribution the user's own flow made (nil at the top). True when anything happens.
    @discardableResult
    func apply(_ contributions: [Contribution], flow: String, origin: Origin, kind: ContributionKind?, chain: [FlowStep]) -> Bool {
        var any = false
        for c in contributions {
            switch c {
            case .push(let screen, _), .present(let screen, _), .replace(let screen, _), .tab(let screen, _):
                any = true
                show(screen, in: flow, origin: origin, kind: kind ?? c.kind, how: c.kind, params: c.params)
            case .flow(let name, let step):
                any = true
                guard let child = flows[name] else {
                    report(.unknownFlow, .error,
                        "\(describe(origin)): flow '\(flow)' enters unknown flow '\(name)'" + DidYouMean.hint(name, among: flows.names),
                        at: origin.site.location)
                    continue
                }
                show(child.start, in: name, origin: origin, kind: kind ?? .flow, how: .flow)
                enter(name, by: Enterer(parentFlow: flow, returnNode: origin.from))
                if let step {
                    forward(step, to: name, origin: origin, kind: kind ?? .flow, chain: chain,
                        what: "flow '\(flow)' enters flow '\(name)' with step '\(step)'")
                }
            case .parent(let step):
                any = true
                defer_(Deferred(isFinish: false, step: step, origin: origin, kind: kind ?? .parent, chain: chain, childFlow: flow))
            case .finish(let step):
                any = true
                canEnd.insert(flow)
                defer_(Deferred(isFinish: true, step: step, origin: origin, kind: kind ?? .finish, chain: chain, childFlow: flow))
            case .none:
                break
            }
        }
        return any
    }

    func show(_ screen: String, in flow: String, origin: Origin, kind: ContributionKind, how: ContributionKind, params: [String: String] = [:]) {
        guard resolve(screen) != nil else {
            let doing = how == .flow
                ? "enters flow '\(flow)', which starts at unknown screen '\(screen)'"
                : "leads to unknown screen '\(screen)' (\(how.rawValue) in flow '\(flow)')"
            report(.unknownScreen, .error,
                "\(describe(origin)) \(doing)" + DidYouMean.hint(screen, among: screenIds),
                at: origin.site.location)
            return
        }
        let target = node(NodeKey(screen: screen, flow: flow))
        addEdge(from: origin.from, to: target, origin: origin, kind: kind, flow: flow, params: params)
    }

    /// Navigates a step in another flow (a child flow's start step, a parent forward).
    func forward(_ step: Step, to flow: String, origin: Origin, kind: ContributionKind, chain: [FlowStep], what: String) {
        let link = FlowStep(flow: flow, step: step)
        if chain.contains(link) || chain.count >= NavigationExplorer.maxForwarding { return }
        switch navigate(flow, step) {
        case .failure(let d):
            report(.unhandledAction, .error, "\(describe(origin)): \(what), and flow '\(flow)' failed: \(failure(d))",
                at: origin.site.location ?? d.location)
        case .success(let contributions):
            if !apply(contributions, flow: flow, origin: origin, kind: kind, chain: chain + [link]) {
                report(.unhandledAction, .warning,
                    "\(describe(origin)): \(what), which flow '\(flow)' does not handle", at: origin.site.location)
            }
        }
    }

    func enter(_ child: String, by e: Enterer) {
        guard entererSet.insert([child, e.parentFlow, String(e.returnNode)]).inserted else { return }
        enterers[child, default: []].append(e)
        for d in deferred[child] ?? [] { run(d, e) }
    }

    func defer_(_ d: Deferred) {
        guard deferredSet.insert(d).inserted else { return }
        deferred[d.childFlow, default: []].append(d)
        for e in enterers[d.childFlow] ?? [] { run(d, e) }
    }

    func run(_ d: Deferred, _ e: Enterer) {
        if d.isFinish {
            addEdge(from: d.origin.from, to: e.returnNode, origin: d.origin, kind: d.kind, flow: e.parentFlow)
            if let step = d.step {
                forward(step, to: e.parentFlow, origin: d.origin, kind: d.kind, chain: d.chain,
                    what: "flow '\(d.childFlow)' finishes with step '\(step)' for its parent")
            }
        } else if let step = d.step {
            forward(step, to: e.parentFlow, origin: d.origin, kind: d.kind, chain: d.chain,
                what: "flow '\(d.childFlow)' forwards step '\(step)' to its parent")
        }
    }
}

/// What an exploration keeps: nodes (screen in a flow), edges, steps asked of flows, where
/// steps came from, and work deferred until a child flow is entered.
extension Exploration {
    struct NodeKey: Hashable {
        var screen: String
        var flow: String?
    }

    struct EdgeKey: Hashable {
        var from: Int
        var step: String
        var to: Int
    }

    struct FlowStep: Hashable {
        var flow: String
        var step: Step
    }

    /// Where a chain of contributions started: the node and the user's action.
    struct Origin: Hashable {
        var from: Int
        var step: Step
        var site: ActionSite
    }

    struct Enterer: Hashable {
        var parentFlow: String
        var returnNode: Int
    }

    /// A parent / finish contribution waiting for the flows that enter its flow.
    struct Deferred: Hashable {
        var isFinish: Bool
        var step: Step?
        var origin: Origin
        var kind: ContributionKind
        var chain: [FlowStep]
        var childFlow: String
    }

    struct EdgeBuild {
        var from: Int
        var to: Int
        var step: String
        var kind: ContributionKind
        var example: String?
        var gated: Bool
        var flow: String?
        var location: SourceLocation?
        var params: [String: String] = [:]
        var hiddenBy: HiddenReason?
    }
}
