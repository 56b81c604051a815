import ArgumentParser
import LoomCommands
import LoomCore

// The pipeline's types live in LoomCommands; the host only parses flags into requests and
// prints results. These names keep the files other parts own (Check, Serve) compiling as they
// are: `ScreenReport` is the pipeline's `ScreenResult`.
typealias ScreenReport = ScreenResult
typealias InputNotes = LoomCommands.InputNotes
typealias OutputFormat = LoomCommands.OutputFormat
typealias Graphviz = LoomCommands.Graphviz

extension LoomCommands.OutputFormat: ExpressibleByArgument {}
extension LoomCommands.GraphOutputFormat: ExpressibleByArgument {}

extension ScreenResult {
    /// For stdout: coloured only on a terminal and never with NO_COLOR.
    func rendered(_ format: OutputFormat) -> String { rendered(format, style: Console.outStyle) }
}
