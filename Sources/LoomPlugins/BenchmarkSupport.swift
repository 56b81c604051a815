import LoomCore
import LuaRuntime

/// Handles for measuring the host's own overhead against bare Lua calls (scripts/bench).
extension PluginEngine {
    /// The Lua function a registered rule calls.
    public func ruleFunction(named name: String) -> LuaRef? {
        factory.rules[name].flatMap { luaFunctions(of: $0.evaluator)?.evaluate }
    }

    /// The user table of a resolution context (made on first use) and a component's node table.
    public func benchmarkTables(context: ResolutionContext, component: Component) throws(LuaError) -> (user: Int32, node: Int32) {
        (try userRef(context, owner: 1), try nodeRef(component))
    }
}
