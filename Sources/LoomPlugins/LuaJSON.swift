import LoomCore
import LuaRuntime
import OrderedCollections

/// Conversions between JSON values and Lua values (raw table access only), bounded by
/// `Limits`: at most `Limits.maxNesting` levels, `Limits.maxNodes` values and
/// `Limits.maxStringBytes` bytes of strings per conversion; the Lua stack is grown
/// (`checkStack`) before every level. Past a bound: an error, never a trap.
extension LuaState {
    /// Pushes a JSON value: objects and arrays become tables (arrays 1-based), null becomes nil.
    /// With `keepingOrder`, each object remembers its key order in a metatable (`__keys`), so
    /// that it comes back out in that order; for tables the host freezes (nodes, users,
    /// arguments), whose metatables no plugin can reach.
    ///
    /// Values the host reads from files are checked against `Limits.maxNesting` where they are
    /// read; this never overflows the Lua stack whatever it is given: a part for which the
    /// stack cannot grow (or nested deeper than `JSONValue.pushDepthLimit`) is pushed as nil,
    /// and the result is false.
    @discardableResult
    public func push(json: JSONValue, keepingOrder: Bool = false) -> Bool {
        var complete = true
        pushJSON(json, ordered: keepingOrder, depth: 0, complete: &complete)
        return complete
    }

    private func pushJSON(_ json: JSONValue, ordered: Bool, depth: Int, complete: inout Bool) {
        switch json {
        case .null: pushNil()
        case .bool(let b): push(b)
        case .int(let i): push(i)
        case .double(let d): push(d)
        case .string(let s): push(s)
        case .array(let a):
            // A level holds its table and one value; an ordered object also its key list,
            // the metatable and a key.
            guard depth < JSONValue.pushDepthLimit, checkStack(5) else {
                complete = false
                return pushNil()
            }
            newTable(narr: Int32(clamping: a.count))
            for (i, v) in a.enumerated() {
                pushJSON(v, ordered: ordered, depth: depth + 1, complete: &complete)
                setIndex(-2, i + 1)
            }
        case .object(let o):
            guard depth < JSONValue.pushDepthLimit, checkStack(5) else {
                complete = false
                return pushNil()
            }
            newTable(nrec: Int32(clamping: o.count))
            var keys: [String] = []
            for (k, v) in o {
                if case .null = v { continue }
                pushJSON(v, ordered: ordered, depth: depth + 1, complete: &complete)
                setField(-2, k)
                if ordered { keys.append(k) }
            }
            if keys.count > 1 {
                newTable(nrec: 1)
                newTable(narr: Int32(clamping: keys.count))
                for (i, k) in keys.enumerated() {
                    push(k)
                    setIndex(-2, i + 1)
                }
                setField(-2, "__keys")
                setMetatable(-2)
            }
        }
    }

    /// The key order a table remembers (see `push(json:keepingOrder:)`), if any.
    func rememberedKeyOrder(_ idx: Int32) -> [String: Int]? {
        var budget = Int.max
        return rememberedKeyOrder(idx, budget: &budget)
    }

    /// The same, reading at most `budget` entries of the order list (and spending them).
    func rememberedKeyOrder(_ idx: Int32, budget: inout Int) -> [String: Int]? {
        guard checkStack(3), pushMetatable(idx) else { return nil }
        defer { pop(1) }
        getField(-1, "__keys")
        defer { pop(1) }
        guard type(-1) == .table else { return nil }
        var order: [String: Int] = [:]
        let n = min(rawLength(-1), max(budget, 0))
        budget -= n
        if n > 0 {
            for i in 1...n {
                getIndex(-1, i)
                if let k = toString(-1), order[k] == nil { order[k] = i }
                pop(1)
            }
        }
        return order
    }

    /// Pushes a located JSON value (its plain value; positions stay in Swift).
    @discardableResult
    public func push(json node: JSONNode, keepingOrder: Bool = false) -> Bool { push(json: node.plain, keepingOrder: keepingOrder) }

    /// The string at `idx` (a Lua string), at most `maxBytes` of it: only that prefix is
    /// copied (cut at a character boundary, marked with "…"). Not UTF-8: replacement characters.
    func boundedString(_ idx: Int32, maxBytes: Int) -> String {
        guard let bytes = stringBytes(idx) else { return "" }
        let len = bytes.count
        if len <= maxBytes { return String(decoding: bytes, as: UTF8.self) }
        var cut = max(maxBytes, 0)
        while cut > 0 && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: bytes[..<cut], as: UTF8.self) + "…"
    }

    /// The messages of a rule's `check` result at `idx`: a string, or a list of strings. At most
    /// `Limits.maxMessages` messages of `Limits.maxMessageBytes` bytes each are read (then a
    /// line says how many more there were), whatever the list holds.
    func checkMessages(at idx: Int32) -> [String] {
        let t = absIndex(idx)
        if type(t) == .string { return [boundedString(t, maxBytes: Limits.maxMessageBytes)] }
        guard type(t) == .table, checkStack(2) else { return [] }
        var out: [String] = []
        let n = rawLength(t)
        let shown = min(n, Limits.maxMessages)
        if shown > 0 {
            for i in 1...shown {
                getIndex(t, i)
                if type(-1) == .string { out.append(boundedString(-1, maxBytes: Limits.maxMessageBytes)) }
                pop(1)
            }
        }
        if n > shown { out.append("… and \(n - shown) more messages (only the first \(Limits.maxMessages) are shown)") }
        return out
    }

    /// Reads the value at `index` as JSON. Tables whose keys are exactly 1...n become arrays,
    /// other tables objects with their keys sorted (so output is the same on every run); an
    /// empty table is an empty object. Errors (with the path of the value, e.g. `at a.b[2]`):
    /// functions, userdata, threads, non-string keys, keys or strings that are not UTF-8, two
    /// keys Swift compares equal, a cycle, nesting deeper than `Limits.maxNesting`, more than
    /// `Limits.maxNodes` values or `Limits.maxStringBytes` bytes of strings in all.
    public func json(at index: Int32) -> Result<JSONValue, LuaHostError> {
        var reader = LuaJSONReader(state: self)
        return reader.read(absIndex(index), level: 0)
    }
}

extension JSONValue {
    /// Nesting beyond which `push(json:)` pushes nil (a guard for values built in Swift; every
    /// value read from a file or from Lua is far shallower: `JSONReader.maxDepth`,
    /// `Limits.maxNesting`).
    static let pushDepthLimit = 2 * JSONReader.maxDepth
}
