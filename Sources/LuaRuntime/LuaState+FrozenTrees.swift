import CLua

/// A JSON-like value (an object or array at the top) gathered for `LuaState.pushFrozenTree`: its
/// members in prefix order and their bytes end to end in one buffer, so that the whole frozen
/// table is made in one call into C.
public struct FrozenTree {
    /// (Its first byte is never used: the buffer is never empty, so its address is never nil.)
    var bytes: [UInt8] = [0]
    var members: [loom_tree_member] = []
    /// The arrays and objects begun and not yet ended.
    var open: [Int] = []
    /// How deep the value nests (1: a flat object).
    public private(set) var depth = 0

    public init(capacity: Int = 0) {
        members.reserveCapacity(capacity)
        bytes.reserveCapacity(1 + capacity * 16)
    }

    /// Members so far.
    public var count: Int { members.count }

    /// A string's UTF-8 appended to `bytes`, copied from its contiguous storage at once (through
    /// `append(contentsOf: s.utf8)` it cost about 170 instructions a string: callgrind, a user
    /// view of 10 members made per user by `host eval`).
    @inline(__always)
    fileprivate mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private mutating func add(_ key: String?, kind: Int32, i: Int64 = 0, d: Double = 0, value: String? = nil) {
        var m = loom_tree_member()
        if let key {
            m.key_offset = bytes.count
            append(key)
            m.key_length = bytes.count - m.key_offset
        }
        if let value {
            m.value_offset = bytes.count
            append(value)
            m.value_length = bytes.count - m.value_offset
        }
        m.i = i
        m.d = d
        m.kind = kind
        members.append(m)
    }

    /// A nil member (an object's is counted in its table's size and not set; an array's leaves a
    /// hole). `key`: the member's key in an object, nil in an array.
    public mutating func addNull(_ key: String?) { add(key, kind: Int32(LOOM_TREE_NULL)) }
    public mutating func add(_ key: String?, _ b: Bool) { add(key, kind: Int32(b ? LOOM_TREE_TRUE : LOOM_TREE_FALSE)) }
    public mutating func add(_ key: String?, _ i: Int) { add(key, kind: Int32(LOOM_TREE_INT), i: Int64(i)) }
    public mutating func add(_ key: String?, _ d: Double) { add(key, kind: Int32(LOOM_TREE_DOUBLE), d: d) }
    public mutating func add(_ key: String?, _ s: String) { add(key, kind: Int32(LOOM_TREE_STRING), value: s) }

    /// Begins an object of `count` members (null ones included), which follow until `end()`.
    public mutating func beginObject(_ key: String?, count: Int) { begin(key, kind: Int32(LOOM_TREE_OBJECT), count: count) }
    /// Begins an array of `count` elements, which follow until `end()`.
    public mutating func beginArray(_ key: String?, count: Int) { begin(key, kind: Int32(LOOM_TREE_ARRAY), count: count) }

    private mutating func begin(_ key: String?, kind: Int32, count: Int) {
        add(key, kind: kind, i: Int64(count))
        open.append(members.count - 1)
        depth = max(depth, open.count)
    }

    /// Ends the array or object begun last.
    public mutating func end() {
        guard let k = open.popLast() else { return }
        members[k].descendants = Int64(members.count - 1 - k)
    }
}

extension FrozenTree {
    /// Opens again the finished object at the top (this tree is an object), with `more` members
    /// more to follow, added as before, then `end()`.
    public mutating func reopenObject(more: Int) -> Bool {
        guard open.isEmpty, let root = members.first, root.kind == Int32(LOOM_TREE_OBJECT) else { return false }
        members[0].i += Int64(more)
        open.append(0)
        return true
    }

    /// Whether the member at `index` is a null, boolean, number or string (no members below it).
    public func isScalar(at index: Int) -> Bool {
        index < members.count && members[index].kind < Int32(LOOM_TREE_ARRAY)
    }

    /// Gives the scalar member at `index` (`isScalar`) another scalar value, its key kept.
    public mutating func setNull(at index: Int) { setScalar(at: index, kind: Int32(LOOM_TREE_NULL)) }
    public mutating func set(at index: Int, _ b: Bool) { setScalar(at: index, kind: Int32(b ? LOOM_TREE_TRUE : LOOM_TREE_FALSE)) }
    public mutating func set(at index: Int, _ i: Int) { setScalar(at: index, kind: Int32(LOOM_TREE_INT), i: Int64(i)) }
    public mutating func set(at index: Int, _ d: Double) { setScalar(at: index, kind: Int32(LOOM_TREE_DOUBLE), d: d) }
    public mutating func set(at index: Int, _ s: String) { setScalar(at: index, kind: Int32(LOOM_TREE_STRING), value: s) }

    private mutating func setScalar(at index: Int, kind: Int32, i: Int64 = 0, d: Double = 0, value: String? = nil) {
        var m = members[index]
        m.kind = kind
        m.i = i
        m.d = d
        m.value_offset = 0
        m.value_length = 0
        if let value {
            m.value_offset = bytes.count
            append(value)
            m.value_length = bytes.count - m.value_offset
        }
        members[index] = m
    }
}

// LuaState.pushFrozenTree (the call into C with the tree's buffers) is in Unsafe.swift.

extension FrozenTree {
    /// A member's kind, for `addMember`.
    public enum MemberKind { case null, `false`, `true`, int, double, string }

    /// Starts again as a flat object of `count` members whose keys and string values are ranges
    /// of `bytes` (its first byte unused, as this tree's own): the members follow by
    /// `addMember`, then `end()`. The array's storage is shared, not copied.
    public mutating func resetObject(bytes: [UInt8], count: Int) {
        self.bytes = bytes.isEmpty ? [0] : bytes
        members.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
        depth = 0
        beginObject(nil, count: count)
    }

    /// Lets go of the bytes `resetObject` shared (for the caller to change its array in place).
    public mutating func dropBytes() { bytes = FrozenTree.unused }
    private static let unused: [UInt8] = [0]

    /// An array or object member of the object `resetObject` began, at `level` (1: the
    /// object's own member): its `count` children and `descendants` members in all follow, by
    /// `addMember` and `addContainer` (an array's with no key).
    public mutating func addContainer(keyStart: Int, keyCount: Int, array: Bool, count: Int, descendants: Int, level: Int) {
        var m = loom_tree_member()
        m.key_offset = keyStart
        m.key_length = keyCount
        m.kind = Int32(array ? LOOM_TREE_ARRAY : LOOM_TREE_OBJECT)
        m.i = Int64(count)
        m.descendants = Int64(descendants)
        members.append(m)
        depth = max(depth, level + 1)
    }

    /// A member of the flat object `resetObject` began: its key at `keyStart` (`keyCount`
    /// bytes), a string's value at `valueStart`, an integer's or a double's value.
    public mutating func addMember(keyStart: Int, keyCount: Int, kind: MemberKind, valueStart: Int = 0, valueCount: Int = 0,
                                   int: Int64 = 0, double: Double = 0) {
        var m = loom_tree_member()
        m.key_offset = keyStart
        m.key_length = keyCount
        switch kind {
        case .null: m.kind = Int32(LOOM_TREE_NULL)
        case .false: m.kind = Int32(LOOM_TREE_FALSE)
        case .true: m.kind = Int32(LOOM_TREE_TRUE)
        case .int: m.kind = Int32(LOOM_TREE_INT); m.i = int
        case .double: m.kind = Int32(LOOM_TREE_DOUBLE); m.d = double
        case .string:
            m.kind = Int32(LOOM_TREE_STRING)
            m.value_offset = valueStart
            m.value_length = valueCount
        }
        members.append(m)
    }
}
