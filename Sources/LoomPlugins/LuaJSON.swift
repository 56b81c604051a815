import CLua
import LoomCore
import LuaRuntime
import OrderedCollections

/// Conversions between JSON values and Lua values (raw table access only).
extension LuaState {
    /// Pushes a JSON value: objects and arrays become tables (arrays 1-based), null becomes nil.
    /// With `keepingOrder`, each object remembers its key order in a metatable (`__keys`), so
    /// that it comes back out in that order; for tables the host freezes (nodes, users,
    /// arguments), whose metatables no plugin can reach.
    func push(json: JSONValue, keepingOrder: Bool = false) {
        if keepingOrder { return pushOrdered(json) }
        switch json {
        case .null: pushNil()
        case .bool(let b): push(b)
        case .int(let i): push(i)
        case .double(let d): push(d)
        case .string(let s): push(s)
        case .array(let a):
            newTable(narr: Int32(clamping: a.count))
            for (i, v) in a.enumerated() {
                push(json: v)
                setIndex(-2, i + 1)
            }
        case .object(let o):
            newTable(nrec: Int32(clamping: o.count))
            for (k, v) in o {
                if case .null = v { continue }
                push(json: v)
                setField(-2, k)
            }
        }
    }

    private func pushOrdered(_ json: JSONValue) {
        switch json {
        case .array(let a):
            newTable(narr: Int32(clamping: a.count))
            for (i, v) in a.enumerated() {
                pushOrdered(v)
                setIndex(-2, i + 1)
            }
        case .object(let o):
            newTable(nrec: Int32(clamping: o.count))
            var keys: [String] = []
            for (k, v) in o {
                if case .null = v { continue }
                pushOrdered(v)
                setField(-2, k)
                keys.append(k)
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
        default:
            push(json: json)
        }
    }

    /// The key order a table remembers (see `push(json:keepingOrder:)`), if any.
    func rememberedKeyOrder(_ idx: Int32) -> [String: Int]? {
        guard lua_getmetatable(L, idx) != 0 else { return nil }
        defer { pop(1) }
        getField(-1, "__keys")
        defer { pop(1) }
        guard type(-1) == LUA_TTABLE else { return nil }
        var order: [String: Int] = [:]
        let n = rawLength(-1)
        if n > 0 {
            for i in 1...n {
                getIndex(-1, i)
                if let k = toString(-1) { order[k] = i }
                pop(1)
            }
        }
        return order
    }

    /// Pushes a located JSON value (its plain value; positions stay in Swift).
    func push(json node: JSONNode, keepingOrder: Bool = false) { push(json: node.plain, keepingOrder: keepingOrder) }

    /// When the table at `idx` is one of the sandbox's read-only views (empty, with a metatable
    /// whose `__index` is a table and which has `__pairs`), pushes the table behind it.
    func pushReadonlyTarget(_ idx: Int32) -> Bool {
        lua_pushnil(L)
        if lua_next(L, idx) != 0 {
            pop(2)
            return false  // has contents of its own: not a view
        }
        guard lua_getmetatable(L, idx) != 0 else { return false }
        getField(-1, "__pairs")
        let hasPairs = type(-1) == LUA_TFUNCTION
        pop(1)
        getField(-1, "__index")
        guard hasPairs, type(-1) == LUA_TTABLE else {
            pop(2)
            return false
        }
        lua_rotate(L, -2, 1)
        pop(1)  // the metatable; the target stays on the stack
        return true
    }

    /// Reads the value at `index` as JSON. Tables whose keys are exactly 1...n become arrays,
    /// other tables objects with their keys sorted (so output is the same on every run); an
    /// empty table is an empty object. Functions, userdata, threads, cycles and non-string
    /// keys are errors.
    func json(at index: Int32, depth: Int = 0) -> Result<JSONValue, LuaHostError> {
        let idx = absIndex(index)
        switch type(idx) {
        case LUA_TNIL, LUA_TNONE: return .success(.null)
        case LUA_TBOOLEAN: return .success(.bool(toBool(idx)))
        case LUA_TNUMBER:
            if isInteger(idx), let i = toInt(idx) { return .success(.int(i)) }
            let d = toDouble(idx) ?? 0
            guard d.isFinite else { return .failure(LuaHostError("a number that is not finite (\(d)) cannot be shown")) }
            return .success(.double(d))
        case LUA_TSTRING: return .success(.string(toString(idx) ?? ""))
        case LUA_TTABLE:
            if depth > 64 { return .failure(LuaHostError("table nested deeper than 64 levels (a cycle?)")) }
            // A read-only view the host handed out (a node's meta, say, returned as props): read
            // the table behind it.
            if pushReadonlyTarget(idx) {
                defer { pop(1) }
                return json(at: -1, depth: depth + 1)
            }
            let n = rawLength(idx)
            var count = 0
            var stringKeys: [(String, JSONValue)] = []
            var failure: LuaHostError?
            var allIntegerKeys = true
            forEachPair(idx) {
                guard failure == nil else { return }
                count += 1
                if type(-2) == LUA_TSTRING {
                    allIntegerKeys = false
                    let key = toString(-2) ?? ""
                    switch json(at: -1, depth: depth + 1) {
                    case .success(let v): stringKeys.append((key, v))
                    case .failure(let e): failure = LuaHostError("field '\(key)': \(e.message)")
                    }
                } else if !(type(-2) == LUA_TNUMBER && isInteger(-2)) {
                    failure = LuaHostError("table keys must be strings (or 1...n for a list), found a \(typeName(-2)) key")
                }
            }
            if let failure { return .failure(failure) }
            if count == 0 { return .success(.object([:])) }
            if allIntegerKeys {
                guard count == n else { return .failure(LuaHostError("a list must have keys 1...n without holes")) }
                var arr: [JSONValue] = []
                arr.reserveCapacity(n)
                for i in 1...n {
                    getIndex(idx, i)
                    let r = json(at: -1, depth: depth + 1)
                    pop(1)
                    switch r {
                    case .success(let v): arr.append(v)
                    case .failure(let e): return .failure(LuaHostError("[\(i)]: \(e.message)"))
                    }
                }
                return .success(.array(arr))
            }
            guard stringKeys.count == count else { return .failure(LuaHostError("a table mixes list entries and named fields")) }
            if let order = rememberedKeyOrder(idx) {
                // The order it came in with; keys added since go after, sorted.
                stringKeys.sort { a, b in
                    switch (order[a.0], order[b.0]) {
                    case let (x?, y?): return x < y
                    case (_?, nil): return true
                    case (nil, _?): return false
                    default: return a.0 < b.0
                    }
                }
            } else {
                stringKeys.sort { $0.0 < $1.0 }
            }
            return .success(.object(OrderedDictionary(uniqueKeysWithValues: stringKeys)))
        default:
            return .failure(LuaHostError("a \(typeName(idx)) cannot be converted to JSON"))
        }
    }
}
