import ArgumentParser
import Foundation
import LoomCache
import LoomCommands
import LoomCore
import LoomWorkspace

/// `host run --cache-key KEY [--cache-dir DIR]`: Spots' view-state cache (docs/changes.md).
struct CacheOptions: ParsableArguments {
    @Option(name: .customLong("cache-key"), help: ArgumentHelp("Save the resolved screen under this key and, while no input changed, print the saved result instead of resolving.", valueName: "key"))
    var cacheKey: String?

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The cache folder (default: .loom/cache in the project).", valueName: "dir"))
    var cacheDir: String?

    func validate() throws {
        if let k = cacheKey, let problem = ViewStateCache.validate(key: k) { throw ValidationError(problem) }
        if cacheDir != nil && cacheKey == nil { throw ValidationError("--cache-dir needs --cache-key") }
    }

    /// The cache's folder and its writer: fenced by the project; the default folder must lie
    /// inside it, a `--cache-dir` named on the command line may lie anywhere (but no link
    /// inside the project is followed on the way).
    func cache(project: String, fileLimits: FileLimits) -> ViewStateCache {
        ViewStateCache(directory: cacheDir ?? Project.join(project, ".loom/cache"),
                       writer: SafeWriter(root: project, confined: cacheDir == nil), fileLimits: fileLimits)
    }
}

/// The inputs of one `host run` and what it printed, for the view-state cache.
struct RunCacheEntry {
    let cache: ViewStateCache
    let key: String
    let inputs: String
    /// Set when the cache cannot be used at all (a linked folder, a FIFO in its place): then
    /// nothing is saved either. A class box: `serve` and `save` are called on a `let`.
    private let refused = Flag()

    private final class Flag { var on = false }

    /// Hashes every input that can change what `host run` prints: the host's version, the
    /// project's loom.json, rules.json, users.json, flows.json, screens and styles folders, every
    /// plugin folder (the project's, `--plugins`, the standard ones), the patches, and the
    /// arguments (screen, user, context, now, flags, limits).
    init(options: CacheOptions, key: String, screen: String, engine: EngineOptions, user: UserOptions,
         patches: [String], flags: [String]) {
        let root = Workspace.projectRoot(explicit: engine.project, screen: screen)
        var inputs = RunInputs(projectRoot: root, screen: screen,
                               pluginDirs: engine.plugins + [PluginDiscovery.standardPluginsDirectory()],
                               fileLimits: engine.fileLimits)
        inputs.patches = patches
        inputs.arguments = ["user " + (user.user ?? "<anonymous>")] + user.allContext.map { "context " + $0 }
            + ["now " + (user.now ?? "<none>")] + flags.map { "flag " + $0 }
            + ["limits \(engine.luaTimeLimit) \(engine.luaMemoryLimit) \(engine.luaTotalTimeLimit) \(engine.maxFileSize)"]
        self.cache = options.cache(project: root, fileLimits: engine.fileLimits)
        self.key = key
        self.inputs = inputs.hash
    }

    /// Prints a saved result when there is one for these inputs; reports an unusable file.
    func serve(format: OutputFormat, explain: Bool) -> Bool {
        switch cache.lookup(key: key, inputs: inputs) {
        case .hit(let entry):
            guard let out = entry[format.rawValue]?.string else { return false }
            Console.out(out)
            let stderr = entry["stderr"]?.string ?? ""
            if !stderr.isEmpty { FileHandle.standardError.write(Data(stderr.utf8)) }
            if explain {
                Console.report(Diagnostics([.note("served from the view-state cache: key '\(key)', \(cache.path(key: key)) (every input unchanged)")]))
            }
            return true
        case .miss:
            if explain { Console.report(Diagnostics([.note("view-state cache miss for key '\(key)': resolving, then saving to \(cache.path(key: key))")])) }
            return false
        case .unusable(let d):
            Console.report(Diagnostics([d]))
            return false
        case .refused(let d):
            Console.report(Diagnostics([d]))
            refused.on = true
            return false
        }
    }

    /// Saves a result that resolved without errors (a failed resolution is never served again).
    func save(_ report: ScreenResult) {
        guard !report.diagnostics.hasErrors, !refused.on else { return }
        let plain = Style(color: false)
        var stderr = ""
        for d in report.diagnostics.sorted { stderr += TreeOutput.diagnosticLine(d, style: plain) + "\n" }
        let entry: JSONValue = .object([
            "screen": .string(report.resolution?.screen ?? ""),
            "text": .string(report.rendered(.text, style: plain)),
            "json": .string(report.rendered(.json)),
            "stderr": .string(stderr),
        ])
        do { try cache.save(key: key, inputs: inputs, entry: entry) } catch {
            Console.report(Diagnostics([.warning("the view-state cache was not saved: \(error.message)")]))
        }
    }
}
