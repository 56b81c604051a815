import LoomCore
import LoomPlugins
import LoomWorkspace

/// Where a workspace gets its plugin engine: the one place above both LoomWorkspace (which
/// reaches plugins through `PluginHost`) and LoomPlugins (Lua). Commands open workspaces here
/// and never import LuaRuntime, CLua or LoomPlugins themselves.
public extension Workspace {
    /// Opens the project of `options` (`anchor`: a screen argument locating it, see
    /// `Workspace.projectRoot`) with its plugins loaded into a Lua engine, unless the options
    /// name another plugin host. Throws only when the Lua runtime cannot start; problems with the
    /// project are the workspace's diagnostics.
    static func open(options: Options, anchor: String? = nil) throws -> Workspace {
        try Workspace(options: options.withLuaPlugins, anchor: anchor)
    }
}

public extension Workspace.Options {
    /// These options with the Lua engine as plugin host (kept when they name one already):
    /// for options handed to code that opens workspaces on its own threads (`host eval`,
    /// `host matrix`, `host serve`'s workers, `host diff`'s old side).
    var withLuaPlugins: Workspace.Options {
        var o = self
        if o.pluginHost == nil { o.pluginHost = PluginEngine.host }
        return o
    }
}
