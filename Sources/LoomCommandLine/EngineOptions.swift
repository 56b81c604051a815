import ArgumentParser
import Foundation
import LoomCore
import LoomCommands
import LoomStyles
import LoomWorkspace

/// Options every command that loads plugins shares.
public struct EngineOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("The project folder (default: the folder holding loom.json above the screen, else the current folder).", valueName: "dir"))
    public var project: String?

    @Option(name: .customLong("plugins"), help: ArgumentHelp("A plugin folder, or a folder of plugin folders, loaded after the project's (repeatable).", valueName: "dir"))
    public var plugins: [String] = []

    @Option(name: .customLong("lua-time-limit"), parsing: .unconditional, help: ArgumentHelp("Time budget of every call into Lua, in milliseconds (\(NumericFlag.luaTimeLimit.text); default: 100).", valueName: "ms"), transform: NumericFlag.luaTimeLimit.parse)
    public var luaTimeLimit: Int = 100

    @Option(name: .customLong("lua-memory-limit"), parsing: .unconditional, help: ArgumentHelp("Memory cap on what each plugin's code holds, in MiB: every plugin (and every scenario file) is capped on its own, and the host's own tables are not counted (\(NumericFlag.luaMemoryLimit.text); default: 64).", valueName: "mb"), transform: NumericFlag.luaMemoryLimit.parse)
    public var luaMemoryLimit: Int = 64

    @Option(name: .customLong("lua-total-time-limit"), parsing: .unconditional, help: ArgumentHelp("Time budget of all the Lua one Lua state runs (every call together; one state per worker), in seconds (\(NumericFlag.luaTotalTimeLimit.text); default: 60).", valueName: "seconds"), transform: NumericFlag.luaTotalTimeLimit.parse)
    public var luaTotalTimeLimit: Int = 60

    @Option(name: .customLong("max-file-size"), parsing: .unconditional, help: ArgumentHelp("Largest file the host reads (screens, loom.json, users.json, flows.json, plugin.lua, scenarios, snapshots), in MiB (\(NumericFlag.maxFileSize.text); default: \(FileLimits.defaultMegabytes)).", valueName: "mb"), transform: NumericFlag.maxFileSize.parse)
    public var maxFileSize: Int = FileLimits.defaultMegabytes

    @Flag(name: .long, help: "Print what plugins log (print, host.log) to stderr.")
    public var verbose = false

    public func validate() throws {
        // Also checked here for values that bypass parsing (the defaults).
        try NumericFlag.luaTimeLimit.check(luaTimeLimit)
        try NumericFlag.luaMemoryLimit.check(luaMemoryLimit)
        try NumericFlag.luaTotalTimeLimit.check(luaTotalTimeLimit)
        try NumericFlag.maxFileSize.check(maxFileSize)
    }

    /// The plugin (Lua) limits these options set (every value range-checked: no overflow).
    public var limits: PluginLimits {
        PluginLimits(timeBudgetMilliseconds: luaTimeLimit, memoryMegabytes: luaMemoryLimit,
                  totalTimeBudgetMilliseconds: luaTotalTimeLimit * 1000)
    }

    /// The file size cap these options set (`--max-file-size`), handed to every read through
    /// the workspace options (range-checked in `validate`: no overflow).
    public var fileLimits: FileLimits { FileLimits(megabytes: maxFileSize) }

    public var workspaceOptions: Workspace.Options {
        var o = Workspace.Options()
        o.project = project
        o.extraPluginDirs = plugins
        o.limits = limits
        o.fileLimits = fileLimits
        o.verbose = verbose
        // The Lua engine (LoomCommands): every workspace opened with these options, here or on
        // worker threads, loads its plugins into one.
        return o.withLuaPlugins
    }

    /// The same, for resolutions on a device context (`--device`, `--orientation`, `--traits`;
    /// nil: the default device, not chosen): every workspace a command opens gets it.
    public func workspaceOptions(device: DeviceContext?) -> Workspace.Options {
        var o = workspaceOptions
        o.device = device
        return o
    }

    /// The workspace of a command; `screen` (a file or an id) locates the project when
    /// `--project` is not given (`Workspace.projectRoot(explicit:screen:)`).
    public func workspace(screen: String?) throws -> Workspace {
        do {
            return try Workspace.open(options: workspaceOptions, anchor: screen)
        } catch {
            Console.error("cannot start the Lua runtime: \(error)")
            throw ExitCode(1)
        }
    }
}
