import ArgumentParser
import Foundation
import LoomCore
import LoomWorkspace

enum GraphOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, dot, mermaid, svg
}

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
        ws.useDevice(deviceOptions.chosen)
        var report = try GraphReport.explore(from: screen, in: ws, user: user)
        let text = try report.rendered(format)
        report.write(text, to: output, project: ws.project.root)
        if Console.report(report.diagnostics) { throw ExitCode(1) }
    }
}
