import CLua

extension LuaState {
    /// When the value at `idx` is one of the sandbox's read-only views (see
    /// `Sandbox.freezeTop`, and the library views of every environment), pushes the real table
    /// behind it and returns true; otherwise pushes nothing and returns false. Raw C API only:
    /// no metamethod runs. (Nested tables of the real table are views themselves.)
    public func pushReadonlyTarget(_ idx: Int32) -> Bool {
        loom_proxy_push_target(L, idx) != 0
    }

    /// Whether the value at `idx` is one of the sandbox's read-only views (a userdata that
    /// plugins see as a table).
    public func isReadonlyView(_ idx: Int32) -> Bool {
        loom_is_proxy(L, idx) != 0
    }
}
