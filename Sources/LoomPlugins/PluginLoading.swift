import Foundation
import LoomCore
import LoomWorkspace
import LuaRuntime
import OrderedCollections

/// Loading plugin folders: plugin.lua, its table, and its `register`.
extension PluginEngine {
    /// Loads every plugin folder in order, each plugin.lua read up to `limits`. Failures are
    /// collected; the others go on.
    public func load(folders: [PluginFolder], limits: FileLimits) {
        for f in folders { load(folder: f, limits: limits) }
    }

    func read(_ path: String, limits: FileLimits) -> String? {
        if let v = StandardPlugins.virtualFiles[path] { return v }
        return try? SafeFile.readString(path, limits: limits)
    }

    func fail(_ name: String, _ file: String, _ line: Int?, _ message: String) {
        let where_ = line.map { "\(file):\($0)" } ?? file
        diagnostics.append(.error("plugin \(name) (\(where_)): \(message)", at: SourceLocation(file: file, line: line ?? 0, column: 0)))
    }

    func fail(_ name: String, _ e: LuaError, fallbackFile: String) {
        fail(name, e.file.map(sandbox.fullPath) ?? fallbackFile, e.line, e.message)
    }

    /// A Lua error's location with Lua's `...` shortening undone.
    func location(of e: LuaError) -> String? {
        guard let f = e.file else { return nil }
        let full = sandbox.fullPath(f)
        return e.line.map { "\(full):\($0)" } ?? full
    }

    public func load(folder: PluginFolder, limits: FileLimits) {
        let file = folder.path + "/plugin.lua"
        var name = folder.name
        let top = state.top
        defer { state.top = top }
        guard let source = read(file, limits: limits) else {
            fail(name, file, nil, "cannot read plugin.lua")
            diagnostics.markLastErrorAsRootCause(RootCause(plugin: name, names: []))
            plugins.append(LoadedPlugin(info: PluginInfo(name: name, version: "?", folder: folder.path), file: file, loaded: false))
            return
        }
        var info = PluginInfo(name: name, version: "?", folder: folder.path)
        let owner = newOwner(name)
        let previousOwner = enter(owner)
        defer { leave(previousOwner) }
        sandbox.noteFile(file)
        func failed() {
            // Fail closed: nothing a failed plugin registered stays in the factory.
            factory.removeRegistrations(of: info.name)
            luaFlows.removeAll { $0.plugin.name == info.name }
            plugins.append(LoadedPlugin(info: info, file: file, loaded: false))
            // Printed first, with the errors about what it would have registered under it.
            diagnostics.markLastErrorAsRootCause(RootCause(plugin: info.name, names: LuaStringLiterals.of(source)))
        }
        do {
            try sandbox.pushEnvironment(label: name, folder: folder.path)
            // `ui`: creating nodes inside builders (docs/plugin-api.md, "Creating nodes: ui.*").
            pushUITable()
            state.setField(-2, "ui")
            try sandbox.loadChunk(source: source, chunkName: file, envIndex: -1)
            try state.pcall(nargs: 0, nresults: 1)
        } catch {
            fail(name, error, fallbackFile: file)
            return failed()
        }
        // The returned table: name, version, api, register.
        guard state.type(-1) == .table else {
            fail(name, file, nil, "plugin.lua must return a table { name = ..., version = ..., api = \(LoomVersion.pluginAPI), register = function(host) ... end }, but it returned \(state.type(-1) == .nil ? "nothing" : "a " + state.typeName(-1))")
            return failed()
        }
        let t = state.absIndex(-1)
        state.getField(t, "name")
        if let n = state.toString(-1), !n.isEmpty { name = n } else {
            fail(name, file, nil, "the plugin table needs 'name', a non-empty string")
            return failed()
        }
        state.pop(1)
        info.name = name
        if plugins.contains(where: { $0.info.name == name && $0.loaded }) {
            let other = plugins.first { $0.info.name == name }!
            fail(name, file, nil, "a plugin named '\(name)' is already loaded from \(other.file)")
            return failed()
        }
        state.getField(t, "version")
        guard let version = state.toString(-1) else {
            fail(name, file, nil, "the plugin table needs 'version', a string such as \"1.0.0\"")
            return failed()
        }
        state.pop(1)
        info.version = version
        state.getField(t, "api")
        guard state.isInteger(-1), let api = state.toInt(-1) else {
            fail(name, file, nil, "the plugin table needs 'api', the host API major version it targets (this host provides api = \(LoomVersion.pluginAPI))")
            return failed()
        }
        state.pop(1)
        guard api == LoomVersion.pluginAPI else {
            fail(name, file, nil, "plugin targets host API \(api), but this host provides API \(LoomVersion.pluginAPI)")
            return failed()
        }
        state.getField(t, "register")
        guard state.type(-1) == .function else {
            fail(name, file, nil, "the plugin table needs 'register', a function(host)")
            return failed()
        }
        pushHostTable(info: info, owner: owner)
        registering = info
        registeringFile = file
        defer { registering = nil }
        do {
            try state.pcall(nargs: 1, nresults: 0)
        } catch {
            fail(name, error, fallbackFile: file)
            return failed()
        }
        plugins.append(LoadedPlugin(info: info, file: file, loaded: true))
    }
}
