import LoomCore
import OrderedCollections

/// Walks the navigation one step at a time, as a user would: a step must be among the current
/// screen's visible actions (or `back`), the flows decide where it leads, and every problem is
/// a Diagnostic, never a crash. A failed step leaves the stack unchanged.
public final class NavigationSimulator {
    public static let maxForwarding = 16

    public let flows: FlowSet
    public private(set) var stack: NavigationStack
    private let actions: (String, [String: String]) -> ScreenActions?
    private var resolved: [ScreenKey: ScreenActions?] = [:]

    private struct ScreenKey: Hashable {
        var screen: String
        var params: [String: String]
    }
    /// What flows read when they navigate, for the screen a step comes from (its parameters).
    private let context: (NavigationEntry?) -> NavigationContext
    /// Each tab's stack while another tab is shown, by tabs flow and tab screen (a tab bar of
    /// navigation controllers keeps one stack per tab).
    public private(set) var tabStacks: [String: [String: [NavigationEntry]]] = [:]

    /// Starts at the entry screen. Fails when the screen does not exist or the flow is unknown.
    /// `context` gives the user and parameters flows read (by default, none).
    public convenience init(
        flows: FlowSet, entry: EntryPoint, entryParams: [String: String] = [:],
        context: ((NavigationEntry?) -> NavigationContext)? = nil,
        actions: @escaping (String) -> ScreenActions?
    ) throws(Diagnostic) {
        try self.init(flows: flows, entry: entry, entryParams: entryParams, context: context, screenActions: { id, _ in actions(id) })
    }

    /// The same, with the visible actions of a screen opened with parameters (rules may read them).
    /// `entryExists`: the caller has the entry screen in hand (a scenario's `t:open` loaded it),
    /// so it is not looked up now; its actions are asked for when a step first needs them.
    public init(
        flows: FlowSet, entry: EntryPoint, entryParams: [String: String] = [:],
        context: ((NavigationEntry?) -> NavigationContext)? = nil,
        entryExists: Bool = false,
        screenActions: @escaping (String, [String: String]) -> ScreenActions?
    ) throws(Diagnostic) {
        self.flows = flows
        self.actions = screenActions
        self.context = context ?? { _ in NavigationContext() }
        self.stack = NavigationStack()
        if let f = entry.flow, flows[f] == nil {
            throw .error("unknown flow '\(f)'" + DidYouMean.hint(f, among: flows.names))
        }
        guard entryExists || resolve(entry.screen, entryParams) != nil else {
            throw .error("unknown screen '\(entry.screen)'")
        }
        stack = NavigationStack([NavigationEntry(screen: entry.screen, flow: entry.flow, presentation: .start, params: entryParams)])
    }

    public var current: NavigationEntry? { stack.top }

    /// The distinct step names the current screen offers (visible actions), sorted.
    public func availableSteps() -> [String] {
        guard let top = stack.top, let screen = resolve(top.screen, top.params) else { return [] }
        var names = Set<String>()
        for site in screen.actions { if let s = Step(action: site.action) { names.insert(s.name) } }
        return names.sorted()
    }

    /// Performs one step from the current screen.
    public func perform(_ step: Step) -> Result<StepOutcome, Diagnostic> {
        var state = stack.entries
        var events: [NavigationEvent] = []
        let tabs = tabStacks
        do throws(Diagnostic) {
            try performStep(step, checked: true, state: &state, events: &events)
        } catch {
            tabStacks = tabs
            return .failure(error)
        }
        stack = NavigationStack(state)
        return .success(StepOutcome(input: step.description, events: events, stack: stack))
    }

    /// Performs steps in order, stopping at the first failure.
    public func perform(_ steps: [Step]) -> (outcomes: [StepOutcome], failure: Diagnostic?) {
        var outcomes: [StepOutcome] = []
        for s in steps {
            switch perform(s) {
            case .success(let o): outcomes.append(o)
            case .failure(let d): return (outcomes, d)
            }
        }
        return (outcomes, nil)
    }

    /// Opens a deep link: the first flow (by name) declaring a matching pattern handles it. If
    /// that flow is on the stack, the screens above it are popped; otherwise it is entered as a
    /// child flow. Then its steps are navigated in order, without checking the current screen's
    /// actions (a link comes from outside the app).
    public func openLink(_ url: String) -> Result<StepOutcome, Diagnostic> {
        guard let match = flows.matchLink(url) else {
            let patterns = flows.names.flatMap { flows[$0]!.links.map(\.pattern) }
            return .failure(.error(
                "no flow declares a deep link matching '\(url)'"
                    + (patterns.isEmpty ? " (no flow declares links)" : "; known patterns: \(patterns.joined(separator: ", "))")))
        }
        return open(match, url: url)
    }

    /// Opens a matched deep link (`url` names it in the outcome and in errors). This is where
    /// every link lands, for `host navigate --link` and for the graph's link entries alike
    /// (`LinkLanding`).
    public func open(_ match: LinkMatch, url: String) -> Result<StepOutcome, Diagnostic> {
        var state = stack.entries
        var events: [NavigationEvent] = []
        let tabs = tabStacks
        do throws(Diagnostic) {
            let from = state.last?.screen
            if let i = state.lastIndex(where: { $0.flow == match.flow }) {
                if i < state.count - 1 {
                    state.removeSubrange((i + 1)...)
                    emit(from: from, to: state.last?.screen, .link, flow: match.flow, &events)
                }
            } else {
                let flow = flows[match.flow]!
                try requireScreen(flow.start, "deep link '\(url)' enters flow '\(match.flow)', which starts at")
                state.append(NavigationEntry(screen: flow.start, flow: match.flow, presentation: .flow))
                emit(from: from, to: flow.start, .flow, flow: match.flow, &events)
            }
            for step in match.steps {
                try performStep(step, checked: false, state: &state, events: &events)
            }
        } catch {
            tabStacks = tabs
            return .failure(error)
        }
        stack = NavigationStack(state)
        return .success(StepOutcome(input: url, events: events, stack: stack))
    }

    // MARK: Internals

    private func resolve(_ screen: String, _ params: [String: String] = [:]) -> ScreenActions? {
        let key = ScreenKey(screen: screen, params: params)
        if let r = resolved[key] { return r }
        let r = actions(screen, params)
        resolved[key] = r
        return r
    }

    private func requireScreen(_ screen: String, _ what: String) throws(Diagnostic) {
        if resolve(screen) == nil { throw .error("\(what) unknown screen '\(screen)'") }
    }

    private func emit(from: String?, to: String?, _ t: Transition, flow: String?, _ events: inout [NavigationEvent]) {
        events.append(NavigationEvent(phase: .willNavigate, from: from, to: to, transition: t, flow: flow))
        events.append(NavigationEvent(phase: .didNavigate, from: from, to: to, transition: t, flow: flow))
    }

    private func performStep(_ step: Step, checked: Bool, state: inout [NavigationEntry], events: inout [NavigationEvent]) throws(Diagnostic) {
        guard let top = state.last else {
            throw .error("cannot perform step '\(step)': the navigation has ended (the entry flow finished)")
        }
        if step.isBack {
            guard state.count > 1 else {
                throw .error("cannot go back from screen '\(top.screen)': it is the first screen")
            }
            state.removeLast()
            emit(from: top.screen, to: state.last?.screen, .back, flow: top.flow, &events)
            return
        }
        if checked {
            let available = availableSteps(on: top)
            if !available.contains(step.name), let (flow, index) = hiddenAcceptor(of: step, in: state) {
                // A flow lower on the stack that accepts this step while its screen is hidden.
                try navigate(step, in: flow, depth: 0, state: &state, events: &events,
                    what: "step '\(step)' accepted by flow '\(flow)' under screen '\(top.screen)'", from: state[index])
                return
            }
            if !available.contains(step.name) {
                throw .error(
                    "step '\(step.name)' is not available on screen '\(top.screen)'; available: "
                        + (available.isEmpty ? "none" : available.joined(separator: ", "))
                        + DidYouMean.hint(step.name, among: available))
            }
        }
        guard let flow = top.flow else {
            throw .error("no flow handles step '\(step)' on screen '\(top.screen)'"
                + (flows.isEmpty ? " (the project defines no flows)" : " (the screen is shown outside any flow)"))
        }
        try navigate(step, in: flow, depth: 0, state: &state, events: &events,
            what: "step '\(step)' on screen '\(top.screen)'", from: top)
    }

    /// The topmost flow below the top screen's that declares `accepts_when_hidden` for the step,
    /// with the index of its topmost screen.
    private func hiddenAcceptor(of step: Step, in state: [NavigationEntry]) -> (String, Int)? {
        guard let topFlow = state.last?.flow else { return nil }
        var i = state.count - 1
        while i > 0 {
            i -= 1
            guard let f = state[i].flow, f != topFlow else { continue }
            if flows[f]?.acceptsWhenHidden.contains(step.name) == true { return (f, i) }
        }
        return nil
    }

    private func availableSteps(on entry: NavigationEntry) -> [String] {
        guard let actions = resolve(entry.screen, entry.params) else { return [] }
        var names = OrderedSet<String>()
        for site in actions.actions { if let s = Step(action: site.action) { names.append(s.name) } }
        return names.sorted()
    }

    private func navigate(
        _ step: Step, in flow: String, depth: Int, state: inout [NavigationEntry], events: inout [NavigationEvent], what: String,
        from origin: NavigationEntry? = nil
    ) throws(Diagnostic) {
        guard depth <= NavigationSimulator.maxForwarding else {
            throw .error("\(what): forwarded between flows more than \(NavigationSimulator.maxForwarding) times (a cycle between flows?)")
        }
        guard let definition = flows[flow] else {
            throw .error("\(what): unknown flow '\(flow)'")
        }
        let contributions: [Contribution]
        switch definition.navigator.navigate(step, context: context(origin ?? state.last)) {
        case .failure(let d):
            let at = d.location.map { "\($0): " } ?? ""
            throw .error("\(what): flow '\(flow)' failed: \(at)\(d.message)")
        case .success(let cs):
            contributions = cs
        }
        var handled = false
        for c in contributions {
            let from = state.last?.screen
            switch c {
            case .push(let screen, let params), .present(let screen, let params):
                try requireScreen(screen, "\(what): flow '\(flow)' \(FlowValidation.verb(c.kind))")
                let t: Transition = c.kind == .push ? .push : .present
                state.append(NavigationEntry(screen: screen, flow: flow, presentation: t, params: params))
                emit(from: from, to: screen, t, flow: flow, &events)
            case .replace(let screen, let params):
                try requireScreen(screen, "\(what): flow '\(flow)' replaces with")
                let kept = state.last?.presentation ?? .start
                if state.isEmpty {
                    state.append(NavigationEntry(screen: screen, flow: flow, presentation: kept, params: params))
                } else {
                    state[state.count - 1] = NavigationEntry(screen: screen, flow: flow, presentation: kept, params: params)
                }
                emit(from: from, to: screen, .replace, flow: flow, &events)
            case .tab(let screen, let params):
                try requireScreen(screen, "\(what): flow '\(flow)' switches to tab")
                if let root = rootIndex(of: flow, in: state) {
                    switchTab(to: screen, params: params, in: flow, root: root, state: &state)
                } else {
                    state.append(NavigationEntry(screen: screen, flow: flow, presentation: .tab, params: params))
                }
                emit(from: from, to: state.last?.screen ?? screen, .tab, flow: flow, &events)
            case .flow(let name, let childStep):
                guard let child = flows[name] else {
                    throw .error("\(what): flow '\(flow)' enters unknown flow '\(name)'" + DidYouMean.hint(name, among: flows.names))
                }
                try requireScreen(child.start, "\(what): flow '\(flow)' enters flow '\(name)', which starts at")
                state.append(NavigationEntry(screen: child.start, flow: name, presentation: .flow))
                emit(from: from, to: child.start, .flow, flow: flow, &events)
                if let childStep {
                    try navigate(childStep, in: name, depth: depth + 1, state: &state, events: &events,
                        what: "\(what): step '\(childStep)' in flow '\(name)'")
                }
            case .parent(let forwarded):
                guard let root = rootIndex(of: flow, in: state), root > 0, let parent = state[root - 1].flow else {
                    throw .error("\(what): flow '\(flow)' forwards step '\(forwarded)' to its parent, but it has none")
                }
                try navigate(forwarded, in: parent, depth: depth + 1, state: &state, events: &events,
                    what: "\(what): step '\(forwarded)' forwarded to flow '\(parent)'")
            case .finish(let next):
                let root = rootIndex(of: flow, in: state) ?? 0
                state.removeSubrange(root...)
                emit(from: from, to: state.last?.screen, .finish, flow: flow, &events)
                if let next {
                    guard let parent = state.last?.flow else {
                        throw .error("\(what): flow '\(flow)' finishes with step '\(next)', but it has no parent flow")
                    }
                    try navigate(next, in: parent, depth: depth + 1, state: &state, events: &events,
                        what: "\(what): step '\(next)' after flow '\(flow)' finished")
                }
            case .none:
                continue
            }
            handled = true
        }
        if !handled {
            throw .error("\(what) is not handled: flow '\(flow)' returns nothing for step '\(step.name)'")
        }
    }

    /// Shows another tab of a tabs flow: the shown tab's stack (its screen and those above it)
    /// is kept, and the other tab's kept stack, if any, comes back; switching to the shown tab
    /// pops to its first screen.
    private func switchTab(to screen: String, params: [String: String], in flow: String, root: Int, state: inout [NavigationEntry]) {
        let shown = state[root].screen
        if shown == screen {
            state.removeSubrange((root + 1)...)
            state[root].params = params
            return
        }
        tabStacks[flow, default: [:]][shown] = Array(state[root...])
        state.removeSubrange((root + 1)...)
        if let kept = tabStacks[flow]?[screen], let first = kept.first {
            state[root].screen = first.screen
            state[root].params = params.isEmpty ? first.params : params
            state.append(contentsOf: kept.dropFirst())
            tabStacks[flow]?[screen] = nil
        } else {
            state[root].screen = screen
            state[root].params = params
        }
    }

    /// The entry where the topmost run of a flow begins (its start or the screen that entered it).
    private func rootIndex(of flow: String, in state: [NavigationEntry]) -> Int? {
        // Walks down from the flow's topmost screen, over any child flows' screens, to the
        // screen where the flow was entered.
        guard var i = state.lastIndex(where: { $0.flow == flow }) else { return nil }
        while i > 0, !(state[i].flow == flow && (state[i].presentation == .flow || state[i].presentation == .start)) {
            i -= 1
        }
        return i
    }
}
