import CLua
import Foundation
import LoomCore
import LuaRuntime
import OrderedCollections

/// A plugin loaded (or not) into an engine.
public struct LoadedPlugin: Sendable {
    public var info: PluginInfo
    public var file: String
    public var loaded: Bool
}

/// Lua plugins feeding one shared factory, in one Lua state. One engine per thread: the state,
/// the factory's builders and every reference belong to the thread that made them.
public final class PluginEngine {
    public let sandbox: Sandbox
    public var state: LuaState { sandbox.state }
    public let factory = Factory()
    public private(set) var plugins: [LoadedPlugin] = []
    public private(set) var diagnostics = Diagnostics()
    /// Flows registered with `host.flow`, in registration order.
    public private(set) var luaFlows: [LuaFlowRegistration] = []
    /// Lines written with `print` / `host.log`: (plugin, line).
    public private(set) var log: [(String, String)] = []
    public var logToStderr = false

    /// The plugin whose `register` is running (registration is refused otherwise).
    var registering: PluginInfo?
    var registeringFile = ""
    /// Who owns what Lua allocates (memory is capped per owner): one id per plugin folder
    /// loaded, and one per scenario file; index `id - 1` names it.
    public private(set) var ownerNames: [String] = []

    /// A new owner id for code labelled `label` (a plugin's or a scenario file's).
    public func newOwner(_ label: String) -> Int32 {
        ownerNames.append(label)
        return Int32(ownerNames.count)
    }

    /// Makes `owner` the one Lua allocations are charged to and returns the previous owner
    /// (restore it with `leave`). Calls nest: a scenario's `t:open` runs plugins' rules.
    @inline(__always)
    public func enter(_ owner: Int32) -> Int32 {
        let previous = state.currentOwner
        if previous != owner { state.currentOwner = owner }
        return previous
    }

    @inline(__always)
    public func leave(_ previous: Int32) {
        if state.currentOwner != previous { state.currentOwner = previous }
    }

    // Caches of read-only Lua tables, built once per component / item / rule argument.
    /// Registry references of node tables by component / item identity. They live as long as
    /// the state (no per-call reference counting on the hot path); `retained` keeps the objects
    /// alive so an identity is never reused.
    @exclusivity(unchecked) var nodeRefs = IdentityMap()
    var retained: [AnyObject] = []
    @exclusivity(unchecked) var argRefs: [SourceLocation: Int32] = [:]
    @exclusivity(unchecked) var argsBySubject = IdentityMap()
    @exclusivity(unchecked) var argLists: [[(SourcePosition, Int32)]] = []
    /// Builders are deterministic (a contract): a single component's output depends on its node
    /// only, an item view's on its item only, so both are cached per component / item.
    @exclusivity(unchecked) var singleCache: [ObjectIdentifier: BuildOutput] = [:]
    @exclusivity(unchecked) var itemViewCache: [ObjectIdentifier: BuildOutput] = [:]
    /// Resolved item tables handed to collection builders (frozen; user-independent).
    @exclusivity(unchecked) var itemTables: [ObjectIdentifier: Int32] = [:]
    @exclusivity(unchecked) var singleTables: [ObjectIdentifier: Int32] = [:]
    @exclusivity(unchecked) var metaRefs: [ObjectIdentifier: Int32] = [:]
    var navRef: LuaRef?

    public init(limits: LuaLimits = .default) throws(LuaError) {
        sandbox = try Sandbox(limits: limits)
        sandbox.virtualFiles = StandardPlugins.virtualFiles
        sandbox.logSink = { [unowned self] label, line in
            self.log.append((label, line))
            if self.logToStderr { FileHandle.standardError.write(Data("[\(TextEscape.escaped(label))] \(TextEscape.escaped(line))\n".utf8)) }
        }
    }

    // MARK: Loading

    /// Loads every plugin folder in order. Failures are collected; the others go on.
    public func load(folders: [PluginFolder]) {
        for f in folders { load(folder: f) }
    }

    func read(_ path: String) -> String? {
        if let v = StandardPlugins.virtualFiles[path] { return v }
        return try? SafeFile.readString(path)
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

    public func load(folder: PluginFolder) {
        let file = folder.path + "/plugin.lua"
        var name = folder.name
        let top = state.top
        defer { state.top = top }
        guard let source = read(file) else {
            fail(name, file, nil, "cannot read plugin.lua")
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
        }
        do {
            try sandbox.pushEnvironment(label: name, folder: folder.path)
            try sandbox.loadChunk(source: source, chunkName: file, envIndex: -1)
            try state.pcall(nargs: 0, nresults: 1)
        } catch {
            fail(name, error, fallbackFile: file)
            return failed()
        }
        // The returned table: name, version, api, register.
        guard state.type(-1) == LUA_TTABLE else {
            fail(name, file, nil, "plugin.lua must return a table { name = ..., version = ..., api = \(LoomVersion.pluginAPI), register = function(host) ... end }, but it returned \(state.type(-1) == LUA_TNIL ? "nothing" : "a " + state.typeName(-1))")
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
        guard state.type(-1) == LUA_TFUNCTION else {
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

    // MARK: The host table

    /// The caller's `file:line` (level 1: the Lua function that called the host function).
    func callerLocation() -> SourceLocation {
        var ar = lua_Debug()
        if lua_getstack(state.L, 1, &ar) != 0, lua_getinfo(state.L, "Sl", &ar) != 0 {
            // `source` is the full chunk name ("@path"); `short_src` may be shortened.
            var src = ar.source.map { String(cString: $0) } ?? ""
            if src.hasPrefix("@") {
                src.removeFirst()
            } else {
                src = withUnsafeBytes(of: ar.short_src) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            }
            return SourceLocation(file: src, line: Int(ar.currentline), column: 0)
        }
        return SourceLocation(file: registeringFile)
    }

    func pushHostTable(info: PluginInfo, owner: Int32) {
        state.newTable()
        let kinds: [(String, ComponentKind)] = [("single", .single), ("wrapper", .wrapper), ("cluster", .cluster), ("collection", .collection)]
        for (fname, kind) in kinds {
            state.pushFunction { [unowned self] call in self.registerComponent(call, kind: kind, fname: fname, info: info, owner: owner) }
            state.setField(-2, fname)
        }
        state.pushFunction { [unowned self] call in self.registerItem(call, info: info, owner: owner) }
        state.setField(-2, "item")
        state.pushFunction { [unowned self] call in self.registerRule(call, info: info, owner: owner) }
        state.setField(-2, "rule")
        state.pushFunction { [unowned self] call in self.registerFlow(call, info: info, owner: owner) }
        state.setField(-2, "flow")
        state.pushFunction { [unowned self] call in
            // Bounded: the line is built up to just past the log cap (the sink cuts and marks a
            // line that crosses it), copying only that much of each string, however many
            // arguments (or references to one huge string) there are.
            let cap = self.sandbox.logCapBytes + 1
            var line = ""
            for i in 1...max(1, call.count) where i <= call.count {
                if i > 1 { line += "\t" }
                let room = cap - line.utf8.count
                if room <= 0 { break }
                switch call.type(i) {
                case LUA_TSTRING: line += call.state.boundedString(i, maxBytes: room)
                case LUA_TNUMBER:
                    if call.state.isInteger(i) { line += String(call.state.toInt(i) ?? 0) } else {
                        line += String(format: "%.14g", call.state.toDouble(i) ?? 0)
                    }
                case LUA_TBOOLEAN: line += call.state.toBool(i) ? "true" : "false"
                case LUA_TNIL: line += "nil"
                default: line += call.typeName(i)
                }
            }
            self.sandbox.logSink?(info.name, line)
            return .success(0)
        }
        state.setField(-2, "log")
        state.push(LoomVersion.pluginAPI)
        state.setField(-2, "api")
        state.push(LoomVersion.string)
        state.setField(-2, "version")
    }

    func checkRegistering(_ what: String, _ info: PluginInfo) -> LuaHostError? {
        guard let r = registering, r.name == info.name else {
            return LuaHostError("host.\(what): registration works only while register runs (plugin \(info.name))")
        }
        return nil
    }

    /// Reads an options table at `index` into JSON, keeping function fields apart.
    func options(at index: Int32, functions: [String]) -> Result<(JSONValue, [String: LuaRef]), LuaHostError> {
        guard state.type(index) != LUA_TNIL, state.type(index) != LUA_TNONE else { return .success((.object([:]), [:])) }
        guard state.type(index) == LUA_TTABLE else { return .failure(LuaHostError("options must be a table, found a \(state.typeName(index))")) }
        var refs: [String: LuaRef] = [:]
        for f in functions {
            state.getField(index, f)
            if state.type(-1) == LUA_TFUNCTION {
                refs[f] = state.ref()
            } else if state.type(-1) != LUA_TNIL {
                let tn = state.typeName(-1)
                state.pop(1)
                return .failure(LuaHostError("options.\(f) must be a function, found a \(tn)"))
            } else {
                state.pop(1)
            }
        }
        // Copy without the function fields.
        state.newTable()
        let copy = state.absIndex(-1)
        state.forEachPair(index) {
            if let k = state.toString(-2), functions.contains(k) { return }
            state.pushCopy(-2)
            state.pushCopy(-2)
            lua_rawset(state.L, copy)
        }
        let r = state.json(at: copy)
        state.pop(1)
        return r.map { ($0, refs) }
    }

    func registerComponent(_ call: LuaCall, kind: ComponentKind, fname: String, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering(fname, info) { return .failure(e) }
        let loc = callerLocation()
        guard let type = call.string(1), !type.isEmpty else {
            return .failure(LuaHostError("host.\(fname)(type, build, options): type must be a non-empty string"))
        }
        guard call.type(2) == LUA_TFUNCTION else {
            return .failure(LuaHostError("host.\(fname)('\(type)', build, options): build must be a function, found a \(call.typeName(2))"))
        }
        let opts: JSONValue
        switch options(at: 3, functions: []) {
        case .success(let o): opts = o.0
        case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
        }
        guard case .object(let o) = opts else { return .failure(LuaHostError("host.\(fname)('\(type)'): options must be a table")) }
        var meta: MetaSchema?
        var childMeta: MetaSchema?
        if let m = o["meta"] {
            switch MetaSchema.parse(m, path: "options.meta") {
            case .success(let s): meta = s
            case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
            }
        }
        if let m = o["child_meta"] {
            switch MetaSchema.parse(m, path: "options.child_meta") {
            case .success(let s): childMeta = s
            case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
            }
        }
        var layout: ArgumentSchema?
        if let l = o["layout"] {
            switch ArgumentSchema.parseArguments(l, path: "options.layout") {
            case .success(let s): layout = s
            case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
            }
        }
        var renamed: [String: String] = [:]
        if case .object(let r)? = o["renamed"] {
            for (k, v) in r { if case .string(let s) = v { renamed[k] = s } }
        }
        var aliases: [String] = []
        if case .array(let a)? = o["aliases"] {
            for v in a { if case .string(let s) = v { aliases.append(s) } }
        }
        var openMeta = false
        if case .bool(let b)? = o["open_meta"] { openMeta = b }
        var itemView = "ItemView"
        if case .string(let s)? = o["item_view"] { itemView = s }
        var description: String?
        if case .string(let s)? = o["description"] { description = s }
        state.pushCopy(2)
        let builder = LuaComponentBuilder(engine: self, function: state.ref(), kind: kind, type: type, plugin: info, owner: owner)
        let reg = ComponentRegistration(
            type: type, kind: kind, plugin: info, location: loc, meta: meta, openMeta: openMeta, renamed: renamed,
            childMeta: childMeta, aliases: aliases, itemView: itemView, description: description, layout: layout, builder: builder)
        do {
            try factory.register(reg)
        } catch {
            diagnostics.append(error)
        }
        return .success(0)
    }

    func registerItem(_ call: LuaCall, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering("item", info) { return .failure(e) }
        let loc = callerLocation()
        guard let kind = call.string(1), !kind.isEmpty else { return .failure(LuaHostError("host.item(kind, build): kind must be a non-empty string")) }
        guard call.type(2) == LUA_TFUNCTION else { return .failure(LuaHostError("host.item('\(kind)', build): build must be a function, found a \(call.typeName(2))")) }
        state.pushCopy(2)
        let b = LuaItemBuilder(engine: self, function: state.ref(), kind: kind, plugin: info, owner: owner)
        do { try factory.register(ItemRegistration(kind: kind, plugin: info, location: loc, builder: b)) } catch { diagnostics.append(error) }
        return .success(0)
    }

    func registerRule(_ call: LuaCall, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering("rule", info) { return .failure(e) }
        let loc = callerLocation()
        guard let name = call.string(1), !name.isEmpty else { return .failure(LuaHostError("host.rule(name, evaluate, options): name must be a non-empty string")) }
        guard call.type(2) == LUA_TFUNCTION else { return .failure(LuaHostError("host.rule('\(name)', evaluate): evaluate must be a function, found a \(call.typeName(2))")) }
        if ["AND", "OR", "NOT", "and", "or", "not"].contains(name) {
            return .failure(LuaHostError("host.rule('\(name)'): AND, OR and NOT are operators, not rule names"))
        }
        let opts: (JSONValue, [String: LuaRef])
        switch options(at: 3, functions: ["check"]) {
        case .success(let o): opts = o
        case .failure(let e): return .failure(LuaHostError("host.rule('\(name)'): \(e.message)"))
        }
        var description: String?
        if case .object(let o) = opts.0, case .string(let s)? = o["description"] { description = s }
        // `args` (the argument schema) and `examples`, declared beside the rule.
        let declared: RuleDeclaration
        switch RuleDeclaration.parse(opts.0) {
        case .success(let d): declared = d
        case .failure(let e): return .failure(LuaHostError("host.rule('\(name)'): \(e.message)"))
        }
        state.pushCopy(2)
        let r = LuaRule(engine: self, function: state.ref(), check: opts.1["check"], name: name, plugin: info, owner: owner)
        do {
            try factory.register(RuleRegistration(
                name: name, plugin: info, location: loc, description: description, arguments: declared.arguments,
                examples: declared.examples, evaluator: r))
        } catch { diagnostics.append(error) }
        return .success(0)
    }

    func registerFlow(_ call: LuaCall, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering("flow", info) { return .failure(e) }
        let loc = callerLocation()
        guard let name = call.string(1), !name.isEmpty else { return .failure(LuaHostError("host.flow(name, spec): name must be a non-empty string")) }
        guard call.type(2) == LUA_TTABLE else { return .failure(LuaHostError("host.flow('\(name)', spec): spec must be a table, found a \(call.typeName(2))")) }
        let spec: (JSONValue, [String: LuaRef])
        switch options(at: 2, functions: ["navigate"]) {
        case .success(let o): spec = o
        case .failure(let e): return .failure(LuaHostError("host.flow('\(name)'): \(e.message)"))
        }
        if let other = luaFlows.first(where: { $0.name == name }) {
            diagnostics.error("flow '\(name)' is already registered by plugin \(other.plugin.name) (\(other.location)); plugin \(info.name) cannot register it again", at: loc)
            return .success(0)
        }
        luaFlows.append(LuaFlowRegistration(name: name, spec: spec.0, navigate: spec.1["navigate"], plugin: info, location: loc, owner: owner))
        return .success(0)
    }
}

/// A flow registered with `host.flow`, before the navigation model adopts it.
public struct LuaFlowRegistration {
    public var name: String
    public var spec: JSONValue
    public var navigate: LuaRef?
    public var plugin: PluginInfo
    public var location: SourceLocation
    /// The plugin's owner id (see `PluginEngine.newOwner`).
    public var owner: Int32
}
