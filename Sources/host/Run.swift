import ArgumentParser
import Foundation
import LoomCommands
import LoomCore
import LoomWorkspace
import LoomStyles

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Resolve a screen for a user: print the tree they see and the navigation graph they can walk.",
        discussion: """
            SCREEN is a screen file (native, Matrioska or Spots JSON) or a screen id in the project's screens folder.
            Diagnostics go to stderr as path:line:column: error|warning: message. Exit status: 0 success, 1 errors in inputs.
            """)

    @Argument(help: "The screen file or screen id.")
    var screen: String

    @OptionGroup var user: UserOptions
    @OptionGroup var params: ParamOptions
    @OptionGroup var dataOptions: DataOptions
    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(name: .long, help: "Show every rule's value, its sub-rules (and those skipped by short-circuit), and hidden components with why.")
    var explain = false

    @Flag(name: .customLong("no-graph"), help: "Do not explore the navigation graph.")
    var noGraph = false

    @Flag(name: .long, help: "Lay the screen out for the device (--device, default \(DeviceCatalog.defaultName); --orientation): each node's frame in screen points, then the layout's findings (docs/layout.md).")
    var layout = false

    @Option(name: .long, help: ArgumentHelp("Apply a patch file (Spots' append, prepend, insert, update, delete, reload; see docs/changes.md) before resolving, and report what changed (repeatable, applied in order).", valueName: "file"))
    var patch: [String] = []

    @OptionGroup var cacheOptions: CacheOptions

    /// The flags as the pipeline's request.
    func request() throws -> ScreenRequest {
        var compute: ScreenRequest.Compute = [.tree, .inputNotes]
        if explain { compute.insert(.explain) }
        if !noGraph { compute.insert(.graph) }
        if layout { compute.insert(.layout) }
        var r = ScreenRequest(screen: screen, user: try user.selection(), params: params.values, patches: patch,
                              device: deviceOptions.chosen, compute: compute)
        r.data = try dataOptions.values(limits: engine.fileLimits)
        r.state = try dataOptions.stateValues()
        return r
    }

    func run() throws {
        var cache: RunCacheEntry?
        // Data files given with --data (and --state) are not among the cache's hashed inputs: no cache then.
        if let key = cacheOptions.cacheKey, dataOptions.data.isEmpty, dataOptions.state.isEmpty {
            let c = RunCacheEntry(options: cacheOptions, key: key, screen: screen, engine: engine, user: user, patches: patch,
                                  flags: ["explain=\(explain)", "graph=\(!noGraph)", "layout=\(layout)"] + params.hashed + deviceOptions.hashed)
            if c.serve(format: format, explain: explain) { return }
            cache = c
        }
        let ws = try engine.workspace(screen: screen)
        let result = ScreenPipeline.resolve(try request(), in: ws)
        if result.failure != nil {
            Console.report(result.diagnostics)
            throw ExitCode(1)
        }
        Console.out(result.rendered(format))
        cache?.save(result)
        if Console.report(result.diagnostics) { throw ExitCode(1) }
    }
}
