import LoomCore
import LoomWorkspace
import LuaRuntime

/// The Lua engine as LoomWorkspace's plugin host: what a workspace asks of its plugins.
extension PluginEngine: PluginHost {
    /// Makes a Lua engine for a workspace being opened (`Workspace.Options.pluginHost`).
    public static let host: PluginHostFactory = { limits in try PluginEngine(limits: LuaLimits(limits)) }

    public var registeredFlows: [RegisteredFlow] {
        luaFlows.map { RegisteredFlow(name: $0.name, plugin: $0.plugin, location: $0.location) }
    }

    public func withRequestBudget<T>(deadline: Deadline?, _ body: () -> T) -> T {
        // The whole total-time budget (--lua-total-time-limit) for this request, but no more
        // than the deadline (--request-timeout) leaves: past it every call into Lua fails at
        // once, as when the total budget is spent.
        state.resetTotalTime()
        let configured = state.limits
        if let deadline {
            let left = Int64(deadline.remaining * 1e9)
            var l = configured
            l.totalTimeBudgetNanoseconds = configured.totalTimeBudgetNanoseconds > 0 ? min(configured.totalTimeBudgetNanoseconds, max(1, left)) : max(1, left)
            state.limits = l
        }
        defer { state.limits = configured }
        return body()
    }
}

extension LuaLimits {
    /// The Lua limits of plain plugin limits (values range-checked by whoever took them).
    public init(_ limits: PluginLimits) {
        self.init(timeBudgetMilliseconds: limits.timeBudgetMilliseconds, memoryMegabytes: limits.memoryMegabytes,
                  totalTimeBudgetMilliseconds: limits.totalTimeBudgetMilliseconds)
    }
}

extension Workspace {
    /// The workspace's Lua engine, for Lua's own users (`host test`'s scenarios, coverage,
    /// benches). A workspace opened with another plugin host has none: asking is a programming
    /// error, not bad input.
    public var engine: PluginEngine {
        guard let e = pluginHost as? PluginEngine else {
            preconditionFailure("this workspace's plugins are not a Lua PluginEngine (\(type(of: pluginHost)))")
        }
        return e
    }
}
