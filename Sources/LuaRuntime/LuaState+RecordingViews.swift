import CLua

/// Recording views: a read-only view whose reads are logged, so a deterministic function's
/// answer can be reused for every input that agrees on what it read (`host eval`'s rule memo,
/// docs/populations.md). The log is a Lua table; `loom_proxy_new_recording` fills it.
public struct RecordingView: Sendable {
    /// The recording proxy (a registry reference), handed to the function in place of the view.
    public let view: Int32
    /// The read log (a registry reference).
    let log: Int32
}

extension LuaState {
    /// A recording view over the table behind the frozen view `viewRef` (made by
    /// `Sandbox.freezeTop`), named as that view in messages, or nil when `viewRef` is not such a view. Release it with
    /// `release(_:)`.
    public func recordingView(of viewRef: Int32) -> RecordingView? {
        // One call into C: the view's target and name, the log and the proxy (loom_proxy.c).
        var view: Int32 = 0, log: Int32 = 0
        guard loom_recording_view(mainThread, viewRef, &view, &log) != 0 else { return nil }
        return RecordingView(view: view, log: log)
    }

    /// A recording view over the plain table at raw reference `tableRef` (the table of a view
    /// made without the view: `pushFrozenTreeTable`), named `name` in messages; nil when it is
    /// not a table. Release it with `release(_:)`.
    public func recordingView(ofTable tableRef: Int32, name: String) -> RecordingView? {
        var view: Int32 = 0, log: Int32 = 0
        guard loom_recording_of_table(mainThread, tableRef, name, &view, &log) != 0 else { return nil }
        return RecordingView(view: view, log: log)
    }

    /// Pushes a read-only view (as `Sandbox.freezeTop` makes one of a table whose nested tables
    /// are views already) of the plain table at raw reference `tableRef`, named `name`; false
    /// (nothing pushed) when it is not a table.
    public func pushView(ofTable tableRef: Int32, name: String) -> Bool {
        loom_proxy_of_table(mainThread, tableRef, name) != 0
    }

    /// The string keys the function read through the view, in first-read order, each once; nil
    /// when it read the whole table (iteration, length, rawget, tostring, a non-string key).
    public func reads(_ r: RecordingView) -> [String]? {
        let L = mainThread
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, 3) != 0 else { return nil }
        _ = loom_rawget_ref(L, lua_Integer(r.log))
        return readsOfLog(at: -1)
    }

    /// `reads` of the read log at stack index `idx` (the stack as it was after).
    public func readsOfLog(at idx: Int32) -> [String]? {
        var out: [String] = []
        out.reserveCapacity(4)
        let whole = eachLoggedRead(at: idx) { p, len in
            // A key that is not UTF-8 has no String of its own bytes: nothing is learnt.
            guard let key = LuaState.validatedString(p, count: len) else { return false }
            if !out.contains(where: { $0.utf8.elementsEqual(key.utf8) }) { out.append(key) }
            return true
        }
        return whole ? out : nil
    }

    /// Whether every read in the read log at stack index `idx` is one of `names` (by bytes):
    /// what `readsOfLog` answers is then a subset of `names`; false too when it would be nil.
    public func logReads(at idx: Int32, within names: [String]) -> Bool {
        eachLoggedRead(at: idx) { p, len in names.contains { LuaState.sameBytes($0, p, len) } }
    }

    /// Calls `function(view, args, node)` as `callRule` does, the view a recording view (named
    /// `name`) of the table on top of the stack, made for the call (loom_call_rule_recording):
    /// the table is replaced by the view's read log, the view, and the error (a status not
    /// LUA_OK, for `popError`) or the returned value (`result` 0 / 1 for a boolean, -1
    /// otherwise). Nil (the table popped, nothing pushed) when the stack cannot grow.
    public func callRuleRecording(owner: Int32, function: Int32, args: Int32, node: Int32, name: String)
        -> (status: Int32, result: Int32, exceeded: Int32)? {
        var result: Int32 = 0, exceeded: Int32 = 0
        let status = loom_call_rule_recording(mainThread, owner, function, args, node, name, &result, &exceeded)
        return status < 0 ? nil : (status, result, exceeded)
    }

    public func release(_ r: RecordingView) {
        release(rawRef: r.view)
        release(rawRef: r.log)
    }
}
