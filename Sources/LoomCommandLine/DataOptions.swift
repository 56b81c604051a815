import ArgumentParser
import LoomCore
import LoomWorkspace

/// `--data NAME=FILE` (repeatable): data given with the request, replacing the screen's
/// declared source of that name (docs/data.md).
public struct DataOptions: ParsableArguments {
    public init() {}

    @Option(name: .customLong("data"), help: ArgumentHelp("Data for the screen's data source NAME, read from a JSON file; replaces the source the screen declares by that name (repeatable; docs/data.md).", valueName: "name=file"))
    public var data: [String] = []

    /// The values by source name, each file read through the safe reader under `limits`.
    public func values(limits: FileLimits) throws -> [String: DataValue] {
        switch DataRequest.commandLine(data, limits: limits) {
        case .success(let v): return v
        case .failure(let d): throw ValidationError(d.description)
        }
    }

    @Option(name: .customLong("state"), help: ArgumentHelp("A starting value of the screen's state NAME (declared in its \"state\"), typed as the declared value: true/false, a number, text (repeatable; docs/data.md, \"State\").", valueName: "name=value"))
    public var state: [String] = []

    /// The `--state NAME=VALUE` values by name (typed against the screen's declaration later).
    public func stateValues() throws -> [String: ScreenState.Input] { try Self.stateValues(state) }

    /// `NAME=VALUE` entries by name (`--state` of `host run` and `host navigate`).
    public static func stateValues(_ state: [String]) throws -> [String: ScreenState.Input] {
        var out: [String: ScreenState.Input] = [:]
        for e in state {
            guard let eq = e.firstIndex(of: "="), eq != e.startIndex else {
                throw ValidationError("--state takes NAME=VALUE (a state name the screen declares and its starting value), found '\(TextEscape.escaped(e))'")
            }
            let name = String(e[..<eq])
            guard TemplateExpander.isName(name) else {
                throw ValidationError("--state: '\(TextEscape.escaped(name))' is not a state name (letters, digits, _)")
            }
            guard out[name] == nil else { throw ValidationError("--state \(name)= is given twice") }
            out[name] = .text(String(e[e.index(after: eq)...]))
        }
        return out
    }

    /// For the view-state cache's inputs: each `NAME=FILE` (the files' contents are hashed by the caller).
    public var hashed: [String] { data.sorted().map { "data \($0)" } + state.sorted().map { "state \($0)" } }
}
