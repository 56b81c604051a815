import LoomCore
import LuaRuntime

/// An item view registered by a Lua plugin (`host.item`).
final class LuaItemBuilder: ItemBuilding {
    unowned let engine: PluginEngine
    let function: LuaRef
    let kind: String
    let plugin: PluginInfo
    let owner: Int32
    let exhausted = ExhaustedMark()

    init(engine: PluginEngine, function: LuaRef, kind: String, plugin: PluginInfo, owner: Int32) {
        self.engine = engine
        self.function = function
        self.kind = kind
        self.plugin = plugin
        self.owner = owner
    }

    func build(_ item: Item, context: ResolutionContext) -> Result<BuildOutput, BuildFailure> {
        if let cached = engine.itemViewCache[ObjectIdentifier(item)] {
            return .success(cached)
        }
        if exhausted.isSet, let f = exhausted.failure(in: context) { return .failure(f) }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        context.pluginCalls += 1
        let previousOwner = engine.enter(owner)
        defer { engine.leave(previousOwner) }
        state.push(function)
        do {
            try engine.pushItem(item)
            try state.pcall(nargs: 1, nresults: 1)
        } catch {
            exhausted.note(error, in: context)
            return .failure(engine.failure(error))
        }
        let result = engine.readBuildResult(what: "the item view '\(kind)' (plugin \(plugin.name))", childrenIndex: nil)
        if case .success(let out) = result {
            engine.itemViewCache[ObjectIdentifier(item)] = out
            engine.retained.append(item)
        }
        return result
    }
}
