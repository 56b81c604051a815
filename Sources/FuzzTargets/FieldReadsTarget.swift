import Foundation
import LuaRuntime

/// `FuzzFieldReads`: any bytes as the body of a rule `function(u, args, node) … end`, compiled by
/// this machine's Lua and read back from its own bytecode (`LuaState.fieldReads`,
/// loom_plain_view.c: the dump reader and the analysis). When the function is found plain (it
/// uses `u` only to read the named fields listed), it is run twice in a bare state with a safe
/// environment: once with a plain table holding a value for each listed field (as `host eval`
/// calls it), once with a watching table that answers the same values through metamethods and
/// notes any other use (a field not listed, a write, `#`, `pairs`, `tostring`, a comparison,
/// arithmetic, a call), and is looked for afterwards in what the function returned and in its
/// globals.
///
/// Invariants: reading any function's bytecode neither crashes nor hangs; a plain function reads
/// only the fields listed, makes no other use of `u` and lets no reference to it out; it gives the
/// same outcome (success, and each result's type and value) with either table. (A function whose
/// two plain runs already differ, as one ordering tables by address may, is not compared.)
extension FuzzTargets {
    public static func fieldReads(_ data: [UInt8]) {
        guard data.count <= 4096, let state = FieldReadsFuzz.state else { return }
        let body = String(decoding: data, as: UTF8.self)
        // The chunk takes its environment as its argument, so the rule reaches nothing else.
        guard (try? state.load(source: "local _ENV = ...\nreturn function(u, args, node)\n" + body + "\nend", chunkName: "rule")) != nil else {
            return
        }
        state.setGlobal("CHUNK")
        // The function, made once to be read (running the chunk only makes the closure).
        guard (try? state.run("F = CHUNK(MAKE_SAFE())", chunkName: "=make")) != nil else { return }
        _ = state.getGlobal("F")
        guard state.type(-1) == .function else {
            state.pop()
            return
        }
        let ref = state.rawRef()
        defer { state.release(rawRef: ref) }
        guard let keys = state.fieldReads(ofFunction: ref) else { return }
        // The names read, each once.
        check(Set(keys).count == keys.count, "a name listed twice: \(keys)")
        var list = "KEYS = {"
        for k in keys { list += "\"" + k.utf8.map { String(format: "\\%d", $0) }.joined() + "\"," }
        guard (try? state.run(list + "}", chunkName: "=keys")) != nil else { return }
        do {
            try state.run("VERDICT = CHECK(CHUNK, KEYS)", chunkName: "=check")
        } catch {
            return  // a limit met (time, memory): no verdict
        }
        _ = state.getGlobal("VERDICT")
        let verdict = state.toString(-1) ?? "none"
        state.pop()
        check(verdict == "same" || verdict == "nondeterministic", "plain function \(body.debugDescription) reading \(keys): \(verdict)")
    }
}

enum FieldReadsFuzz {
    /// One bare state per process (the harness below loaded into it), remade every 2,000
    /// inputs so that what inputs leave behind stays bounded.
    static var state: LuaState? {
        uses += 1
        if made == nil || uses % 2_000 == 0 {
            made = try? LuaState(limits: LuaLimits(timeBudgetMilliseconds: 200, memoryMegabytes: 64))
            if let s = made, (try? s.run(harness, chunkName: "=harness")) == nil { made = nil }
        }
        return made
    }

    static let harness = #"""
        local function copy(t, without)
          local c = {}
          for k, v in pairs(t) do if not (without and without[k]) then c[k] = v end end
          return c
        end
        local SAFE = { "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen", "rawset",
          "select", "tonumber", "tostring", "type", "xpcall", "setmetatable", "getmetatable" }
        local G = _G
        function MAKE_SAFE()
          local env = {}
          for _, n in G.ipairs(SAFE) do env[n] = G[n] end
          env.string = copy(G.string, { dump = true })
          env.table = copy(G.table)
          env.utf8 = copy(G.utf8)
          env.math = copy(G.math, { random = true, randomseed = true })
          return env
        end
        local function value_for(k)
          local h = 0
          for i = 1, #k do h = (h * 31 + k:byte(i)) % 65521 end
          local r = h % 5
          if r == 0 then return nil elseif r == 1 then return h elseif r == 2 then return "v" .. h elseif r == 3 then return h % 2 == 0 end
          return h / 7
        end
        local function clean(x) return (tostring(x):gsub("0x%x+", "ADDR")) end
        local function outcome(ok, ...)
          local parts = { tostring(ok) }
          for i = 1, select("#", ...) do
            local v = select(i, ...)
            local t = type(v)
            if t == "table" or t == "function" or t == "userdata" or t == "thread" then parts[#parts + 1] = t
            else parts[#parts + 1] = t .. ":" .. clean(v) end
          end
          return table.concat(parts, "|")
        end
        -- Whether `x` holds `target` (tables, their keys and metatables, a few levels down).
        local function holds(x, target, depth, seen)
          if rawequal(x, target) then return true end
          if type(x) ~= "table" or depth > 4 or seen[x] then return false end
          seen[x] = true
          for k, v in next, x do
            if holds(k, target, depth + 1, seen) or holds(v, target, depth + 1, seen) then return true end
          end
          local mt = getmetatable(x)
          return mt ~= nil and holds(mt, target, depth + 1, seen)
        end
        function CHECK(chunk, keys)
          local listed, plain = {}, {}
          for _, k in ipairs(keys) do listed[k] = true plain[k] = value_for(k) end
          local node = { id = "n" }
          local function run(u)
            local env = MAKE_SAFE()
            local f = chunk(env)
            local results = table.pack(pcall(f, u, nil, node))
            return outcome(table.unpack(results, 1, results.n)), results, env
          end
          local a = run(copy(plain))
          local a2 = run(copy(plain))
          if a ~= a2 then return "nondeterministic" end
          local misuse = {}
          local function note(what) return function() misuse[#misuse + 1] = what end end
          local watched = setmetatable({}, {
            __index = function(_, k)
              if not listed[k] then misuse[#misuse + 1] = "read of " .. clean(k) end
              return plain[k]
            end,
            __newindex = note("write"), __len = function() misuse[#misuse + 1] = "#" return 0 end,
            __pairs = function() misuse[#misuse + 1] = "pairs" return next, {}, nil end,
            __tostring = function() misuse[#misuse + 1] = "tostring" return "table" end,
            __eq = note("=="), __lt = note("<"), __le = note("<="), __concat = note(".."), __call = note("call"),
            __unm = note("-"), __add = note("+"), __sub = note("-"), __mul = note("*"), __div = note("/"),
            __mod = note("%"), __pow = note("^"), __idiv = note("//"), __band = note("&"), __bor = note("|"),
            __bxor = note("~"), __shl = note("<<"), __shr = note(">>"), __bnot = note("~"), __close = note("close"),
            __name = "watched",
          })
          local b, results, env = run(watched)
          if #misuse > 0 then return "used otherwise: " .. table.concat(misuse, ", ") end
          for i = 2, results.n do
            if holds(results[i], watched, 1, {}) then return "returned the user" end
          end
          if holds(env, watched, 1, {}) then return "kept the user in a global" end
          if a ~= b then return "answers differ: " .. a .. " / " .. b end
          return "same"
        end
        """#
}
