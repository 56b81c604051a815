import LoomCore
import LoomNavigation
import LoomWorkspace

/// `host graph --format`: the forms of a navigation graph.
public enum GraphOutputFormat: String, CaseIterable, Sendable {
    case text, json, dot, mermaid, svg
}

/// What `host graph` prints: the navigation graph one user can walk (a `ScreenRequest` with
/// `.graph` and without `.tree`), in one of its forms.
public enum GraphReport {
    /// The graph in `format`, ending with a newline; `svg` pipes the DOT form through Graphviz,
    /// and a Graphviz that is missing or fails is the failure.
    public static func rendered(_ navigation: NavigationOutput, _ format: GraphOutputFormat) -> Result<String, Diagnostic> {
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
            case .failure(let e): return .failure(e)
            }
        }
        if !text.hasSuffix("\n") { text += "\n" }
        return .success(text)
    }
}
