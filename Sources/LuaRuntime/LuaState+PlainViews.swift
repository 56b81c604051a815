import CLua

/// Plain views (loom_plain_view.c): `host eval`'s user view for rules that only read named
/// fields of the user, one plain table per plugin set again for each user.
extension LuaState {
    /// The names of the fields the function at registry reference `function` reads from its
    /// first parameter, when it uses that parameter for nothing else (`loom_rule_field_reads`:
    /// read from its bytecode); nil when it uses it otherwise, or is no Lua function.
    public func fieldReads(ofFunction function: Int32) -> [String]? {
        push(rawRef: function)
        defer { pop() }
        let n = loom_rule_field_reads(L, -1)
        guard n >= 0 else { return nil }
        defer { pop() }
        var keys: [String] = []
        keys.reserveCapacity(Int(n))
        for k in 0..<n {
            lua_rawgeti(L, -1, lua_Integer(k + 1))
            defer { pop() }
            guard let s = toString(-1) else { return nil }
            keys.append(s)
        }
        return keys
    }

    /// A new plain view of `keys` (`loom_plain_view_new`): the registry reference of the view, to
    /// set for each user (`setPlainView`), and of its table, to call rules with; nil when none
    /// can be made. The caller releases both (`release(rawRef:)`).
    public func newPlainView(keys: [String]) -> (view: Int32, table: Int32)? {
        guard keys.count <= 4096 else { return nil }
        lua_createtable(L, Int32(keys.count), 0)
        for (k, key) in keys.enumerated() {
            push(key)
            lua_rawseti(L, -2, lua_Integer(k + 1))
        }
        defer { pop() }
        guard loom_plain_view_new(L, -1) == 1 else { return nil }
        let view = rawRef()
        let table = loom_plain_view_table(L, view)
        guard table != LUA_NOREF else {
            release(rawRef: view)
            return nil
        }
        return (view, table)
    }
}
