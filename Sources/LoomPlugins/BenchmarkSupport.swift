import LoomCore
import LuaRuntime

/// Handles for measuring the host's own overhead against bare Lua calls (scripts/bench).
extension PluginEngine {
    /// The Lua functions behind a rule registered by a Lua plugin (nil for other evaluators).
    public func luaFunctions(of evaluator: RuleEvaluating) -> (evaluate: LuaRef, check: LuaRef?)? {
        guard let r = evaluator as? LuaRule else { return nil }
        return (r.function, r.checkFunction)
    }

    /// The Lua function a registered rule calls.
    public func ruleFunction(named name: String) -> LuaRef? {
        (factory.rules[name]?.evaluator as? LuaRule)?.function
    }

    /// The user table of a resolution context (made on first use) and a component's node table.
    public func benchmarkTables(context: ResolutionContext, component: Component) throws(LuaError) -> (user: Int32, node: Int32) {
        (try userRef(context, owner: 1), try nodeRef(component))
    }
}
