import LoomCore
import LoomNavigation

/// What a workspace asks of the plugins that fill its factory. LoomWorkspace opens projects
/// without knowing how plugins run (it imports no Lua); LoomPlugins' `PluginEngine` is the
/// implementation every command uses (LoomCommands' `Workspace.open` gives it), and a test may
/// give another. One host per workspace, used from the workspace's thread only.
public protocol PluginHost: AnyObject {
    /// The registrations plugins made (components, items, rules), which screens resolve with.
    var factory: Factory { get }
    /// Every plugin loaded or tried, in load order (`host plugins`).
    var plugins: [LoadedPlugin] { get }
    /// Problems loading plugins (each located in the plugin's file when it can be).
    var diagnostics: Diagnostics { get }
    /// Flows registered in plugin code, in registration order (`host plugins` lists them).
    var registeredFlows: [RegisteredFlow] { get }
    /// Whether what plugins log is also written to standard error (`--verbose`).
    var logToStderr: Bool { get set }
    /// Loads plugin folders in order; problems go to `diagnostics`, never thrown.
    func load(folders: [PluginFolder], limits: FileLimits)
    /// The flows plugins registered, as the navigation model reads them.
    func flowDefinitions(diagnostics: inout Diagnostics) -> [FlowDefinition]
    /// Runs `body` (one request of `host serve`) with the plugins' whole total-time budget, but
    /// no more than `deadline` leaves (nil: no deadline); the configured budget is restored after.
    func withRequestBudget<T>(deadline: Deadline?, _ body: () -> T) -> T
}

/// Makes the plugin host of a workspace being opened, with the limits of `Workspace.Options`.
/// `@Sendable`: options travel to worker threads, each opening its own workspace.
public typealias PluginHostFactory = @Sendable (PluginLimits) throws -> any PluginHost

/// The limits plugin code runs under (`--lua-time-limit`, `--lua-memory-limit`,
/// `--lua-total-time-limit`), as plain values: the plugin host turns them into its own.
public struct PluginLimits: Sendable, Hashable {
    /// Time budget of every call into plugin code, in milliseconds (0: none).
    public var timeBudgetMilliseconds: Int
    /// Memory cap of each plugin's code, in MiB (0: none).
    public var memoryMegabytes: Int
    /// Time budget of all plugin code one host runs, every call together, in milliseconds (0: none).
    public var totalTimeBudgetMilliseconds: Int

    public init(timeBudgetMilliseconds: Int = 100, memoryMegabytes: Int = 64, totalTimeBudgetMilliseconds: Int = 0) {
        self.timeBudgetMilliseconds = timeBudgetMilliseconds
        self.memoryMegabytes = memoryMegabytes
        self.totalTimeBudgetMilliseconds = totalTimeBudgetMilliseconds
    }

    public static let `default` = PluginLimits()
}

/// A plugin loaded (or not) into a plugin host.
public struct LoadedPlugin: Sendable {
    public var info: PluginInfo
    public var file: String
    public var loaded: Bool

    public init(info: PluginInfo, file: String, loaded: Bool) {
        self.info = info
        self.file = file
        self.loaded = loaded
    }
}

/// A flow registered in plugin code: its name, plugin and where it was registered.
public struct RegisteredFlow: Sendable {
    public var name: String
    public var plugin: PluginInfo
    public var location: SourceLocation

    public init(name: String, plugin: PluginInfo, location: SourceLocation) {
        self.name = name
        self.plugin = plugin
        self.location = location
    }
}

/// Why a workspace could not be opened (not a problem of the project: those are diagnostics).
public struct WorkspaceOpenError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
