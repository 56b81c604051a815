import CLua
import Foundation

/// The sandbox of a state: per-plugin global environments over a read-only standard library.
/// Every read-only table a plugin sees (the libraries, and the node / user / argument views made
/// by `freezeTop`) is an immutable userdata proxy (see loom_proxy.c and loom_sandbox_lib.c), and each environment has
/// its own copy of every library behind its views: nothing a plugin can reach leads to a table
/// another plugin uses.
///
/// At creation the bootstrap chunk below takes what it needs from the real globals into local
/// upvalues, patches the shared string library (budgeted pattern matching, no `dump`), and
/// then empties the real globals table, so nothing a plugin can reach leads back to `io`, `os`,
/// `debug`, `package` or the host's own tables.
public final class Sandbox {
    public let state: LuaState
    /// Called with (environment label, line) for `print` and `host.log`. Reading it gives the
    /// sink behind the per-label cap (`logCapBytes`), so every line a plugin writes, whoever
    /// forwards it, counts against that plugin's cap.
    public var logSink: ((String, String) -> Void)? {
        get { sink == nil ? nil : { [unowned self] label, line in self.emit(label, line) } }
        set { sink = newValue }
    }
    private var sink: ((String, String) -> Void)?
    private var makeEnvRef: LuaRef!
    private var freezeRef: LuaRef!
    /// Files served before the disk (the standard plugins embedded in the binary).
    public var virtualFiles: [String: String] = [:]
    /// The shared library modules `require("loom.NAME")` gives (one frozen instance per state):
    /// name → a path of `virtualFiles`.
    public var sharedModules: [String: String] = [:]
    /// The closest of some names to a misspelt one, for `require("loom.semvar")`'s did-you-mean
    /// (the engine gives LoomCore's `DidYouMean`, which this module cannot import); nil: none.
    public var suggestName: ((String, [String]) -> String?)?
    private var logBytes: [String: Int] = [:]
    public var logCapBytes = 64 * 1024

    public init(limits: LuaLimits = .default) throws(LuaError) {
        state = try LuaState(limits: limits)
        // The budgeted find/match/gmatch/gsub/rep and move/sort/insert/remove replace the
        // libraries' before anything else can capture the originals.
        state.getGlobal("string")
        loom_open_budgeted_strlib(state.L)
        state.pop(1)
        state.getGlobal("table")
        loom_open_budgeted_tablib(state.L)
        state.pop(1)

        try state.load(source: Sandbox.bootstrap, chunkName: "=loom-sandbox")
        // Arguments: the host functions the bootstrap needs, and the sandbox's C helpers.
        state.pushFunction { [unowned self] call in self.findModule(call) }
        state.pushFunction { [unowned self] call in self.log(call) }
        state.pushFunction { [unowned self] call in self.logRoom(call) }
        loom_push_sandbox_lib(state.L)
        // The host's own trusted code: what it allocates is the host's (owner 0).
        try state.hostCall(nargs: 4, nresults: 2)
        freezeRef = state.ref()
        makeEnvRef = state.ref()
    }

    /// Replaces the table at the top of the stack by a read-only view of it: an immutable
    /// userdata proxy that reads like the table (`view.key` is a plain VM lookup in the table
    /// behind it), answers `type(view) == "table"`, works with pairs, next, ipairs, #, rawget,
    /// rawlen, table.concat and table.unpack, and refuses every write (rawset included) with
    /// "attempt to modify read-only table 'NAME' (field 'K')". Nested tables (values and keys)
    /// are replaced in place by their views, each table once (cycles and shared substructures
    /// are safe). A view stays a view; a value that is not a table stays as it is.
    /// `LuaState.pushReadonlyTarget` gives the table behind a view back to Swift.
    public func freezeTop(name: String = "node") throws(LuaError) {
        state.push(freezeRef)
        state.pushCopy(-2)
        state.push(name)
        try state.hostCall(nargs: 2, nresults: 1)
        lua_rotate(state.L, -2, 1)
        state.pop(1)
    }

    /// `freezeTop` for a table the host made itself, a tree: pushed from JSON, with frozen
    /// tables (views) set in, no table reached twice, no table key (node, item, argument, user
    /// and resolved tables). The same views as `freezeTop` makes, in one C call, without the
    /// bookkeeping tables `freeze` makes to handle shared tables and cycles (met with a table key
    /// or a cycle, `freeze` finishes the work; a table reached twice would get two views).
    public func freezeTree(name: String = "node") throws(LuaError) {
        // One C call: the sandbox's `freeze` for the host's trees (loom_sandbox_lib.c).
        let status = loom_freeze_top(state.L, name)
        if status != LUA_OK {
            // The value stays below, as `freezeTop` leaves it.
            throw state.popError(status: status, exceeded: 0)
        }
    }

    /// Pushes a fresh environment for code that lives in `folder` (its `require` root), labelled
    /// `label` in logs. The environment is a table whose `__index` is the read-only base.
    public func pushEnvironment(label: String, folder: String?) throws(LuaError) {
        state.push(makeEnvRef)
        state.push(label)
        if let folder { state.push(folder) } else { state.pushNil() }
        try state.hostCall(nargs: 2, nresults: 1)
    }

    /// Loads a file's text as a chunk bound to the environment at `envIndex`, leaving the
    /// function on the stack.
    public func loadChunk(source: String, chunkName: String, envIndex: Int32) throws(LuaError) {
        let env = state.absIndex(envIndex)
        try state.load(source: source, chunkName: chunkName)
        state.pushCopy(env)
        // The first upvalue of a main chunk is _ENV.
        _ = lua_setupvalue(state.L, -2, 1)
    }

    /// Every chunk file this sandbox loaded (for restoring paths Lua shortened to `...tail`).
    public internal(set) var knownFiles: Set<String> = []

    public func noteFile(_ path: String) { knownFiles.insert(path) }

    /// Lua shortens chunk names longer than LUA_IDSIZE to `...tail`; this gives the full path
    /// back when a loaded file ends with that tail.
    public func fullPath(_ shown: String) -> String {
        guard shown.hasPrefix("...") else { return shown }
        let tail = shown.dropFirst(3)
        return knownFiles.filter { $0.hasSuffix(tail) }.min() ?? shown
    }

    /// Bytes the label may still log (what `print` checks before building its line).
    private func logRoom(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        let label = call.string(1) ?? "?"
        state.push(max(0, logCapBytes - logBytes[label, default: 0]))
        return .success(1)
    }

    /// Lines plugins have logged (`print`, capped or not; `host.log`): a call that logged is not
    /// one whose answer may be reused without calling it (`ObservableRule`).
    public private(set) var logCalls = 0

    /// Counts a line logged by another way than `print` (`host.log`).
    public func countLog() { logCalls &+= 1 }

    private func log(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        logCalls &+= 1
        emit(call.string(1) ?? "?", call.string(2) ?? "")
        return .success(0)
    }

    /// Forwards a line to the sink unless the label's cap is spent (the line that crosses it is
    /// cut and marked).
    private func emit(_ label: String, _ line: String) {
        let used = logBytes[label, default: 0]
        if used >= logCapBytes { return }
        var text = line
        if used + text.utf8.count > logCapBytes {
            text = String(text.utf8.prefix(logCapBytes - used)).map { $0 + " … (log capped)" } ?? "(log capped)"
        }
        logBytes[label] = used + line.utf8.count
        sink?(label, text)
    }
}
