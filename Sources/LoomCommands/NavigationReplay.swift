import LoomCore
import LoomDiff
import LoomNavigation
import LoomWorkspace

/// What `host navigate` prints: steps or a deep link replayed for one user, the stack after each.
public struct NavigationReplay {
    public var entry: EntryPoint?
    public var outcomes: [StepOutcome]
    public var diagnostics: Diagnostics
    /// Set when the replay could not start (the user, the start screen, no entry, flows that
    /// cannot be simulated): what stopped it, also in `diagnostics`.
    public var failure: Diagnostics?
    /// For each outcome, the state of the screen on top after it (nil: that screen declares
    /// no state; docs/data.md, "State").
    public var states: [ScreenState?] = []
    /// For each outcome of a tap on a state action (by outcome index), what the change did to
    /// the resolved tree: Spots' soft and hard updates, as `host diff` lists them.
    public var changes: [Int: [TreeChange]] = [:]

    /// Starts on the request's screen (a file or an id) or the project's entry, opens `link`,
    /// then performs `steps`; a step that cannot be taken ends the replay with its diagnostic.
    /// The request's user, device and parameters are used; its `compute` is not.
    public static func replay(_ request: ScreenRequest, link: String?, steps: String?, in ws: Workspace) -> NavigationReplay {
        ws.useDevice(request.device)
        var diagnostics = ws.loadDiagnostics
        func stopped(_ why: Diagnostic) -> NavigationReplay {
            diagnostics.append(why)
            return NavigationReplay(entry: nil, outcomes: [], diagnostics: diagnostics, failure: Diagnostics([why]))
        }
        let profile: UserProfile
        switch request.user.user(in: ws.users) {
        case .success(let p): profile = p
        case .failure(let d): return stopped(d)
        }
        let (flows, fd) = ws.flows()
        diagnostics.append(contentsOf: fd)
        var start: Screen?
        var startFile: String?
        if let screen = request.screen {
            switch ws.locateScreen(screen) {
            case .success(let file):
                start = ws.screen(file: file).screen
                startFile = file
            case .failure(let d): return stopped(d)
            }
        }
        // Each screen's state, kept for the replay by screen id (a screen returned to keeps its
        // state); the start screen starts with the request's values.
        var states: [String: ScreenState] = [:]
        if let file = startFile, let id = start?.id {
            let (st, sd) = ws.screenState(file: file, given: request.state)
            if sd.hasErrors {
                diagnostics.append(contentsOf: sd)
                return NavigationReplay(entry: nil, outcomes: [], diagnostics: diagnostics, failure: sd)
            }
            if let st { states[id] = st }
        } else if !request.state.isEmpty {
            return stopped(.error("--state needs a screen to start on (the screen that declares the state)"))
        }
        func file(of id: String) -> String? {
            if let s = start, s.id == id { return startFile }
            return ws.screenFiles()[id]
        }
        func state(of id: String) -> ScreenState? {
            if let s = states[id] { return s }
            guard let f = file(of: id), let s = ws.screenState(file: f).0 else { return nil }
            states[id] = s
            return s
        }
        let entry: EntryPoint
        if let s = start {
            entry = flows.entryPoint(forScreen: s.id)
        } else if let e = flows.entryPoint(runningScreen: nil) {
            entry = e
        } else {
            return stopped(.error("no screen given and the project declares no entry or flow"))
        }
        let sim: NavigationSimulator
        do {
            // Each screen is resolved with the parameters of the step that opened it; flows read
            // the user and the parameters of the screen a step comes from.
            sim = try NavigationSimulator(
                flows: flows, entry: entry, context: { ws.navigationContext(user: profile, params: $0?.params ?? [:]) }
            ) { id, params in
                ws.visibleActions(screenID: id, user: profile, extra: start, params: params)
            }
        } catch {
            return stopped(error)
        }
        var outcomes: [StepOutcome] = []
        var failure: Diagnostic?
        if let link {
            switch sim.openLink(link) {
            case .success(let o): outcomes.append(o)
            case .failure(let e): failure = e
            }
        }
        if failure == nil, let steps {
            switch Step.parseList(steps) {
            case .success(let list) where list.isEmpty:
                failure = .error("--steps names no step (write them separated by commas, e.g. \"movie:42,back\")")
            case .success(let list):
                var tapped: [Int: [TreeChange]] = [:]
                var after: [ScreenState?] = []
                for step in list {
                    if step.name == "tap" {
                        guard let id = step.param, !id.isEmpty else {
                            failure = .error("tap:ID names the id of a node to tap, e.g. tap:fav; found '\(TextEscape.escaped(step.description))'")
                            break
                        }
                        switch tap(id, sim: sim, request: request, profile: profile, file: file(of:), state: state(of:), in: ws) {
                        case .failure(let e): failure = e
                        case .success(let t):
                            if let (screen, new, changes) = t.state {
                                states[screen] = new
                                tapped[outcomes.count] = changes
                            }
                            outcomes.append(t.outcome)
                        }
                    } else {
                        switch sim.perform(step) {
                        case .success(let o): outcomes.append(o)
                        case .failure(let e): failure = e
                        }
                    }
                    if failure != nil { break }
                    after.append(sim.current.flatMap { state(of: $0.screen) })
                }
                var out = NavigationReplay(entry: entry, outcomes: outcomes, diagnostics: diagnostics)
                if let failure { out.diagnostics.append(failure) }
                out.states = Array(repeating: nil, count: outcomes.count - after.count) + after
                out.changes = tapped
                return out
            case .failure(let e): failure = e
            }
        }
        if let failure { diagnostics.append(failure) }
        var out = NavigationReplay(entry: entry, outcomes: outcomes, diagnostics: diagnostics)
        out.states = outcomes.map { _ in sim.current.flatMap { state(of: $0.screen) } }
        return out
    }

    /// What a tap did: its outcome, and for a state action the screen, its new state and the changes.
    struct Tap {
        var outcome: StepOutcome
        var state: (String, ScreenState, [TreeChange])?
    }

    /// `tap:ID`: taps the visible node with that id on the current screen. A state action
    /// changes the screen's state, which is resolved again (same user, params, device) and
    /// compared with what was shown; a navigation action is performed as its step.
    static func tap(
        _ id: String, sim: NavigationSimulator, request: ScreenRequest, profile: UserProfile,
        file: (String) -> String?, state: (String) -> ScreenState?, in ws: Workspace
    ) -> Result<Tap, Diagnostic> {
        guard let top = sim.current, let f = file(top.screen) else {
            return .failure(.error("tap:\(TextEscape.escaped(id)): no screen is open"))
        }
        let current = state(top.screen)
        func resolved(_ st: ScreenState?) -> Result<ResolvedNode?, Diagnostic> {
            var r = ScreenRequest(screen: f, profile: profile, params: top.params, device: request.device, compute: [.tree])
            if let st { r.state = st.values.reduce(into: [:]) { $0[$1.key] = .value($1.value) } }
            let result = ScreenPipeline.resolve(r, in: ws)
            if let why = result.failure { return .failure(why.items.first(where: { $0.severity == .error }) ?? .error("screen '\(top.screen)' cannot be resolved")) }
            return .success(result.resolution?.tree)
        }
        let before: ResolvedNode?
        switch resolved(current) {
        case .failure(let e): return .failure(e)
        case .success(let t): before = t
        }
        var tappable: [String] = []
        var action: String??
        // The whole tree is walked (not only up to the node tapped), so that an error names
        // every tappable id.
        func find(_ n: ResolvedNode) {
            guard !n.hidden else { return }
            if let nid = n.id {
                if n.action != nil { tappable.append(nid) }
                if nid == id, action == nil { action = .some(n.action) }
            }
            if let h = n.header { find(h) }
            for c in n.children { find(c) }
            for i in n.items ?? [] where !i.hidden {
                if let iid = i.id {
                    if i.action != nil { tappable.append(iid) }
                    if iid == id, action == nil { action = .some(i.action) }
                }
                for c in i.children { find(c) }
            }
            if let ft = n.footer { find(ft) }
        }
        if let before { find(before) }
        guard let found = action else {
            return .failure(.error("tap:\(TextEscape.escaped(id)): screen '\(TextEscape.escaped(top.screen))' shows no node with id '\(TextEscape.escaped(id))' to this user\(DidYouMean.hint(id, among: tappable))" + (tappable.isEmpty ? "" : " (tappable: \(tappable.map(TextEscape.escaped).joined(separator: ", ")))")))
        }
        guard let text = found else {
            return .failure(.error("tap:\(TextEscape.escaped(id)): node '\(TextEscape.escaped(id))' on screen '\(TextEscape.escaped(top.screen))' has no action" + (tappable.isEmpty ? "" : " (tappable: \(tappable.map(TextEscape.escaped).joined(separator: ", ")))")))
        }
        if let st = current, let a = StateAction.from(actionText: text, state: st) {
            let new = a.apply(to: st)
            let after: ResolvedNode?
            switch resolved(new) {
            case .failure(let e): return .failure(e)
            case .success(let t): after = t
            }
            let changes = TreeDiffer(old: before.map { TreeOutput.json($0, explain: false) }, new: after.map { TreeOutput.json($0, explain: false) }).changes
            return .success(Tap(outcome: StepOutcome(input: "tap:\(id)", events: [], stack: sim.stack), state: (top.screen, new, changes)))
        }
        guard let step = Step(action: text) else {
            return .failure(.error("tap:\(TextEscape.escaped(id)): the action '\(TextEscape.escaped(text))' of node '\(TextEscape.escaped(id))' is not a step"))
        }
        switch sim.perform(step) {
        case .failure(let e): return .failure(e)
        case .success(var o):
            o.input = "tap:\(id) → \(o.input)"
            return .success(Tap(outcome: o, state: nil))
        }
    }

    /// The replay as text or JSON (empty when it stopped before starting).
    public func rendered(_ format: OutputFormat) -> String {
        guard let entry else { return "" }
        switch format {
        case .text:
            // StepOutcome.text, with every part from data or flags escaped.
            let e = TextEscape.escaped
            var out = "start: \(e(entry.description))\n"
            for (k, o) in outcomes.enumerated() {
                out += "▶ \(e(o.input))\n"
                for ev in o.events { out += "  \(e(ev.description))\n" }
                out += "  stack: \(e(o.stack.description))\n"
                if let changes = changes[k] {
                    if changes.isEmpty { out += "  no changes\n" }
                    for c in changes { out += "  \(c.line)\n" }
                }
                if k < states.count, let st = states[k] { out += "  state: \(st.text)\n" }
            }
            return out
        case .json:
            let o: JSONValue = .object([
                "start": .string(entry.description),
                "steps": .array(outcomes.enumerated().map { k, o in
                    guard case .object(var j) = o.json else { return o.json }
                    if let changes = changes[k] { j["changes"] = .array(changes.map(\.json)) }
                    if k < states.count, let st = states[k] { j["state"] = st.json }
                    return .object(j)
                }),
                "diagnostics": TreeOutput.diagnosticsJSON(diagnostics.sorted),
            ])
            return o.serialized(pretty: true) + "\n"
        }
    }
}
