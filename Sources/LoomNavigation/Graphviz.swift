import LoomCore

/// The navigation graph as a picture: Graphviz's `dot` run through `Subprocess` (`host graph
/// --format svg`, `host serve`'s `GET /v1/graph/{id}?format=svg`).
public enum Graphviz {
    /// `dot`'s limits: one minute (or what remains of a `host serve` request's time), 64 MiB of
    /// SVG, 1 MiB of messages (docs/navigation.md, "Pictures").
    public static let limits = Subprocess.Limits(timeout: 60, maxOutputBytes: 64 << 20, maxErrorBytes: 1 << 20)

    /// Runs `dot -Tsvg` through `Subprocess`; a clear error when Graphviz is not installed,
    /// when `dot` fails, runs past its time limit or writes past its cap. The message names
    /// how the current surface asks for SVG (`--format svg`, or `format=svg` over HTTP).
    public static func svg(fromDOT dot: String) -> Result<String, Diagnostic> {
        let words = InputSyntax.current.svgGraph
        let missing = "\(words.ask) needs Graphviz's `dot`, which is not installed (Debian: apt-get install graphviz); \(words.instead)"
        switch Subprocess.run("dot", arguments: ["-Tsvg"], input: Array(dot.utf8), limits: limits, missing: missing) {
        case .success(let out): return .success(String(decoding: out.stdout, as: UTF8.self))
        case .failure(let d): return .failure(d)
        }
    }
}
