import LoomCore
import LuaRuntime
import OrderedCollections

/// One conversion of a Lua value to JSON, with its budget, the tables being read (for cycles)
/// and the path (for messages).
struct LuaJSONReader {
    let state: LuaState
    var nodes = 0
    var bytes = 0
    /// The tables on the path being read, and the path length at each (a table reached again
    /// below itself is a cycle).
    var open: [(table: LuaIdentity, pathCount: Int)] = []
    var path: [PathPart] = []
    /// Tables already converted in this conversion: a table reached again is not walked again
    /// but counts again (its values, bytes and height), so a shared subtable (`{a = t, b = t}`
    /// forty times over) meets the budget at once instead of after a million values.
    var done: [LuaIdentity: Converted] = [:]
    /// The deepest level reached below the table being read.
    var deepest = 0
    /// Whether a table was read below the table being read (a table without any is walked again
    /// when reached again: that costs what it counts, and keeps `done` for the tables that
    /// hold tables, usually none).
    var sawTable = false

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
        guard let buffer = state.stringBytes(idx) else { return .success("") }
        bytes += buffer.count
        if bytes > Limits.maxStringBytes {
            return .failure(bytesExceeded().failureError)
        }
        if let bad = firstInvalidUTF8(buffer) {
            return .failure(fail("\(what) is not valid UTF-8 (byte \(hexByte(buffer[bad])) at offset \(bad))").failureError)
        }
        return .success(String(decoding: buffer, as: UTF8.self))
    }

    mutating func read(_ idx: Int32, level: Int) -> Result<JSONValue, LuaHostError> {
        if let f = spendNode() { return f }
        switch state.type(idx) {
        case .nil, .none: return .success(.null)
        case .boolean: return .success(.bool(state.toBool(idx)))
        case .number:
            if state.isInteger(idx), let i = state.toInt(idx) { return .success(.int(i)) }
            let d = state.toDouble(idx) ?? 0
            guard d.isFinite else { return fail("a number that is not finite (\(d)) cannot be shown") }
            return .success(.double(d))
        case .string: return string(idx, what: "string").map { .string($0) }
        case .table: return table(idx, level: level + 1)
        case .userdata:
            // A read-only view the host handed out (a userdata plugins see as a table).
            if state.isReadonlyView(idx) { return table(idx, level: level + 1) }
            return fail("a \(state.typeName(idx)) cannot be converted to JSON")
        default:
            return fail("a \(state.typeName(idx)) cannot be converted to JSON")
        }
    }

    /// A cycle: `pointer` is a table being read above.
    func cycle(_ pointer: LuaIdentity) -> Result<JSONValue, LuaHostError>? {
        guard let o = open.first(where: { $0.table == pointer }) else { return nil }
        let here = text(of: path[...])
        let first = o.pathCount == 0 ? "the top-level table" : "the table at \(text(of: path.prefix(o.pathCount)))"
        return .failure(LuaHostError("a cycle: \(first) contains itself (reached again at \(here.isEmpty ? "the top" : here))"))
    }

    mutating func table(_ start: Int32, level: Int) -> Result<JSONValue, LuaHostError> {
        if level > Limits.maxNesting { return fail("table \(Limits.nestingMessage)") }
        guard let p = state.identity(start) else { return fail("a value without identity cannot be converted to JSON") }
        if let c = done[p] {
            sawTable = true
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
        sawTable = false
        let r = walk(start, level: level)
        let height = deepest - level + 1
        deepest = max(outer, deepest)
        let holdsTables = sawTable
        sawTable = true  // for the table holding this one
        // Not for the top-level table: it could only be reached again from inside itself, a
        // cycle, found before this is read (so a conversion of one flat table, the usual props
        // or arguments, needs no dictionary). Nor for a table holding no table: walked again
        // when reached again, it costs no more than the values it counts again.
        if case .success(let v) = r, level > 1, holdsTables {
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
        guard state.checkStack(8) else { return fail("tables nested too deeply for the Lua stack") }
        let top = state.top
        defer { state.top = top }
        // A read-only view the host handed out (a node's meta, say, returned as props): read
        // the table behind it. Views of views are followed too, each checked for a cycle.
        var idx = start
        let openCount = open.count
        defer { open.removeLast(open.count - openCount) }
        while true {
            guard let p = state.identity(idx) else { return fail("a value without identity cannot be converted to JSON") }
            if let c = cycle(p) { return c }
            open.append((p, path.count))
            guard open.count - openCount <= Limits.maxNesting, state.checkStack(4) else {
                return fail("read-only views \(Limits.nestingMessage)")
            }
            guard state.pushReadonlyTarget(idx) else { break }
            idx = state.absIndex(-1)
        }
        guard state.type(idx) == .table else { return fail("a \(state.typeName(idx)) cannot be converted to JSON") }
        // First the keys (Lua's traversal order varies from run to run: nothing is decided in
        // it), then the values in the order they come out in, so that the same table always
        // gives the same value or the same error.
        let n = state.rawLength(idx)
        var count = 0
        var keys: [String] = []
        keys.reserveCapacity(8)  // one allocation for the usual handful of keys
        var sawInteger = false
        var badKeyType: String?
        var invalidKey: (bytes: [UInt8], offset: Int)?
        state.pushNil()
        while state.next(idx) {
            count += 1
            switch state.type(-2) {
            case .string:
                guard let buffer = state.stringBytes(-2) else { break }
                bytes += buffer.count
                if bytes > Limits.maxStringBytes { return bytesExceeded() }
                if let bad = firstInvalidUTF8(buffer) {
                    let raw = Array(buffer)
                    if invalidKey == nil || raw.lexicographicallyPrecedes(invalidKey!.bytes) { invalidKey = (raw, bad) }
                } else {
                    keys.append(String(decoding: buffer, as: UTF8.self))
                }
            case .number where state.isInteger(-2):
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
            state.rawGet(idx)
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
