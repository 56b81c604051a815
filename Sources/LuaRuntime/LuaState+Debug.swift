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
            src = withUnsafeBytes(of: ar.short_src) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return (src, Int(ar.currentline))
    }
}
