import CLua

/// Where the running Lua code is.
extension LuaState {
    /// The file and line of the function `level` frames up the running thread's stack (0: the
    /// running function, 1: its caller, …), nil when there is no such frame. The file is the
    /// chunk name without its "@" (or Lua's short source for other chunks); nil when
    /// `withFile` is false (only the line is looked up then).
    public func callerLocation(level: Int32, withFile: Bool = true) -> (file: String?, line: Int)? {
        var ar = lua_Debug()
        guard lua_getstack(L, level, &ar) != 0, lua_getinfo(L, withFile ? "Sl" : "l", &ar) != 0 else { return nil }
        guard withFile else { return (nil, Int(ar.currentline)) }
        // `source` is the full chunk name ("@path"); `short_src` may be shortened.
        var src = ar.source.map { String(cString: $0) } ?? ""
        if src.hasPrefix("@") {
            src.removeFirst()
        } else {
            src = LuaState.shortSource(ar)
        }
        return (src, Int(ar.currentline))
    }
}

extension LuaState {
    /// The fixed parameters a referenced Lua function declares and whether it also takes `...`
    /// (nil when the reference is not a function). A C function counts as taking `...`. A
    /// function declaring `n` parameters and no `...` cannot see an `n + 1`-th argument.
    public func parameters(of r: LuaRef) -> (fixed: Int, vararg: Bool)? {
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        push(r)
        guard lua_type(L, -1) == LUA_TFUNCTION else { return nil }
        var ar = lua_Debug()
        // ">u": the function on the top (popped), its parameter count and vararg flag.
        guard lua_getinfo(L, ">u", &ar) != 0 else { return nil }
        return (Int(ar.nparams), ar.isvararg != 0)
    }
}
