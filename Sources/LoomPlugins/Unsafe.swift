import Foundation
import LoomCore
import LuaRuntime

// LoomPlugins' audited unsafe code: every unchecked pointer, unowned(unsafe) reference and
// manual retain in the module is in this file, each piece small and with the reason it is
// safe; the rest of the module calls these. `UnsafeCodeTests` fails when such a construct
// appears in another file (docs/unsafe.md).

/// A reference that neither retains nor checks its object (`unowned(unsafe)`): what a rule
/// keeps of its engine and Lua state, read on every rule call. Safe: the engine owns its
/// rules and its state, so both outlive every rule that refers to them (a rule is never used
/// after its engine is gone).
struct UncheckedRef<Object: AnyObject> {
    unowned(unsafe) let object: Object
    @inline(__always) init(_ object: Object) { self.object = object }

    /// Runs `body` with the object borrowed (`_withUnsafeGuaranteedRef`): not retained and
    /// released around the body, as a method call on `object` otherwise is. Safe for the same
    /// reason: the object outlives its holder, so it is alive for the body.
    @inline(__always)
    func withObject<R>(_ body: (Object) -> R) -> R {
        Unmanaged.passUnretained(object)._withUnsafeGuaranteedRef(body)
    }
}

extension IdentityMap {
    /// The key of an object: its address (no reference counting on the way). Safe: the address
    /// is compared, never dereferenced, and the caller keeps the object alive while its key is
    /// in the map.
    @inline(__always)
    static func key<T: AnyObject>(_ object: T) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }
}

extension Exact {
    /// Whether two values are one value: the same bits (for these copy-on-write collections, the
    /// same storage, so the same contents). A fast path; false says nothing. Safe: both values
    /// are of one type, so of one size, and are only read for the call.
    @inline(__always)
    static func sameBits<T>(_ a: T, _ b: T) -> Bool {
        withUnsafeBytes(of: a) { x in withUnsafeBytes(of: b) { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
}

/// The offset of the first byte that is not part of well-formed UTF-8, nil when all is well.
/// Safe: reads stay below `b.count`; the caller keeps the Lua string on the stack for the call.
func firstInvalidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let p = b.baseAddress else { return nil }
    var i = 0
    while i < b.count {
        if p[i] < 0x80 {
            i += 1
            continue
        }
        let s = UTF8Sequence.check(p, at: i, end: b.count)
        if s.length == 0 { return s.badAt }
        i += s.length
    }
    return nil
}

extension PluginEngine {
    /// `LuaState.setReusedFlatView` of `view`'s members as they are, with no conversion. Safe
    /// when `FlatViewTables.membersAsC` (the caller checks it): `FlatUserView.Member` is then
    /// laid out as the C struct, field for field. The members', the bytes' and the first `n`
    /// retiring references' storage is lent for the call only (in place: nothing retained on
    /// the way), and C checks every member's offsets against the bytes before reading.
    func setFlatView(_ state: LuaState, slot: Int32, _ t: FlatViewTables, count n: Int, _ view: FlatUserView) -> Int32 {
        guard n <= t.retiring.count else { return -1 }
        return t.retiring.withUnsafeMutableBufferPointer { r in
            view.withRawContents { bytes, byteCount, members, count in
                state.setReusedFlatView(slot: slot, retiring: UnsafePointer(r.baseAddress), retiringCount: n, bytes: bytes, byteCount: byteCount,
                                        members: members, count: count)
            }
        }
    }

    /// `LuaState.setPlainView` of `view`'s members as they are, as `setFlatView` hands them
    /// (safe for the same reasons: the caller checks `FlatViewTables.membersAsC`).
    func setPlainView(_ state: LuaState, _ plain: Int32, _ view: FlatUserView) -> Bool {
        view.withRawContents { bytes, byteCount, members, count in
            state.setPlainView(plain, bytes: bytes, byteCount: byteCount, members: members, count: count)
        }
    }

    /// Runs `body` with the engine's flat view tables and Lua state borrowed (not retained and
    /// released around it, as reading them into locals otherwise does for every user). Safe:
    /// the engine owns both for its whole life, and `body` runs inside a method of the engine.
    @inline(__always)
    func withFlatViewTables<R>(_ body: (FlatViewTables, LuaState) -> R) -> R {
        Unmanaged.passUnretained(flatViews)._withUnsafeGuaranteedRef { t in
            Unmanaged.passUnretained(sandbox.state)._withUnsafeGuaranteedRef { state in body(t, state) }
        }
    }
}
