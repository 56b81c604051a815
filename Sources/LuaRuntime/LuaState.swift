import CLua
import Foundation

/// Limits of one Lua state.
public struct LuaLimits: Sendable, Hashable {
    /// Time budget of every call into Lua, in nanoseconds (0: none).
    public var timeBudgetNanoseconds: Int64
    /// Memory cap of each owner (each plugin: see `LuaState.currentOwner`), in bytes (0: none).
    public var memoryBytes: Int
    /// Total Lua time of the state, all calls together, in nanoseconds (0: none). Once spent,
    /// every later call fails at once with "total Lua time limit exceeded (N s)".
    public var totalTimeBudgetNanoseconds: Int64

    public init(timeBudgetMilliseconds: Int = 100, memoryMegabytes: Int = 64, totalTimeBudgetMilliseconds: Int = 0) {
        timeBudgetNanoseconds = Int64(timeBudgetMilliseconds) * 1_000_000
        memoryBytes = memoryMegabytes * 1024 * 1024
        totalTimeBudgetNanoseconds = Int64(totalTimeBudgetMilliseconds) * 1_000_000
    }

    public static let `default` = LuaLimits()
}

/// A Swift function callable from Lua. It reads its arguments from `call` and pushes its
/// results, returning how many it pushed, or `.failure(message)` to raise a Lua error (raised
/// from C once the Swift frame has returned).
public typealias LuaHostFunction = (LuaCall) -> Result<Int32, LuaHostError>

public struct LuaHostError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// One Lua state, used from one thread only (Lua states are not thread-safe: create one per
/// worker). Every entry into Lua goes through `loom_pcall`, which never lets a Lua error
/// unwind through Swift frames.
public final class LuaState {
    /// The running Lua thread: the main thread, or the coroutine that called the host
    /// function now running (arguments and results live on that thread's stack). Read by every
    /// call into Lua, and only ever assigned whole (around a host function a coroutine calls),
    /// never held across a call: no access can overlap another, so the run-time exclusivity
    /// check every read would otherwise make is off.
    @exclusivity(unchecked) public private(set) var L: OpaquePointer
    public let mainThread: OpaquePointer
    @usableFromInline let limitsPointer: LimitsCell
    var hostFunctions: [LuaHostFunction] = []
    private var closed = false

    public init(limits: LuaLimits = .default) throws(LuaError) {
        limitsPointer = LimitsCell()
        limitsPointer.pointee.mem_limit = limits.memoryBytes
        limitsPointer.pointee.time_budget_ns = limits.timeBudgetNanoseconds
        limitsPointer.pointee.total_budget_ns = limits.totalTimeBudgetNanoseconds
        guard let L = loom_newstate(limitsPointer.raw) else {
            limitsPointer.free()
            throw LuaError(kind: .memory, message: "cannot create a Lua state")
        }
        self.L = L
        mainThread = L
        LuaState.installDispatch
        registerInExtraSpace()
        loom_openlibs(L)  // luaL_openlibs, coroutines telling the time budget's watchdog which thread runs
    }

    deinit {
        lua_close(mainThread)
        loom_limits_release(limitsPointer.raw)
        limitsPointer.free()
    }

    public var limits: LuaLimits {
        get {
            var l = LuaLimits()
            l.memoryBytes = limitsPointer.pointee.mem_limit
            l.timeBudgetNanoseconds = limitsPointer.pointee.time_budget_ns
            l.totalTimeBudgetNanoseconds = limitsPointer.pointee.total_budget_ns
            return l
        }
        set {
            limitsPointer.pointee.mem_limit = newValue.memoryBytes
            limitsPointer.pointee.time_budget_ns = newValue.timeBudgetNanoseconds
            limitsPointer.pointee.total_budget_ns = newValue.totalTimeBudgetNanoseconds
            // A larger (or no) total budget lets Lua run again.
            let total = newValue.totalTimeBudgetNanoseconds
            limitsPointer.pointee.total_exhausted = (total > 0 && limitsPointer.pointee.total_used_ns > total) ? 1 : 0
        }
    }

    /// Bytes currently allocated by this state (all owners), and the high-water mark.
    public var memoryUsed: Int { limitsPointer.pointee.mem_used }
    public var memoryPeak: Int { limitsPointer.pointee.mem_peak }

    /// The owner that allocations made by Lua code inside a call are charged to: 0 is the host
    /// (never capped), k > 0 is plugin k (capped at `limits.memoryBytes` alone). The host saves,
    /// sets and restores it around every call into a plugin, nested calls included. What the
    /// host allocates (outside calls, inside host functions, in `hostCall`) is always owner 0.
    /// A new state starts at 1, so plugin code the host did not attribute is still capped.
    @inlinable
    public var currentOwner: Int32 {
        get { limitsPointer.pointee.owner }
        set {
            // The common case (an owner seen before) is one store: this runs around every call.
            if newValue >= 0, newValue < limitsPointer.pointee.owner_count {
                limitsPointer.pointee.owner = newValue
                return
            }
            setOwnerSlowly(newValue)
        }
    }

    @usableFromInline
    func setOwnerSlowly(_ owner: Int32) {
        precondition(owner >= 0, "Lua memory owners are >= 0")
        let ok = loom_set_owner(limitsPointer.raw, owner)
        precondition(ok != 0, "cannot grow the per-owner memory counters")
    }

    /// Bytes currently charged to `owner` (a block is charged to whoever allocated or last grew it).
    public func memoryUsed(owner: Int32) -> Int { Int(loom_owner_used(limitsPointer.raw, owner)) }

    /// Lua time measured so far against `limits.totalTimeBudgetNanoseconds`: each call the time
    /// budget's watchdog saw running at two of its 1 ms ticks, from its first sighting to its
    /// return (calls shorter than a tick add nothing).
    public var totalTimeUsedNanoseconds: Int64 { limitsPointer.pointee.total_used_ns }

    /// "total Lua time limit exceeded (N s)".
    var totalTimeMessage: String {
        let ns = limitsPointer.pointee.total_budget_ns
        let text = ns % 1_000_000_000 == 0 ? "\(ns / 1_000_000_000)" : String(format: "%g", Double(ns) / 1e9)
        return "total Lua time limit exceeded (\(text) s)"
    }

    // MARK: Host functions

    private static let installDispatch: Void = {
        loom_set_host_dispatch { L, id in
            guard let L, let extra = loom_get_extra(L) else { return -1 }
            let state = LuaState.state(fromExtra: extra)
            let index = Int(id)
            guard index >= 0, index < state.hostFunctions.count else {
                lua_pushstring(L, "unknown host function")
                return -1
            }
            // A coroutine may call the host function: work on its stack while it runs.
            let saved = state.L
            state.L = L
            defer { state.L = saved }
            switch state.hostFunctions[index](LuaCall(state: state)) {
            case .success(let n): return n
            case .failure(let e):
                lua_settop(L, 0)
                lua_pushstring(L, e.message)
                return -1
            }
        }
    }()

    /// Pushes a Lua function that calls `fn`.
    public func pushFunction(_ fn: @escaping LuaHostFunction) {
        hostFunctions.append(fn)
        loom_push_host_function(L, Int64(hostFunctions.count - 1))
    }

    // MARK: Loading and calling

    /// Compiles a text chunk and leaves the function on the stack.
    public func load(source: String, chunkName: String) throws(LuaError) {
        let status = source.withCString { p in
            loom_loadtext(L, p, strlen(p), "@" + chunkName)
        }
        if status != LUA_OK {
            throw popError(status: status, exceeded: 0)
        }
    }

    /// Calls the function below `nargs` arguments on the stack in protected mode with the
    /// time budget, leaving `nresults` results (LUA_MULTRET for all).
    public func pcall(nargs: Int32, nresults: Int32) throws(LuaError) {
        var exceeded: Int32 = 0
        let status = loom_pcall(L, nargs, nresults, &exceeded)
        if status != LUA_OK {
            throw popError(status: status, exceeded: exceeded)
        }
    }

    /// A protected call of the host's own trusted Lua (sandbox helpers): what it allocates is
    /// the host's, not the plugins', and it has no time budget.
    public func hostCall(nargs: Int32, nresults: Int32) throws(LuaError) {
        let status = loom_pcall_host(L, nargs, nresults)
        if status != LUA_OK { throw popError(status: status, exceeded: 0) }
    }

    /// Runs a chunk of source and returns nothing; for bootstrap code and tests.
    public func run(_ source: String, chunkName: String = "=host") throws(LuaError) {
        try load(source: source, chunkName: chunkName)
        try pcall(nargs: 0, nresults: 0)
    }

    public func popError(status: Int32, exceeded: Int32) -> LuaError {
        let raw = toString(-1) ?? "unknown Lua error"
        pop(1)
        let kind: LuaError.Kind
        if exceeded == Int32(LOOM_EXCEEDED_TIME) || exceeded == Int32(LOOM_EXCEEDED_TOTAL_TIME) {
            kind = .time
        } else if exceeded == Int32(LOOM_EXCEEDED_MEMORY) || status == LUA_ERRMEM {
            kind = .memory
        } else if status == LUA_ERRSYNTAX {
            kind = .syntax
        } else {
            kind = .runtime
        }
        var err = LuaError(kind: kind, raw: raw)
        // Limits are reported the same way however the script tried to catch them.
        if exceeded == Int32(LOOM_EXCEEDED_TOTAL_TIME) {
            err.message = totalTimeMessage
        } else if kind == .time {
            err.message = "time limit exceeded (\(limitsPointer.pointee.time_budget_ns / 1_000_000) ms)"
        }
        if kind == .memory { err.message = "memory limit exceeded (\(limitsPointer.pointee.mem_limit / (1024 * 1024)) MiB)" }
        if err.file == nil, let (f, l) = LuaError.firstFrame(err.traceback) {
            err.file = f
            err.line = l
        }
        return err
    }

    // MARK: Stack primitives (raw access only: no metamethod can run from Swift)

    /// The top of the running thread's stack (an absolute index). On the main thread, slot 1
    /// holds the resident message handler (see loom_pcall), so a fresh state's top is
    /// `LuaState.baseTop`: restore saved tops rather than setting 0. At the base level (no call
    /// running on the state) a top below `baseTop` on the main thread is taken as `baseTop`: an
    /// outer protected call trusts the handler to be there without looking (loom_pcall.c).
    public var top: Int32 {
        get { lua_gettop(L) }
        set {
            if _slowPath(newValue < LuaState.baseTop && newValue >= 0 && L == mainThread && atBaseLevel) {
                lua_settop(L, LuaState.baseTop)
            } else {
                lua_settop(L, newValue)
            }
        }
    }

    /// Whether the main thread's slot 1 holds the resident message handler (at the base level:
    /// what an outer protected call trusts without looking, loom_pcall.c). For tests.
    public var residentHandlerInPlace: Bool { atBaseLevel && loom_resident_handler_in_place(mainThread) != 0 }

    /// No Lua or C function runs on the state: no protected call and no host Lua
    /// (`loom_pcall_host`) is in progress.
    var atBaseLevel: Bool { limitsPointer.pointee.in_call == 0 && limitsPointer.pointee.in_host == 0 }

    /// The top of a fresh state's main thread.
    public static let baseTop: Int32 = 1

    public func pop(_ n: Int32 = 1) { loom_pop(L, n) }
    public func pushNil() { lua_pushnil(L) }
    public func push(_ b: Bool) { lua_pushboolean(L, b ? 1 : 0) }
    public func push(_ i: Int) { lua_pushinteger(L, lua_Integer(i)) }
    public func push(_ d: Double) { lua_pushnumber(L, d) }
    // push(_: String) is in Unsafe.swift.
    public func pushCopy(_ index: Int32) { loom_pushcopy(L, index) }
    public func newTable(narr: Int32 = 0, nrec: Int32 = 0) { lua_createtable(L, narr, nrec) }
    /// t[key] = top value (pops it); t at `table` (an absolute or negative index before the push).
    public func setField(_ table: Int32, _ key: String) {
        let t = lua_absindex(L, table)
        push(key)
        lua_rotate(L, -2, 1)
        lua_rawset(L, t)
    }
    public func setIndex(_ table: Int32, _ i: Int) { lua_rawseti(L, table, lua_Integer(i)) }
    /// Pushes t[key] (raw).
    @discardableResult
    public func getField(_ table: Int32, _ key: String) -> LuaType {
        let t = lua_absindex(L, table)
        push(key)
        return LuaType(lua_rawget(L, t))
    }
    @discardableResult
    public func getIndex(_ table: Int32, _ i: Int) -> LuaType { LuaType(lua_rawgeti(L, table, lua_Integer(i))) }
    public func setGlobal(_ name: String) { lua_setglobal(L, name) }
    @discardableResult
    public func getGlobal(_ name: String) -> LuaType {
        // Raw read of the globals table.
        lua_rawgeti(L, loom_registry_index(), lua_Integer(LUA_RIDX_GLOBALS))
        let t = getField(-1, name)
        lua_rotate(L, -2, 1)
        pop(1)
        return t
    }
    public func type(_ index: Int32) -> LuaType { LuaType(lua_type(L, index)) }
    public func typeName(_ index: Int32) -> String { String(cString: lua_typename(L, lua_type(L, index))) }
    public func toBool(_ index: Int32) -> Bool { lua_toboolean(L, index) != 0 }
    public func isInteger(_ index: Int32) -> Bool { loom_isinteger(L, index) != 0 }
    public func toInt(_ index: Int32) -> Int? {
        var ok: Int32 = 0
        let v = lua_tointegerx(L, index, &ok)
        return ok != 0 ? Int(v) : nil
    }
    public func toDouble(_ index: Int32) -> Double? {
        var ok: Int32 = 0
        let v = lua_tonumberx(L, index, &ok)
        return ok != 0 ? v : nil
    }
    // toString(_:) is in Unsafe.swift.
    public func rawLength(_ index: Int32) -> Int { Int(lua_rawlen(L, index)) }
    /// Iterates a table's pairs (raw, via lua_next); the body sees the key at -2, value at -1.
    public func forEachPair(_ table: Int32, _ body: () throws -> Void) rethrows {
        let t = lua_absindex(L, table)
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            try body()
            pop(1)
        }
    }
    public func absIndex(_ i: Int32) -> Int32 { lua_absindex(L, i) }

    // MARK: References

    /// Pops the top value into the registry and returns a reference to it. (The value is on the
    /// running thread's stack; the registry, and so the reference, belongs to the state: nothing
    /// keeps the running thread, which may be a coroutine that is collected later.)
    public func ref() -> LuaRef { LuaRef(state: self, ref: loom_ref(L)) }
    public func push(_ r: LuaRef) { _ = loom_rawget_ref(L, lua_Integer(r.ref)) }

    /// Bytes in use according to Lua's collector, and a full collection.
    public var gcCountKB: Int { Int(loom_gc_count_kb(L)) }
    public func collectGarbage() { loom_full_gc(L) }
}

/// A value held in the registry for as long as this object lives.
public final class LuaRef {
    /// Strong: the state stays open while any reference into it lives.
    let state: LuaState
    public let ref: Int32

    init(state: LuaState, ref: Int32) {
        self.state = state
        self.ref = ref
    }

    /// Unreferenced through the main thread: `state.L` may be a coroutine while a host function
    /// runs, and a reference may outlive any coroutine.
    deinit { loom_unref(state.mainThread, ref) }
}

/// The arguments of a host function call.
public struct LuaCall {
    public let state: LuaState
    public var count: Int32 { lua_gettop(state.L) }
    public func string(_ i: Int32) -> String? { state.toString(i) }
    public func int(_ i: Int32) -> Int? { state.isInteger(i) ? state.toInt(i) : nil }
    public func type(_ i: Int32) -> LuaType { state.type(i) }
    public func typeName(_ i: Int32) -> String { state.typeName(i) }
}
