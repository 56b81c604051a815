import CLua
import Foundation

// LuaRuntime's audited unsafe code: every unchecked pointer and manual retain in the module is
// in this file, each piece small and with the reason it is safe; the rest of the module calls
// these. `UnsafeCodeTests` fails when such a construct appears in another file (docs/unsafe.md).

// MARK: The rule hot path

extension LuaState {
    /// The state's limits block as a plain pointer, for `callRulePacked`: kept by a rule beside
    /// `mainThread` (both live as long as the state). Safe: the block is the state's own
    /// (`LimitsCell`), allocated before the state is opened and freed after it is closed.
    public var limitsHandle: OpaquePointer { OpaquePointer(limitsPointer.raw) }

    /// The rule hot path's call (loom_call_rule_packed): `function(user, args, node)` by registry
    /// references (`args` < 0: nil) on the main thread as `owner`, with the state's limits kept by
    /// the caller (`limitsHandle`: no lookup per call); the answers in one value
    /// (`ruleAnsweredTrue`, `ruleAnsweredFalse`, or see `callRule`'s status and result: the status
    /// in bits 0-7, the LOOM_EXCEEDED_* in bits 16-23, and a value that is no boolean left on the
    /// stack). Safe: `limits` is a `limitsHandle` of the state whose main thread is `mainThread`.
    @inlinable @inline(__always)
    public static func callRulePacked(_ mainThread: OpaquePointer, limits: OpaquePointer, owner: Int32, function: Int32, user: Int32,
                                      args: Int32, node: Int32) -> Int32 {
        loom_call_rule_packed(mainThread, UnsafeMutablePointer<loom_limits>(limits), owner, function, user, args, node)
    }
}

// MARK: The limits block C reads

/// The `loom_limits` block the C allocator and hooks read and write, owned by one `LuaState`.
/// Safe: allocated and initialized once in `LuaState.init`, freed once in its `deinit` after
/// `lua_close` (nothing in C touches it after that), and used only on the state's thread.
@usableFromInline
struct LimitsCell {
    @usableFromInline let raw: UnsafeMutablePointer<loom_limits>

    init() {
        raw = .allocate(capacity: 1)
        raw.initialize(to: loom_limits())
    }

    /// The block's fields (read and written in place: C shares them).
    @inlinable var pointee: loom_limits {
        @inline(__always) unsafeAddress { UnsafePointer(raw) }
        @inline(__always) nonmutating unsafeMutableAddress { raw }
    }

    func free() { raw.deallocate() }
}

// MARK: The state behind a lua_State

extension LuaState {
    /// Stores this object in the lua_State's extra space for host-function dispatch. Safe: the
    /// pointer is unretained, and the `LuaState` outlives its lua_State (`deinit` closes it).
    func registerInExtraSpace() {
        loom_set_extra(L, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The `LuaState` stored by `registerInExtraSpace`. Safe: see there (C calls back only while
    /// the state is open).
    static func state(fromExtra extra: UnsafeMutableRawPointer) -> LuaState {
        Unmanaged<LuaState>.fromOpaque(extra).takeUnretainedValue()
    }
}

// MARK: Strings and bytes across the C boundary

/// The identity of a table, userdata, function or thread while it lives (`lua_topointer`):
/// equal identities are the same object. Compared and hashed only, never dereferenced.
public struct LuaIdentity: Hashable {
    let pointer: UnsafeRawPointer
}

extension LuaState {
    /// The identity of a table, userdata, function or thread at `index` (nil for other values):
    /// equal pointers are the same object while it lives. Safe: never dereferenced.
    public func toPointer(_ index: Int32) -> UnsafeRawPointer? { lua_topointer(L, index) }

    /// The same as a value that cannot be dereferenced.
    public func identity(_ index: Int32) -> LuaIdentity? { lua_topointer(L, index).map(LuaIdentity.init) }

    /// The bytes of the string at `index` (nil unless it is a string: numbers are not converted
    /// in place). Safe while the string stays on the stack: callers read them before popping it.
    public func stringBytes(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var len = 0
        guard let p = loom_tolstring(L, index, &len) else { return nil }
        return UnsafeRawBufferPointer(start: p, count: len).bindMemory(to: UInt8.self)
    }

    /// The string at `index` (only when it is a string: numbers are not converted in place).
    /// Safe: Lua gives the length, and the bytes are copied while the string is on the stack.
    public func toString(_ index: Int32) -> String? {
        guard lua_type(L, index) == LUA_TSTRING else { return nil }
        var len = 0
        guard let p = loom_tolstring(L, index, &len) else { return nil }
        return p.withMemoryRebound(to: UInt8.self, capacity: len) {
            String(decoding: UnsafeBufferPointer(start: $0, count: len), as: UTF8.self)
        }
    }

    /// Pushes `s` (its exact UTF-8 bytes). Safe: Lua copies the bytes during the call.
    public func push(_ s: String) {
        var s = s
        s.withUTF8 { buf in
            _ = buf.withMemoryRebound(to: CChar.self) { lua_pushlstring(L, $0.baseAddress, $0.count) }
        }
    }

    /// `len` bytes from Lua at `p` as a String when they are valid UTF-8. Safe: Lua gives the
    /// length, and the bytes are copied while the caller keeps the string on the stack.
    static func validatedString(_ p: UnsafePointer<CChar>, count len: Int) -> String? {
        String(validating: UnsafeRawBufferPointer(start: p, count: len), as: UTF8.self)
    }

    /// `short_src` of a debug record (a NUL-terminated fixed array). Safe: read within the
    /// array's own size, stopping at the first NUL.
    static func shortSource(_ ar: lua_Debug) -> String {
        withUnsafeBytes(of: ar.short_src) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Pushes `tree` (one object or array, every `begin` ended) as read-only views named
    /// `name`: the same as pushing the value member by member (objects remembering their key
    /// order, `push(json:keepingOrder:)` in LoomPlugins), then `Sandbox.freezeTop(name:)`, made in
    /// one call into C. False (nothing pushed) when `tree` is not one such value or the stack
    /// cannot grow. Safe: C reads the two arrays, with their counts, during the call only.
    public func pushFrozenTree(_ tree: FrozenTree, name: String) -> Bool {
        name.withCString { pushTree(tree, name: $0, as: .view) }
    }

    /// `pushFrozenTree` with a name made into a C string once (no conversion per call).
    public func pushFrozenTree(_ tree: FrozenTree, name: CName) -> Bool {
        name.bytes.withUnsafeBufferPointer { pushTree(tree, name: $0.baseAddress!, as: .view) }
    }

    /// `pushFrozenTree` without the value's own view: pushes its table, every nested table a
    /// view (`recordingView(ofTable:name:)` makes a view over it). Safe: as `pushFrozenTree`.
    public func pushFrozenTreeTable(_ tree: FrozenTree, name: String) -> Bool {
        name.withCString { pushTree(tree, name: $0, as: .table) }
    }

    /// `pushFrozenTreeTable` with a name made into a C string once.
    public func pushFrozenTreeTable(_ tree: FrozenTree, name: CName) -> Bool {
        name.bytes.withUnsafeBufferPointer { pushTree(tree, name: $0.baseAddress!, as: .table) }
    }

    /// A registry reference for `setReusedView`, holding `false` until a view is stored there.
    public func newViewSlot() -> Int32 {
        lua_pushboolean(L, 0)
        return rawRef()
    }

    /// The layout of a view member as C reads it (`loom_tree_member`): its stride, then the
    /// offsets of its key's offset and length, its string's offset and length, its integer, its
    /// descendants, its double and its kind. A caller whose members are laid out so hands them
    /// as they are (`setReusedFlatView`).
    public static let treeMemberLayout: [Int] = [
        MemoryLayout<loom_tree_member>.stride,
        MemoryLayout<loom_tree_member>.offset(of: \.key_offset) ?? -1, MemoryLayout<loom_tree_member>.offset(of: \.key_length) ?? -1,
        MemoryLayout<loom_tree_member>.offset(of: \.value_offset) ?? -1, MemoryLayout<loom_tree_member>.offset(of: \.value_length) ?? -1,
        MemoryLayout<loom_tree_member>.offset(of: \.i) ?? -1, MemoryLayout<loom_tree_member>.offset(of: \.descendants) ?? -1,
        MemoryLayout<loom_tree_member>.offset(of: \.d) ?? -1, MemoryLayout<loom_tree_member>.offset(of: \.kind) ?? -1,
    ]

    /// `host eval`'s view of a user for one plugin, stored at `slot` (`newViewSlot`) after the
    /// views at `retiring` are retired (`loom_reused_view_into`): the view `loom_push_reused_view`
    /// makes of `tree` (its table kept for the next object of the same keys, and set again for
    /// it). `retiring`: the first `count` references of the array. 1 stored, 0 none made (`false`
    /// stored), -1 the stack could not grow (nothing retired, nothing stored).
    public func setReusedView(slot: Int32, retiring: [Int32], count n: Int, tree: FrozenTree, name: CName) -> Int32 {
        retiring[..<n].withUnsafeBufferPointer { r in
            name.bytes.withUnsafeBufferPointer { n in
                tree.withBuffers { c, m in
                    loom_reused_view_into(L, r.baseAddress, Int32(r.count), slot, c.baseAddress, c.count, m.baseAddress, Int32(m.count),
                                          Int32(tree.depth), 0, n.baseAddress!)
                } ?? -1
            }
        }
    }

    /// `setReusedView` of a flat object's `count` members, laid out as `treeMemberLayout` says
    /// at `members`, their keys and strings at offsets into the `byteCount` bytes at `bytes`,
    /// after the `retiringCount` views at `retiring` are retired; its name "node"
    /// (`CName.nodeCString`). Everything is lent as pointers: no array or name to retain on the
    /// way, as `host eval` makes a view for every user. Safe when `members` holds `count` such
    /// members and `retiring` `retiringCount` references (the caller checks the layout against
    /// `treeMemberLayout` and lends its storage for the call); C checks every offset against
    /// the bytes before reading.
    @inline(__always)
    public func setReusedFlatView(slot: Int32, retiring: UnsafePointer<Int32>?, retiringCount: Int, bytes: UnsafeRawPointer, byteCount: Int,
                                  members: UnsafeRawPointer, count: Int) -> Int32 {
        guard count <= Int(Int32.max), retiringCount <= Int(Int32.max) else { return -1 }
        return loom_reused_view_into(L, retiring, Int32(retiringCount), slot, bytes.assumingMemoryBound(to: CChar.self), byteCount,
                                     members.assumingMemoryBound(to: loom_tree_member.self), Int32(count), 1, 1, CName.nodeCString)
    }

    /// Sets the plain view at `view` (`newPlainView`) to a flat object's `count` members, laid
    /// out as `setReusedFlatView` takes them (`loom_plain_view_set`): false when it was not set
    /// (a member nests, or lies outside the bytes). Safe as `setReusedFlatView` is: the storage
    /// is lent for the call, and C checks every offset against the bytes before reading.
    @inline(__always)
    public func setPlainView(_ view: Int32, bytes: UnsafeRawPointer, byteCount: Int, members: UnsafeRawPointer, count: Int) -> Bool {
        guard count <= Int(Int32.max) else { return false }
        return loom_plain_view_set(L, view, bytes.assumingMemoryBound(to: CChar.self), byteCount,
                                   members.assumingMemoryBound(to: loom_tree_member.self), Int32(count)) == 1
    }

    /// What `pushTree` pushes: the value's table alone, or its view.
    private enum TreePush { case table, view }

    private func pushTree(_ tree: FrozenTree, name: UnsafePointer<CChar>, as kind: TreePush) -> Bool {
        tree.withBuffers { c, m in
            switch kind {
            case .view: return loom_push_frozen_tree(L, c.baseAddress, c.count, m.baseAddress, Int32(m.count), Int32(tree.depth), name) != 0
            case .table: return loom_push_tree_target(L, c.baseAddress, c.count, m.baseAddress, Int32(m.count), Int32(tree.depth), name) != 0
            }
        } ?? false
    }

    /// `callRuleRecording` (LuaState+RecordingViews.swift) with a name made into a C string once.
    public func callRuleRecording(owner: Int32, function: Int32, args: Int32, node: Int32, name: CName)
        -> (status: Int32, result: Int32, exceeded: Int32)? {
        var result: Int32 = 0, exceeded: Int32 = 0
        let status = name.bytes.withUnsafeBufferPointer {
            loom_call_rule_recording(mainThread, owner, function, args, node, $0.baseAddress!, &result, &exceeded)
        }
        return status < 0 ? nil : (status, result, exceeded)
    }
}

extension LuaState {
    /// Hands each entry of the read log at stack index `idx` (a recording view's) to `each` as
    /// its bytes; false when it is no table, an entry is not a string (the whole table was read)
    /// or `each` answers false. Safe: each pointer is a Lua string's, on the stack (so alive)
    /// while `each` runs, and not kept. The stack is left as it was.
    func eachLoggedRead(at idx: Int32, _ each: (UnsafePointer<CChar>, Int) -> Bool) -> Bool {
        let L = mainThread
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard lua_checkstack(L, 3) != 0, lua_type(L, idx) == LUA_TTABLE else { return false }
        lua_pushvalue(L, idx)
        let n = lua_rawlen(L, -1)
        var i: lua_Integer = 1
        while i <= lua_Integer(n) {
            defer { i += 1 }
            guard lua_rawgeti(L, -1, i) == LUA_TSTRING else { return false }
            var len = 0
            guard let p = lua_tolstring(L, -1, &len), each(p, len) else { return false }
            lua_settop(L, -2)
        }
        return true
    }

    /// Whether `s`'s UTF-8 is the `count` bytes at `p` (a Lua string's, valid for the call).
    @inline(__always)
    static func sameBytes(_ s: String, _ p: UnsafePointer<CChar>, _ count: Int) -> Bool {
        var s = s
        return s.withUTF8 { u in u.count == count && (count == 0 || memcmp(u.baseAddress!, p, count) == 0) }
    }
}

/// A name handed to C on hot paths (a view's name in messages), made into a C string once.
/// Safe: `bytes` always ends with its NUL and is never changed, so its address is a valid C
/// string for the duration of each `withUnsafeBufferPointer`.
public struct CName: Sendable {
    let bytes: ContiguousArray<CChar>
    public init(_ s: String) { bytes = ContiguousArray(s.utf8CString) }
    /// "node": what user views and node tables are named in messages.
    public static let node = CName("node")
    /// "node" as a C string that is never freed (a pointer: no reference counting where it is
    /// read, as a `CName`'s array has). Safe: made once, never written or freed.
    nonisolated(unsafe) public static let nodeCString: UnsafePointer<CChar> = UnsafePointer(strdup("node")!)
}

extension Sandbox {
    /// read(2) into `bytes[offset..<offset + count]`; read's result. Safe: the range is checked
    /// to lie inside the array, which is pinned for the call.
    static func read(_ fd: Int32, into bytes: inout [UInt8], at offset: Int, count: Int) -> Int {
        precondition(offset >= 0 && count >= 0 && offset + count <= bytes.count)
        return bytes.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress! + offset, count) }
    }
}

extension FrozenTree {
    /// `body` with the tree's bytes (as C chars) and members lent for the call, when the tree is
    /// finished and within what C takes (at most Int32.max members, 64 levels); nil when not.
    /// Safe: neither buffer outlives the call.
    func withBuffers<R>(_ body: (UnsafeBufferPointer<CChar>, UnsafeBufferPointer<loom_tree_member>) -> R) -> R? {
        guard open.isEmpty, members.count <= Int(Int32.max), depth <= 64 else { return nil }
        return bytes.withUnsafeBufferPointer { b in
            members.withUnsafeBufferPointer { m in b.withMemoryRebound(to: CChar.self) { body($0, m) } }
        }
    }
}

/// `RuleCallBatch`'s calls and the caller's answers handed to C (loom_call_rules). Safe: both
/// buffers are lent for the length of the call only; C reads `count` calls and writes at most
/// `count` answers, the answers buffer made at least that long first.
extension RuleCallBatch {
    /// Makes the calls on `mainThread` (the state's, as `LuaState.mainThread` gives it), their
    /// answers (1 true, 0 false) into `answers` from its start (grown to hold them all): how
    /// many were answered, in order. When one was not, `status` is not LUA_OK when it raised or
    /// met a limit (its error left on the stack, for `LuaState.popError(status:exceeded:)`),
    /// else it answered no boolean (nothing left).
    public func call(_ mainThread: OpaquePointer, answers: inout [Int8]) -> (answered: Int, status: Int32, exceeded: Int32) {
        let n = count
        if answers.count < n { answers = [Int8](repeating: 0, count: n) }
        var status: Int32 = 0, exceeded: Int32 = 0
        let answered = calls.withUnsafeBufferPointer { c in
            answers.withUnsafeMutableBufferPointer { a in
                Int(loom_call_rules(mainThread, c.baseAddress, Int32(n), a.baseAddress, &status, &exceeded))
            }
        }
        return (answered, status, exceeded)
    }
}
