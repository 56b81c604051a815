import ArgumentParser
import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins

struct Navigate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay navigation steps or a deep link for a user; print the stack after each step with a will-navigate / did-navigate trace.",
        discussion: """
            Examples:
              host navigate home --user gold --steps "movie:42,cast:10205,back"
              host navigate home --user gold --link "app://movie/42"
            A step must be available on the current screen for this user (an action of a visible component or item), or `back`.
            """)

    @Argument(help: "The screen to start on (file or id); the project's entry when omitted.")
    var screen: String?

    @OptionGroup var user: UserOptions
    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "Comma-separated steps, e.g. \"movie:42,back\".")
    var steps: String?

    @Option(name: .long, help: "A deep link URL, mapped to steps by the flows' link patterns.")
    var link: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func validate() throws {
        if steps == nil && link == nil { throw ValidationError("give --steps or --link") }
    }

    func run() throws {
        let anchor = screen.flatMap { SafeFile.exists($0) ? $0 : nil }
        let ws = try engine.workspace(anchor: anchor)
        var diagnostics = ws.loadDiagnostics
        let profile = try orExit(user.profile(in: ws), diagnostics)
        let (flows, fd) = ws.flows()
        diagnostics.append(contentsOf: fd)
        var start: Screen?
        if let screen {
            start = ws.screen(file: try orExit(ws.locateScreen(screen), diagnostics)).0
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
            sim = try NavigationSimulator(flows: flows, entry: entry) { id in
                ws.visibleActions(screenID: id, user: profile, extra: start)
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
            Console.out(out)
        case .json:
            let o: JSONValue = .object([
                "start": .string(entry.description),
                "steps": .array(outcomes.map(\.json)),
                "diagnostics": TreeOutput.diagnosticsJSON(diagnostics.sorted),
            ])
            Console.out(o.serialized(pretty: true) + "\n")
        }
        if Console.report(diagnostics) { throw ExitCode(1) }
    }
}
