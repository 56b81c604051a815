import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomWorkspace

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print the navigation graph a user can walk: flows as clusters, rule-gated edges marked.",
        discussion: """
            Exploration starts at the project's entry (loom.json "entry", else the flow named main, else SCREEN).
            --format svg pipes the DOT form through Graphviz's `dot` when it is installed.
            """)

    @Argument(help: "A screen file or id (locates the project; the start when no entry is declared).")
    var screen: String?

    @OptionGroup var user: UserOptions
    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .long, help: "text, json, dot, mermaid or svg.")
    var format: GraphOutputFormat = .text

    @Option(name: [.short, .long], help: "Write the output to this file instead of stdout.")
    var output: String?

    func run() throws {
        let ws = try engine.workspace(screen: screen)
        let request = ScreenRequest(screen: screen, user: try user.selection(), device: deviceOptions.chosen, compute: [.graph])
        let result = ScreenPipeline.resolve(request, in: ws)
        var diagnostics = result.diagnostics
        guard result.failure == nil, let navigation = result.graph else {
            Console.report(diagnostics)
            throw ExitCode(1)
        }
        switch GraphReport.rendered(navigation, format) {
        case .success(let text): write(text, project: ws.project.root, &diagnostics)
        case .failure(let d):
            diagnostics.append(d)
            Console.report(diagnostics)
            throw ExitCode(1)
        }
        if Console.report(diagnostics) { throw ExitCode(1) }
    }

    /// To `-o FILE` when given (a failure is a diagnostic), else to stdout. The file goes through
    /// the safe writer fenced by the project (see `Render`'s `-o`).
    private func write(_ text: String, project: String, _ diagnostics: inout Diagnostics) {
        guard let output else { return Console.out(text) }
        do { try SafeWriter(root: project, confined: false).write(text, to: output, createFolders: false) } catch {
            diagnostics.error("cannot write the graph: \(error.message)", at: error.location)
        }
    }
}
