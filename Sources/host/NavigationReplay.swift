import ArgumentParser
import Foundation
import LoomCore
import LoomNavigation
import LoomWorkspace

/// What `host navigate` prints: steps or a deep link replayed for one user, the stack after each.
struct NavigationReplay {
    var entry: EntryPoint
    var outcomes: [StepOutcome]
    var diagnostics: Diagnostics

    /// Starts on `screen` (a file or an id) or the project's entry, opens `link`, then performs
    /// `steps`; a step that cannot be taken ends the replay with its diagnostic.
    static func replay(from screen: String?, in ws: Workspace, user: UserOptions, link: String?, steps: String?) throws -> NavigationReplay {
        var diagnostics = ws.loadDiagnostics
        let profile = try orExit(user.profile(in: ws), diagnostics)
        let (flows, fd) = ws.flows()
        diagnostics.append(contentsOf: fd)
        var start: Screen?
        if let screen {
            start = ws.screen(file: try orExit(ws.locateScreen(screen), diagnostics)).screen
        }
        let entry: EntryPoint
        if let s = start {
            entry = flows.entryPoint(forScreen: s.id)
        } else if let e = flows.entryPoint(runningScreen: nil) {
            entry = e
        } else {
            diagnostics.error("no screen given and the project declares no entry or flow")
            Console.report(diagnostics)
            throw ExitCode(1)
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
            diagnostics.append(error)
            Console.report(diagnostics)
            throw ExitCode(1)
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

    func rendered(_ format: OutputFormat) -> String {
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
