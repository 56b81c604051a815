import CLua
import LoomCore
import LuaRuntime
import OrderedCollections

/// Conversions between JSON values and Lua values (raw table access only), bounded by
/// `Limits`: at most `Limits.maxNesting` levels, `Limits.maxNodes` values and
/// `Limits.maxStringBytes` bytes of strings per conversion; the Lua stack is grown
/// (`lua_checkstack`) before every level. Past a bound: an error, never a trap.
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
            guard depth < JSONValue.pushDepthLimit, lua_checkstack(L, 5) != 0 else {
                complete = false
                return pushNil()
            }
            newTable(narr: Int32(clamping: a.count))
            for (i, v) in a.enumerated() {
                pushJSON(v, ordered: ordered, depth: depth + 1, complete: &complete)
                setIndex(-2, i + 1)
            }
        case .object(let o):
            guard depth < JSONValue.pushDepthLimit, lua_checkstack(L, 5) != 0 else {
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
                lua_setmetatable(L, -2)
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
        guard lua_checkstack(L, 3) != 0, lua_getmetatable(L, idx) != 0 else { return nil }
        defer { pop(1) }
        getField(-1, "__keys")
        defer { pop(1) }
        guard type(-1) == LUA_TTABLE else { return nil }
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
        var len = 0
        guard lua_type(L, idx) == LUA_TSTRING, let p = loom_tolstring(L, idx, &len) else { return "" }
        let bytes = UnsafeRawBufferPointer(start: p, count: len).bindMemory(to: UInt8.self)
        if len <= maxBytes { return String(decoding: bytes, as: UTF8.self) }
        var cut = max(maxBytes, 0)
        while cut > 0 && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<cut]), as: UTF8.self) + "…"
    }

    /// The messages of a rule's `check` result at `idx`: a string, or a list of strings. At most
    /// `Limits.maxMessages` messages of `Limits.maxMessageBytes` bytes each are read (then a
    /// line says how many more there were), whatever the list holds.
    func checkMessages(at idx: Int32) -> [String] {
        let t = absIndex(idx)
        if lua_type(L, t) == LUA_TSTRING { return [boundedString(t, maxBytes: Limits.maxMessageBytes)] }
        guard lua_type(L, t) == LUA_TTABLE, lua_checkstack(L, 2) != 0 else { return [] }
        var out: [String] = []
        let n = rawLength(t)
        let shown = min(n, Limits.maxMessages)
        if shown > 0 {
            for i in 1...shown {
                getIndex(t, i)
                if lua_type(L, -1) == LUA_TSTRING { out.append(boundedString(-1, maxBytes: Limits.maxMessageBytes)) }
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

/// One conversion of a Lua value to JSON, with its budget, the tables being read (for cycles)
/// and the path (for messages).
struct LuaJSONReader {
    let state: LuaState
    var nodes = 0
    var bytes = 0
    /// The tables on the path being read, and the path length at each (a table reached again
    /// below itself is a cycle).
    var open: [(table: UnsafeRawPointer, pathCount: Int)] = []
    var path: [PathPart] = []
    /// Tables already converted in this conversion: a table reached again is not walked again
    /// but counts again (its values, bytes and height), so a shared subtable (`{a = t, b = t}`
    /// forty times over) meets the budget at once instead of after a million values.
    var done: [UnsafeRawPointer: Converted] = [:]
    /// The deepest level reached below the table being read.
    var deepest = 0

    struct Converted {
        var value: JSONValue
        var nodes: Int
        var bytes: Int
        var height: Int
    }

    enum PathPart {
        case key(String)
        case index(Int)
    }

    init(state: LuaState) { self.state = state }

    var L: OpaquePointer { state.L }

    func text(of path: ArraySlice<PathPart>) -> String {
        func joined(_ parts: ArraySlice<PathPart>) -> String {
            var s = ""
            for p in parts {
                switch p {
                case .key(let k): s += (s.isEmpty ? "" : ".") + JSONKeyText.quoted(k).dropFirst().dropLast()
                case .index(let i): s += "[\(i)]"
                }
            }
            return s
        }
        if path.count > 10 { return joined(path.prefix(4)) + " … " + joined(path.suffix(4)) }
        return joined(path)
    }

    func fail(_ message: String) -> Result<JSONValue, LuaHostError> {
        .failure(LuaHostError(path.isEmpty ? message : "at \(text(of: path[...])): \(message)"))
    }

    /// Counts one value against the budget.
    mutating func spendNode() -> Result<JSONValue, LuaHostError>? {
        nodes += 1
        if nodes > Limits.maxNodes {
            return valuesExceeded()
        }
        return nil
    }

    /// The string at `idx` (validated UTF-8, counted against the budget), or a failure.
    mutating func string(_ idx: Int32, what: String) -> Result<String, LuaHostError> {
        var len = 0
        guard let p = loom_tolstring(L, idx, &len) else { return .success("") }
        bytes += len
        if bytes > Limits.maxStringBytes {
            return .failure(bytesExceeded().failureError)
        }
        let buffer = UnsafeRawBufferPointer(start: p, count: len).bindMemory(to: UInt8.self)
        if let bad = firstInvalidUTF8(buffer) {
            return .failure(fail("\(what) is not valid UTF-8 (byte \(hexByte(buffer[bad])) at offset \(bad))").failureError)
        }
        return .success(String(decoding: buffer, as: UTF8.self))
    }

    mutating func read(_ idx: Int32, level: Int) -> Result<JSONValue, LuaHostError> {
        if let f = spendNode() { return f }
        switch lua_type(L, idx) {
        case LUA_TNIL, LUA_TNONE: return .success(.null)
        case LUA_TBOOLEAN: return .success(.bool(state.toBool(idx)))
        case LUA_TNUMBER:
            if state.isInteger(idx), let i = state.toInt(idx) { return .success(.int(i)) }
            let d = state.toDouble(idx) ?? 0
            guard d.isFinite else { return fail("a number that is not finite (\(d)) cannot be shown") }
            return .success(.double(d))
        case LUA_TSTRING: return string(idx, what: "string").map { .string($0) }
        case LUA_TTABLE: return table(idx, level: level + 1)
        case LUA_TUSERDATA:
            // A read-only view the host handed out (a userdata plugins see as a table).
            if state.isReadonlyView(idx) { return table(idx, level: level + 1) }
            return fail("a \(state.typeName(idx)) cannot be converted to JSON")
        default:
            return fail("a \(state.typeName(idx)) cannot be converted to JSON")
        }
    }

    /// A cycle: `pointer` is a table being read above.
    func cycle(_ pointer: UnsafeRawPointer) -> Result<JSONValue, LuaHostError>? {
        guard let o = open.first(where: { $0.table == pointer }) else { return nil }
        let here = text(of: path[...])
        let first = o.pathCount == 0 ? "the top-level table" : "the table at \(text(of: path.prefix(o.pathCount)))"
        return .failure(LuaHostError("a cycle: \(first) contains itself (reached again at \(here.isEmpty ? "the top" : here))"))
    }

    mutating func table(_ start: Int32, level: Int) -> Result<JSONValue, LuaHostError> {
        if level > Limits.maxNesting { return fail("table \(Limits.nestingMessage)") }
        guard let p = lua_topointer(L, start) else { return fail("a value without identity cannot be converted to JSON") }
        if let c = done[p] {
            // `read` counted the table itself already.
            nodes += c.nodes - 1
            bytes += c.bytes
            if level + c.height - 1 > Limits.maxNesting { return fail("table \(Limits.nestingMessage)") }
            if nodes > Limits.maxNodes { return valuesExceeded() }
            if bytes > Limits.maxStringBytes { return bytesExceeded() }
            deepest = max(deepest, level + c.height - 1)
            return .success(c.value)
        }
        let startNodes = nodes - 1, startBytes = bytes
        let outer = deepest
        deepest = level
        let r = walk(start, level: level)
        let height = deepest - level + 1
        deepest = max(outer, deepest)
        if case .success(let v) = r {
            done[p] = Converted(value: v, nodes: nodes - startNodes, bytes: bytes - startBytes, height: height)
        }
        return r
    }

    func valuesExceeded() -> Result<JSONValue, LuaHostError> {
        fail("more than \(Limits.maxNodes) values in one conversion (a table reached several times counts each time)")
    }

    func bytesExceeded() -> Result<JSONValue, LuaHostError> {
        fail("more than \(Limits.maxStringBytes >> 20) MiB of strings in one conversion (a string reached several times counts each time)")
    }

    /// Converts a table not converted before in this conversion.
    mutating func walk(_ start: Int32, level: Int) -> Result<JSONValue, LuaHostError> {
        guard lua_checkstack(L, 8) != 0 else { return fail("tables nested too deeply for the Lua stack") }
        let top = state.top
        defer { state.top = top }
        // A read-only view the host handed out (a node's meta, say, returned as props): read
        // the table behind it. Views of views are followed too, each checked for a cycle.
        var idx = start
        let openCount = open.count
        defer { open.removeLast(open.count - openCount) }
        while true {
            guard let p = lua_topointer(L, idx) else { return fail("a value without identity cannot be converted to JSON") }
            if let c = cycle(p) { return c }
            open.append((p, path.count))
            guard open.count - openCount <= Limits.maxNesting, lua_checkstack(L, 4) != 0 else {
                return fail("read-only views \(Limits.nestingMessage)")
            }
            guard state.pushReadonlyTarget(idx) else { break }
            idx = state.absIndex(-1)
        }
        guard lua_type(L, idx) == LUA_TTABLE else { return fail("a \(state.typeName(idx)) cannot be converted to JSON") }
        // First the keys (Lua's traversal order varies from run to run: nothing is decided in
        // it), then the values in the order they come out in, so that the same table always
        // gives the same value or the same error.
        let n = state.rawLength(idx)
        var count = 0
        var keys: [String] = []
        var sawInteger = false
        var badKeyType: String?
        var invalidKey: (bytes: [UInt8], offset: Int)?
        lua_pushnil(L)
        while lua_next(L, idx) != 0 {
            count += 1
            switch lua_type(L, -2) {
            case LUA_TSTRING:
                var len = 0
                guard let p = loom_tolstring(L, -2, &len) else { break }
                bytes += len
                if bytes > Limits.maxStringBytes { return bytesExceeded() }
                let buffer = UnsafeRawBufferPointer(start: p, count: len).bindMemory(to: UInt8.self)
                if let bad = firstInvalidUTF8(buffer) {
                    let raw = Array(buffer)
                    if invalidKey == nil || raw.lexicographicallyPrecedes(invalidKey!.bytes) { invalidKey = (raw, bad) }
                } else {
                    keys.append(String(decoding: buffer, as: UTF8.self))
                }
            case LUA_TNUMBER where state.isInteger(-2):
                sawInteger = true
            default:
                let tn = state.typeName(-2)
                if badKeyType == nil || tn < badKeyType! { badKeyType = tn }
            }
            state.pop(1)
        }
        if let t = badKeyType { return fail("table keys must be strings (or 1...n for a list), found a \(t) key") }
        if sawInteger && (!keys.isEmpty || invalidKey != nil) { return fail("a table mixes list entries and named fields") }
        if let k = invalidKey { return fail("key is not valid UTF-8 (byte \(hexByte(k.bytes[k.offset])) at offset \(k.offset))") }
        if count == 0 { return .success(.object([:])) }
        if sawInteger {
            guard count == n else { return fail("a list must have keys 1...n without holes") }
            var arr: [JSONValue] = []
            arr.reserveCapacity(n)
            for i in 1...n {
                state.getIndex(idx, i)
                path.append(.index(i))
                let r = read(state.absIndex(-1), level: level)
                path.removeLast()
                state.pop(1)
                switch r {
                case .success(let v): arr.append(v)
                case .failure(let e): return .failure(e)
                }
            }
            return .success(.array(arr))
        }
        // Sorted; keys Swift compares equal (canonically equivalent) by their bytes, so the
        // order is total.
        func sorted(_ a: String, _ b: String) -> Bool {
            a == b ? a.utf8.lexicographicallyPrecedes(b.utf8) : a < b
        }
        var budget = Limits.maxNodes - nodes
        if let order = state.rememberedKeyOrder(idx, budget: &budget) {
            nodes = Limits.maxNodes - max(budget, 0)
            // The order it came in with; keys added since go after, sorted.
            keys.sort { a, b in
                switch (order[a], order[b]) {
                case let (x?, y?): return x == y ? sorted(a, b) : x < y
                case (_?, nil): return true
                case (nil, _?): return false
                default: return sorted(a, b)
                }
            }
        } else {
            keys.sort(by: sorted)
        }
        // Lua keys differ as bytes; Swift strings compare by canonical equivalence, so two
        // distinct keys ("\u{E9}" and "e\u{301}") may be one dictionary key: reported, never
        // a trap.
        var object = OrderedDictionary<String, JSONValue>(minimumCapacity: keys.count)
        for k in keys {
            if let i = object.index(forKey: k) {
                let (a, b) = object.keys[i].utf8.lexicographicallyPrecedes(k.utf8) ? (object.keys[i], k) : (k, object.keys[i])
                return fail(JSONKeyText.equivalentKeysMessage(a, b))
            }
            state.push(k)
            lua_rawget(L, idx)
            path.append(.key(k))
            let r = read(state.absIndex(-1), level: level)
            path.removeLast()
            state.pop(1)
            switch r {
            case .success(let v): object[k] = v
            case .failure(let e): return .failure(e)
            }
        }
        return .success(.object(object))
    }
}

extension Result where Success == JSONValue, Failure == LuaHostError {
    fileprivate var failureError: LuaHostError {
        if case .failure(let e) = self { return e }
        return LuaHostError("")
    }
}

/// "0xff"
private func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x\(digits[Int(b >> 4)])\(digits[Int(b & 15)])"
}

/// The offset of the first byte that is not part of well-formed UTF-8 (bad lead byte, bad or
/// missing continuation, overlong form, surrogate, beyond U+10FFFF), nil when all is well.
func firstInvalidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
    var i = 0
    let end = b.count
    while i < end {
        let c = b[i]
        if c < 0x80 {
            i += 1
            continue
        }
        var n: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; low = 0xA0
        case 0xED: n = 3; high = 0x9F
        case 0xE1...0xEF: n = 3
        case 0xF0: n = 4; low = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; high = 0x8F
        default: return i
        }
        guard end - i >= n else { return i }
        guard b[i + 1] >= low, b[i + 1] <= high else { return i + 1 }
        for k in 2..<n where b[i + k] & 0xC0 != 0x80 { return i + k }
        i += n
    }
    return nil
}
