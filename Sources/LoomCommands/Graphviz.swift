import Foundation
import LoomCore

public enum Graphviz {
    /// `dot`'s limits: one minute (or what remains of a `host serve` request's time), 64 MiB of
    /// SVG, 1 MiB of messages (docs/navigation.md, "Pictures").
    public static let limits = ExternalProgram.Limits(timeout: 60, maxOutputBytes: 64 << 20, maxErrorBytes: 1 << 20)

    /// Runs `dot -Tsvg` through `ExternalProgram`; a clear error when Graphviz is not installed,
    /// when `dot` fails, runs past its time limit or writes past its cap.
    public static func svg(fromDOT dot: String) -> Result<String, Diagnostic> {
        let missing = "--format svg needs Graphviz's `dot`, which is not installed (Debian: apt-get install graphviz); --format dot prints the graph for it"
        switch ExternalProgram.run("dot", arguments: ["-Tsvg"], input: Array(dot.utf8), limits: limits, missing: missing) {
        case .success(let out): return .success(String(decoding: out.stdout, as: UTF8.self))
        case .failure(let d): return .failure(d)
        }
    }
}
