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

    /// For the view-state cache's inputs: each `NAME=FILE` (the files' contents are hashed by the caller).
    public var hashed: [String] { data.sorted().map { "data \($0)" } }
}
