import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins
import LoomWorkspace
import LuaRuntime
import OrderedCollections

/// Lua <-> host conversion through a real `PluginEngine` and a small plugin written to a temp
/// folder (`fuzzbridge/plugin.lua`).
///
/// Ops (byte % 16, some with an argument byte): 0 nil / drop / swap / nip, 1 boolean, 2 small
/// integer, 3 extreme integer, 4 float, 5 string of any bytes, 6 new table, 7 t[k] = v (any key),
/// 8 append, 9 duplicate a stack entry (shared reference), 10 wrap in a list, 11 function,
/// coroutine or a table the host handed in, 12 forged read-only view, 13 t["name"] = v,
/// 14 forged `__keys` metatable, 15 self-reference (cycle).
///
/// Input: byte 0 picks the mode (low 3 bits; bit 7 allows any number of shared references); the rest is either a program for the plugin's value generator
/// (modes 0-5 and 7) or JSON text (mode 6).
///
/// The generator (Lua, in the plugin) is a small stack machine over the bytes: it builds nil,
/// booleans, small and extreme integers, floats (NaN, infinities, -0.0, 2^63), strings with any
/// bytes, tables with mixed keys, lists, functions, coroutines, the read-only node tables the
/// host handed in, forged read-only views and forged `__keys` metatables, and (at most one per
/// program unless byte 0 has bit 7 set or `LOOM_FUZZ_SHARING` is set) shared references and cycles. Its result goes back to the
/// host as:
/// - 0: a builder's whole return value; 1: its `props`; 2: its `children`; 3: its `view`;
/// - 4: a rule's result; 5: a rule's argument check result; 7: a Lua flow's `navigate` result.
/// - 6: the JSON goes to Lua as a node's meta, a rule's arguments and a user attribute; the rule
///   walks all three; the builder returns the meta as its props, which must come back equal to
///   the meta (nulls in objects dropped, empty lists as empty objects); see `strict`.
///
/// One engine serves many inputs (recreated every 1,000, so that its caches stay bounded); each
/// input's screen gets its own file name, because the engine caches rule arguments by location.
public enum LuaBridgeTarget {
    static let pluginSource = #"""
    local function hexbytes(h)
      local out = {}
      if type(h) ~= "string" then return out end
      for i = 1, #h - 1, 2 do out[#out + 1] = tonumber(h:sub(i, i + 1), 16) or 0 end
      return out
    end

    local floats = { 0.5, -0.0, 1/0, -1/0, 0/0, 1e308, 5e-324, 2^63, -2^63, 2^53 + 1.0, 3.0, -1e-300 }
    local ints = { math.maxinteger, math.mininteger, 0, -1, 9007199254740993, 1, 2, 64, 65 }
    local keylists = { { "b", "a" }, { "a", "a", "b" }, {}, { 1, 2 }, "x", { "z", "y", "x", "w" } }

    -- A value from a byte program (see LuaBridgeTarget); extras: values the host handed in.
    local function gen(hex, sharing, extras)
      local b = hexbytes(hex)
      local i, n = 1, #b
      local function nextb() local v = b[i] or 0; i = i + 1; return v end
      local st, sp = {}, 0
      local function push(v) if sp < 64 then sp = sp + 1; st[sp] = v end end
      local function pop() if sp == 0 then return nil end local v = st[sp]; st[sp] = nil; sp = sp - 1; return v end
      local function top() return st[sp] end
      local shared = 0
      local function share() if sharing then return true end if shared >= 1 then return false end shared = shared + 1; return true end
      local steps = 0
      while i <= n and steps < 512 do
        steps = steps + 1
        local op = nextb() % 16
        if op == 0 then
          local w = nextb() % 4
          if w == 0 then push(nil)
          elseif w == 1 then pop()
          elseif w == 2 then if sp >= 2 then st[sp], st[sp - 1] = st[sp - 1], st[sp] end
          else if sp >= 2 then st[sp - 1] = st[sp]; st[sp] = nil; sp = sp - 1 end end
        elseif op == 1 then push(nextb() % 2 == 1)
        elseif op == 2 then push(nextb() - 128)
        elseif op == 3 then push(ints[nextb() % #ints + 1])
        elseif op == 4 then push(floats[nextb() % #floats + 1])
        elseif op == 5 then
          local len, cs = nextb() % 8, {}
          for k = 1, len do cs[k] = string.char(nextb()) end
          push(table.concat(cs))
        elseif op == 6 then push({})
        elseif op == 7 then
          local v = pop(); local k = pop(); local t = top()
          if type(t) == "table" then pcall(rawset, t, k, v) end
        elseif op == 8 then
          local v = pop(); local t = top()
          if type(t) == "table" then rawset(t, rawlen(t) + 1, v) end
        elseif op == 9 then
          local k = nextb()
          if sp > 0 and share() then push(st[k % sp + 1]) end
        elseif op == 10 then local v = pop(); push({ v })
        elseif op == 11 then
          local w = nextb() % 7
          if w == 0 then push(print)
          elseif w == 1 then push(coroutine.create(function() end))
          elseif w == 2 then push(extras.node)
          elseif w == 3 then push(extras.children)
          elseif w == 4 then push(extras.children and extras.children[1])
          elseif w == 5 then push(extras.node and extras.node.meta)
          else push(extras.user) end
        elseif op == 12 then
          local t = pop()
          if type(t) == "table" then
            push(setmetatable({}, { __index = t, __pairs = function() return next, t, nil end }))
          else push(t) end
        elseif op == 13 then
          local v = pop(); local t = top()
          local len, cs = nextb() % 6, {}
          for k = 1, len do cs[k] = string.char(nextb() % 128) end
          if type(t) == "table" then rawset(t, table.concat(cs), v) end
        elseif op == 14 then
          local t = top()
          if type(t) == "table" and getmetatable(t) == nil then
            setmetatable(t, { __keys = keylists[nextb() % #keylists + 1] })
          end
        else
          local t = top()
          if type(t) == "table" and share() then
            if nextb() % 2 == 0 then rawset(t, "self", t) else rawset(t, rawlen(t) + 1, t) end
          end
        end
      end
      return st[sp]
    end

    -- Reads every part of a value (as a rule or builder would), bounded.
    local function walk(v, depth, seen)
      if depth > 70 or type(v) ~= "table" or seen[v] then return 0 end
      seen[v] = true
      local c = #v
      for k, x in pairs(v) do c = c + 1 + walk(x, depth + 1, seen); local _ = tostring(k) end
      for _, x in ipairs(v) do c = c + 1 end
      return c
    end

    return {
      name = "fuzzbridge", version = "1.0.0", api = 1,
      register = function(host)
        host.cluster("fz_cluster", function(node, children)
          local m = node.meta
          local v = gen(m.p, m.sharing, { node = node, children = children })
          local mode = m.mode
          if mode == 0 then return v
          elseif mode == 1 then return { view = "V", props = v }
          elseif mode == 2 then return { view = "V", props = {}, children = v }
          elseif mode == 3 then return { view = v, props = { x = v } }
          end
          return { view = "V" }
        end, { open_meta = true })
        host.single("fz_leaf", function(node)
          return { view = "Leaf", props = node.meta }
        end, { open_meta = true })
        host.rule("fz_rule", function(user, args, node)
          if type(args) ~= "table" then return true end
          if args.mode == 4 then return gen(args.p, args.sharing, { node = node, user = user }) end
          return true
        end, { check = function(args)
          if type(args) == "table" and args.mode == 5 then return gen(args.p, args.sharing, {}) end
        end })
        host.rule("fz_walk", function(user, args, node)
          walk(args, 0, {}); walk(user, 0, {}); walk(node, 0, {})
          return true
        end)
        host.rule("fz_true", function() return true end)
        host.flow("fz_flow", {
          start = "s",
          navigate = function(step, nav)
            local p = step.param or ""
            local sharing = p:sub(1, 1) == "s"
            if sharing then p = p:sub(2) end
            return gen(p, sharing, { node = step })
          end,
          links = { ["app://fz/{id}"] = "go:{id}" },
        })
      end,
    }
    """#

    final class Harness {
        let engine: PluginEngine
        let flow: FlowDefinition?
        var uses = 0
        init() {
            let dir = NSTemporaryDirectory() + "loom-fuzz-\(getpid())/fuzzbridge"
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: dir + "/plugin.lua", contents: Data(LuaBridgeTarget.pluginSource.utf8))
            do {
                engine = try PluginEngine(limits: LuaLimits(timeBudgetMilliseconds: 100, memoryMegabytes: 32))
            } catch {
                fuzzFailure("cannot make a PluginEngine: \(error)")
            }
            engine.load(folders: [PluginFolder(path: dir)], limits: .standard)
            // Loaded: the folder is not read again (the plugin requires nothing).
            try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent)
            if engine.diagnostics.hasErrors { fuzzFailure("the fuzz plugin does not load: \(engine.diagnostics.items)") }
            var d = Diagnostics()
            flow = engine.flowDefinitions(diagnostics: &d).first { $0.name == "fz_flow" }
            if flow == nil { fuzzFailure("fz_flow is not registered: \(d.items)") }
        }
    }

    // The harness's state across inputs (`harness`, `serial`, `lastCheck`, `strict`) is in
    // Unsafe.swift.
    static let verbose = ProcessInfo.processInfo.environment["LOOM_FUZZ_VERBOSE"] != nil
    static let sharing = ProcessInfo.processInfo.environment["LOOM_FUZZ_SHARING"] != nil

    static func currentHarness() -> Harness {
        if let h = harness, h.uses < 1000 {
            h.uses += 1
            return h
        }
        harness = nil
        let h = Harness()
        harness = h
        return h
    }

    public static func run(_ data: [UInt8]) {
        guard let first = data.first else { return }
        let rest = Array(data.dropFirst())
        let h = currentHarness()
        serial += 1
        let mode = Int(first % 8)
        let sharing = LuaBridgeTarget.sharing || first & 0x80 != 0
        if mode == 6 { return runJSON(rest, h) }
        let hex = rest.prefix(4096).map { String(format: "%02x", $0) }.joined()
        if mode == 7 {
            guard let flow = h.flow else { return }
            let step = Step("go", param: (sharing ? "s" : "") + hex)
            let r = flow.navigator.navigate(step)
            if case .success(let cs) = r { for c in cs { _ = c.description } }
            if verbose { FileHandle.standardError.write(Data("navigate: \(r)\n".utf8)) }
            for link in flow.links { _ = link.match("app://fz/" + hex) }
            return
        }
        let args = "{\"mode\": \(mode), \"p\": \"\(hex)\", \"sharing\": \(sharing)}"
        let text = """
            {"screen": "s", "root": {"type": "fz_cluster", "id": "root", "meta": \(args), "children": [
              {"type": "fz_leaf", "id": "a", "meta": {"t": "a"}, "rule": {"fz_rule": \(args)}},
              {"type": "fz_leaf", "id": "b"},
              {"type": "fz_leaf", "id": "c", "rule": "fz_true"}]}}
            """
        resolve(text, user: [:], h)
    }

    @discardableResult
    static func resolve(_ text: String, user: OrderedDictionary<String, JSONValue>, _ h: Harness) -> Resolution? {
        let doc: JSONDocument
        do {
            doc = try JSONReader.parse(Array(text.utf8), file: "fuzz-\(serial).json")
        } catch {
            fuzzFailure("the harness made invalid JSON: \(error)\n\(text)")
        }
        let (screen, d) = ScreenParser.parse(doc, defaultID: "s")
        guard let screen else { fuzzFailure("the harness made an invalid screen: \(d.items)\n\(text)") }
        let check = ScreenChecker.check(screen, factory: h.engine.factory)
        for x in check.diagnostics.items { _ = x.description }
        lastCheck = check.diagnostics
        let resolver = Resolver(factory: h.engine.factory, screen: screen, check: check)
        let r = resolver.resolve(for: UserProfile(name: "fuzz", attributes: user))
        for x in r.diagnostics.items { _ = x.description }
        let out = r.tree.map { TreeOutput.json($0).serialized(pretty: false) }
        if verbose {
            FileHandle.standardError.write(Data(("diagnostics: " + (check.diagnostics.items + r.diagnostics.items).map(\.description).joined(separator: "\n  ")
                + "\ntree: " + (out ?? "nil") + "\n").utf8))
        }
        return r
    }

    static func runJSON(_ bytes: [UInt8], _ h: Harness) {
        guard let doc = try? JSONReader.parse(bytes, file: "value.json") else { return }
        let value = doc.root.plain
        let meta: JSONValue = value.object != nil ? value : .object(["v": value])
        let metaText = meta.serialized(pretty: false)
        let text = """
            {"screen": "s", "root": {"type": "fz_leaf", "id": "a", "meta": \(metaText), "rule": {"fz_walk": \(value.serialized(pretty: false))}}}
            """
        guard let r = resolve(text, user: ["x": value, "tier": "gold"], h) else { return }
        guard let tree = r.tree else {
            // Errors are expected at the memory cap on a huge value; with LOOM_FUZZ_STRICT set,
            // any error is a failure (returning node.meta as props is documented to work).
            if lastCheck.hasErrors || (r.diagnostics.hasErrors && !strict) { return }
            fuzzFailure("the leaf was hidden: \((lastCheck.items + r.diagnostics.items).map(\.description))")
        }
        if r.diagnostics.hasErrors || lastCheck.hasErrors { return }
        // The meta the screen holds is the one its text reads back as: an integral double is
        // written without a fraction (`5555555555555556`) and read back as an integer.
        let held = JSONReader.parseValue(metaText) ?? meta
        if let expected = roundTripped(held) {
            check(tree.props == expected, "props differ from the meta they were given:\nmeta:  \(metaText)\nprops: \(tree.props.serialized(pretty: false))")
        }
    }

    /// What a JSON value becomes after a trip through Lua, or nil when that is not defined
    /// simply (null inside a list makes a hole).
    static func roundTripped(_ v: JSONValue) -> JSONValue? {
        switch v {
        case .array(let a):
            if a.isEmpty { return .object([:]) }
            var out: [JSONValue] = []
            for x in a {
                if x.isNull { return nil }
                guard let y = roundTripped(x) else { return nil }
                out.append(y)
            }
            return .array(out)
        case .object(let o):
            var out = OrderedDictionary<String, JSONValue>()
            for (k, x) in o where !x.isNull {
                guard let y = roundTripped(x) else { return nil }
                out[k] = y
            }
            return .object(out)
        default:
            return v
        }
    }
}

extension FuzzTargets {
    /// See `LuaBridgeTarget`.
    public static func luaBridge(_ data: [UInt8]) { LuaBridgeTarget.run(data) }
}
