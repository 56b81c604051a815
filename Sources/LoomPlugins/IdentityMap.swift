/// Object identity → registry reference, on the hot path of every rule and builder call.
///
/// Written by hand because `Dictionary<ObjectIdentifier, _>` hashes with SipHash, which costs
/// about as much as the rest of a rule call's host work; object addresses are already well
/// spread, so a multiplicative hash with linear probing does (about 3 ns a lookup).
struct IdentityMap {
    private var keys: [UInt] = []
    private var values: [Int32] = []
    private var mask = 0
    private(set) var count = 0

    init() { resize(64) }

    private static func slot(_ key: UInt, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 17) & mask
    }

    // key(_:) (an object's address) is in Unsafe.swift.

    @inline(__always)
    subscript(key key: UInt) -> Int32? {
        get {
            var i = IdentityMap.slot(key, mask)
            while true {
                let k = keys[i]
                if k == key { return values[i] }
                if k == 0 { return nil }
                i = (i + 1) & mask
            }
        }
        set {
            guard let v = newValue else { return }  // entries are never removed
            insert(key, v)
        }
    }

    private mutating func insert(_ key: UInt, _ value: Int32) {
        if (count + 1) * 2 > keys.count { resize(keys.count * 2) }
        var i = IdentityMap.slot(key, mask)
        while keys[i] != 0 && keys[i] != key { i = (i + 1) & mask }
        if keys[i] == 0 { count += 1 }
        keys[i] = key
        values[i] = value
    }

    private mutating func resize(_ capacity: Int) {
        let oldKeys = keys, oldValues = values
        keys = [UInt](repeating: 0, count: capacity)
        values = [Int32](repeating: 0, count: capacity)
        mask = capacity - 1
        count = 0
        for (k, v) in zip(oldKeys, oldValues) where k != 0 { insert(k, v) }
    }
}
