import ArgumentParser
import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins

/// What `host graph` prints: the navigation graph one user can walk.
struct GraphReport {
    var navigation: NavigationOutput
    var diagnostics: Diagnostics

    /// Explores from the project's entry, or from `screen` (a file or an id) when none is declared.
    static func explore(from screen: String?, in ws: Workspace, user: UserOptions) throws -> GraphReport {
        var diagnostics = ws.loadDiagnostics
        var start: Screen?
        if let screen {
            let loaded = ws.screen(file: try orExit(ws.locateScreen(screen), diagnostics))
            diagnostics.append(contentsOf: loaded.diagnostics)
            start = loaded.screen
        }
        let profile = try orExit(user.profile(in: ws), diagnostics)
        let nav = ws.navigationGraph(from: start, user: profile)
        diagnostics.append(contentsOf: nav.diagnostics)
        return GraphReport(navigation: nav, diagnostics: diagnostics)
    }

    /// The graph in `format`, ending with a newline; exits 1 when `svg` cannot be made.
    mutating func rendered(_ format: GraphOutputFormat) throws -> String {
        let graph = navigation.graph
        var text: String
        switch format {
        case .text: text = graph.rendered(.text)
        case .json: text = graph.rendered(.json)
        case .dot: text = graph.rendered(.dot)
        case .mermaid: text = graph.rendered(.mermaid)
        case .svg:
            switch Graphviz.svg(fromDOT: graph.rendered(.dot)) {
            case .success(let svg): text = svg
            case .failure(let e):
                diagnostics.append(e)
                Console.report(diagnostics)
                throw ExitCode(1)
            }
        }
        if !text.hasSuffix("\n") { text += "\n" }
        return text
    }

    /// To `output` when given (a failure is a diagnostic), else to stdout. The file goes through
    /// the safe writer fenced by the project (see `Render`'s `-o`).
    mutating func write(_ text: String, to output: String?, project: String) {
        if let output {
            do { try SafeWriter(root: project, confined: false).write(text, to: output, createFolders: false) } catch {
                diagnostics.error("cannot write the graph: \(error.message)", at: error.location)
            }
        } else {
            Console.out(text)
        }
    }
}
