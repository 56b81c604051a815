import LoomCore
import LuaRuntime
import OrderedCollections

/// `host.data(NAME, function(ctx) … end)`: a data source given by plugin code (docs/data.md).
/// The function is called once per request that needs the source, sandboxed like rules and
/// flows (the plugin's time budget and memory cap), with a read-only `ctx`: `ctx.user` (the
/// user's attributes, `profile` added), `ctx.params` (the screen's parameters) and `ctx.now`
/// (the user's `now`, or nil). Its answer, converted to JSON, is the source's value.
final class LuaDataProvider: DataProviding {
    unowned let engine: PluginEngine
    let function: LuaRef
    let name: String
    let plugin: PluginInfo
    let owner: Int32
    let location: SourceLocation

    init(engine: PluginEngine, function: LuaRef, name: String, plugin: PluginInfo, owner: Int32, location: SourceLocation) {
        self.engine = engine
        self.function = function
        self.name = name
        self.plugin = plugin
        self.owner = owner
        self.location = location
    }

    func provide(user: UserProfile, params: [String: String]) -> Result<JSONValue, Diagnostic> {
        let previousOwner = engine.enter(owner)
        defer { engine.leave(previousOwner) }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        state.push(function)
        var attrs = user.attributes
        if attrs["profile"] == nil, let n = user.name { attrs["profile"] = .string(n) }
        var ctx: OrderedDictionary<String, JSONValue> = ["user": .object(attrs), "params": PluginEngine.paramsJSON(params)]
        if let now = user.attributes["now"] { ctx["now"] = now }
        do {
            state.push(json: .object(ctx), keepingOrder: true)
            try engine.sandbox.freezeTop(name: "ctx")
            try state.pcall(nargs: 1, nresults: 1)
        } catch {
            let at = error.file.map { SourceLocation(file: $0, line: error.line ?? 0, column: 0) } ?? location
            return .failure(.error("data provider '\(name)' (plugin \(plugin.name)) failed: \(error)", at: at))
        }
        switch state.json(at: -1) {
        case .success(let v): return .success(v)
        case .failure(let e):
            return .failure(.error("data provider '\(name)' (plugin \(plugin.name)) returned something that is not JSON data: \(e.message)", at: location))
        }
    }
}

extension PluginEngine {
    func registerData(_ call: LuaCall, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering("data", info) { return .failure(e) }
        let loc = callerLocation()
        guard let name = call.string(1), TemplateExpander.isName(name), !TemplateExpander.reservedRoots.contains(name) else {
            return .failure(LuaHostError("host.data(name, provide): name is a data source name (letters, digits, _; not params, state, user)"))
        }
        guard call.type(2) == .function else {
            return .failure(LuaHostError("host.data('\(name)', provide): provide must be a function, found a \(call.typeName(2))"))
        }
        state.pushCopy(2)
        let p = LuaDataProvider(engine: self, function: state.ref(), name: name, plugin: info, owner: owner, location: loc)
        do { try factory.register(DataProviderRegistration(name: name, plugin: info, location: loc, provider: p)) } catch { diagnostics.append(error) }
        return .success(0)
    }
}
