import ArgumentParser
import LoomCommands

// The output formats are LoomCommands' (the pipeline's encoders); as flag values they are
// ArgumentParser's, for `host` and `host-serve` alike.
extension LoomCommands.OutputFormat: ExpressibleByArgument {}
extension LoomCommands.GraphOutputFormat: ExpressibleByArgument {}

extension ScreenResult {
    /// For stdout: coloured only on a terminal and never with NO_COLOR.
    public func rendered(_ format: OutputFormat) -> String { rendered(format, style: Console.outStyle) }
}
