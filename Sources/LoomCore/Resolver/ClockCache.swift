/// A table of at most `capacity` entries that, when full, makes room by dropping one entry that
/// has not been used lately (CLOCK, the second-chance approximation of least recently used: one
/// bit per entry set by each hit, no list to reorder): the entries a workload keeps coming back to
/// stay, whatever passes through besides. (Clearing the whole table when it filled, as the
/// resolution caches did before, dropped the hot entries with the cold every `capacity` misses.)
///
/// Entries sit in slots; a hand goes round them. A new entry starts unused. Making room, the
/// hand passes used entries (marking each unused: its second chance) and replaces the first
/// unused one. Used from one thread.
public struct ClockCache<Key: Hashable, Value> {
    public let capacity: Int
    private var slots: [Key: Int] = [:]
    private var keys: [Key] = []
    private var values: [Value] = []
    private var used: [Bool] = []
    private var hand = 0

    /// `capacity`: at least 1.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many entries are kept.
    public var count: Int { keys.count }

    /// The value kept for `key`, marking the entry used (nil: none).
    @inline(__always)
    public mutating func get(_ key: Key) -> Value? {
        guard let i = slots[key] else { return nil }
        used[i] = true
        return values[i]
    }

    /// The value kept for `key`, without marking it used.
    public func peek(_ key: Key) -> Value? {
        slots[key].map { values[$0] }
    }

    /// Keeps `value` for `key`: in the key's slot when it has one (marked used), else in a free
    /// slot, else in the slot of the entry the hand drops.
    public mutating func set(_ key: Key, _ value: Value) {
        if let i = slots[key] {
            values[i] = value
            used[i] = true
            return
        }
        if keys.count < capacity {
            slots[key] = keys.count
            keys.append(key)
            values.append(value)
            used.append(false)
            return
        }
        // At most one full turn: every used entry passed is marked unused.
        while used[hand] {
            used[hand] = false
            hand = hand + 1 == capacity ? 0 : hand + 1
        }
        slots[keys[hand]] = nil
        slots[key] = hand
        keys[hand] = key
        values[hand] = value
        hand = hand + 1 == capacity ? 0 : hand + 1
    }

    /// Changes the value kept for `key` in place, marking it used; false (nothing changed) when
    /// none is kept.
    @discardableResult
    public mutating func update(_ key: Key, _ change: (inout Value) -> Void) -> Bool {
        guard let i = slots[key] else { return false }
        used[i] = true
        change(&values[i])
        return true
    }
}
