import CLua

/// Stack manipulation, raw table access, metatables and identities (no metamethod runs).
extension LuaState {
    /// Makes room for `n` more slots on the running thread's stack; false when it cannot grow.
    public func checkStack(_ n: Int32) -> Bool { lua_checkstack(L, n) != 0 }

    /// Rotates the slots from `index` to the top by `n` positions towards the top.
    public func rotate(_ index: Int32, _ n: Int32) { lua_rotate(L, index, n) }
    /// Moves the top value to `index`, shifting the values above it up.
    public func insert(_ index: Int32) { loom_insert(L, index) }
    /// Removes the value at `index`, shifting the values above it down.
    public func remove(_ index: Int32) { loom_remove(L, index) }

    /// t[key] = value, both popped (key below value); t at `table` (raw).
    public func rawSet(_ table: Int32) { lua_rawset(L, table) }
    /// Pops a key and pushes t[key] (raw); t at `table`.
    @discardableResult
    public func rawGet(_ table: Int32) -> LuaType { LuaType(lua_rawget(L, table)) }
    /// The next pair of the table at `table` after the key at the top (popped): pushes key and
    /// value and returns true, or pushes nothing and returns false at the end (raw, lua_next).
    public func next(_ table: Int32) -> Bool { lua_next(L, table) != 0 }

    /// Pops a table and makes it the metatable of the value at `index`.
    public func setMetatable(_ index: Int32) { lua_setmetatable(L, index) }
    /// Pushes the metatable of the value at `index` and returns true; pushes nothing and
    /// returns false when it has none.
    public func pushMetatable(_ index: Int32) -> Bool { lua_getmetatable(L, index) != 0 }

    // toPointer, identity and stringBytes are in Unsafe.swift.

    /// `nresults` for "all results" (LUA_MULTRET).
    public static let allResults: Int32 = LUA_MULTRET
}
