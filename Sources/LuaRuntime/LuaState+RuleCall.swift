import CLua

/// The rule hot path: one C call per evaluation (loom_call_rule_packed).
extension LuaState {
    /// Calls `function(user, args, node)` (registry references; `args` < 0: nil) on the main
    /// thread with memory charged to `owner` and the time budget. Returns the boolean it
    /// returned, or nil when it returned something else (left on the stack for the caller to
    /// describe and pop); throws the error it raised or the limit it met.
    @inlinable
    public func callRule(owner: Int32, function: Int32, user: Int32, args: Int32, node: Int32) throws(LuaError) -> Bool? {
        let answer = LuaState.callRulePacked(mainThread, limits: limitsHandle, owner: owner, function: function, user: user, args: args, node: node)
        if answer == LuaState.ruleAnsweredTrue { return true }
        if answer == LuaState.ruleAnsweredFalse { return false }
        let status = LuaState.ruleStatus(answer)
        if _slowPath(status != LUA_OK) { throw popError(status: status, exceeded: LuaState.ruleExceeded(answer)) }
        return nil
    }

    /// `callRulePacked`'s answer for a call that returned true.
    @inlinable public static var ruleAnsweredTrue: Int32 { Int32(LOOM_RULE_TRUE) }
    /// `callRulePacked`'s answer for a call that returned false.
    @inlinable public static var ruleAnsweredFalse: Int32 { Int32(LOOM_RULE_FALSE) }
    /// The LUA_* status of a packed answer that is neither (`callRulePacked`): not LUA_OK, the
    /// error is on the stack for `popError(status:exceeded:)`; LUA_OK, the value returned is.
    @inlinable public static func ruleStatus(_ packed: Int32) -> Int32 { loom_rule_status(packed) }
    /// The LOOM_EXCEEDED_* of a packed answer (`callRulePacked`).
    @inlinable public static func ruleExceeded(_ packed: Int32) -> Int32 { loom_rule_exceeded(packed) }

    /// The benchmarks' baseline: `count` bare protected calls `function(user, nil, node)` of
    /// registry references, as plain C API calls (no budget, no owner switch, no message
    /// handler). Returns how many returned a true value.
    public func benchmarkBarePCall(function: Int32, user: Int32, node: Int32, count: Int) -> Int {
        let L = mainThread
        var trues = 0
        for _ in 0..<count {
            lua_rawgeti(L, loom_registry_index(), lua_Integer(function))
            lua_rawgeti(L, loom_registry_index(), lua_Integer(user))
            lua_pushnil(L)
            lua_rawgeti(L, loom_registry_index(), lua_Integer(node))
            if lua_pcallk(L, 3, 1, 0, 0, nil) == LUA_OK, lua_toboolean(L, -1) != 0 { trues += 1 }
            lua_settop(L, -2)
        }
        return trues
    }

    /// Bench `builder_call`'s baseline: `rounds` passes over `calls`, each
    /// `[function, argument…]` (registry references; a negative one pushes nil), each a bare
    /// protected call with one result (no budget, no owner switch, no message handler), popped.
    /// Returns how many calls returned a table.
    public func benchmarkBarePCalls(_ calls: [[Int32]], rounds: Int) -> Int {
        let L = mainThread
        var tables = 0
        for _ in 0..<rounds {
            for c in calls {
                for r in c { lua_rawgeti(L, loom_registry_index(), lua_Integer(r)) }
                if lua_pcallk(L, Int32(c.count - 1), 1, 0, 0, nil) == LUA_OK, lua_type(L, -1) == LUA_TTABLE { tables += 1 }
                lua_settop(L, -2)
            }
        }
        return tables
    }
}

/// Rule calls made from one call into C (`loom_call_rules`): set for one user, then made in
/// order, each as `LuaState.callRule` makes it alone (its budget, owner and error), until one is
/// not answered with a boolean (`host eval`'s calls of the rules every user's walk starts with).
/// The buffer is kept from user to user.
public struct RuleCallBatch {
    /// The calls set so far are the first `count`; the rest are an earlier user's, kept so that
    /// the next user's calls are written over them in place rather than appended again (a user's
    /// calls are mostly the same as the last user's).
    /// (Usable from inlined code: `append` is compiled into its callers in other modules, as
    /// it runs for every call `host eval` batches.)
    @usableFromInline var calls: [loom_rule_call] = []
    @usableFromInline var made = 0
    /// How many calls are set.
    public var count: Int { made }

    public init() {}

    public mutating func removeAll() { made = 0 }

    /// A call of `function(user, args, node)` by registry references (`args` < 0: nil), as `owner`.
    @inlinable
    public mutating func append(owner: Int32, function: Int32, user: Int32, args: Int32, node: Int32) {
        let c = loom_rule_call(owner: owner, fn_ref: function, user_ref: user, args_ref: args, node_ref: node)
        if made < calls.count { calls[made] = c } else { calls.append(c) }
        made += 1
    }
}
