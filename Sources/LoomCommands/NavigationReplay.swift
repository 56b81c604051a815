import LoomCore
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
        if let screen = request.screen {
            switch ws.locateScreen(screen) {
            case .success(let file): start = ws.screen(file: file).screen
            case .failure(let d): return stopped(d)
            }
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
                let r = sim.perform(list)
                outcomes += r.outcomes
                failure = r.failure
            case .failure(let e): failure = e
            }
        }
        if let failure { diagnostics.append(failure) }
        return NavigationReplay(entry: entry, outcomes: outcomes, diagnostics: diagnostics)
    }

    /// The replay as text or JSON (empty when it stopped before starting).
    public func rendered(_ format: OutputFormat) -> String {
        guard let entry else { return "" }
        switch format {
        case .text:
            // StepOutcome.text, with every part from data or flags escaped.
            let e = TextEscape.escaped
            var out = "start: \(e(entry.description))\n"
            for o in outcomes {
                out += "▶ \(e(o.input))\n"
                for ev in o.events { out += "  \(e(ev.description))\n" }
                out += "  stack: \(e(o.stack.description))\n"
            }
            return out
        case .json:
            let o: JSONValue = .object([
                "start": .string(entry.description),
                "steps": .array(outcomes.map(\.json)),
                "diagnostics": TreeOutput.diagnosticsJSON(diagnostics.sorted),
            ])
            return o.serialized(pretty: true) + "\n"
        }
    }
}
