import CLua

/// Raw registry references: plain numbers the caller releases itself (`LuaRef` releases its
/// own). The registry belongs to the state, so a reference made while a coroutine runs
/// outlives that coroutine; releases go through the main thread.
extension LuaState {
    /// Pops the top value into the registry and returns its reference.
    public func rawRef() -> Int32 { loom_ref(L) }

    /// Pushes the value of a raw reference.
    @inlinable
    public func push(rawRef r: Int32) { _ = loom_rawget_ref(L, lua_Integer(r)) }

    /// Releases a raw reference (through the main thread).
    public func release(rawRef r: Int32) { loom_unref(mainThread, r) }
}
