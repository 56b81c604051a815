import Foundation
import LoomCore
import LoomPlugins
import LoomPopulation
import LoomStyles
import LoomWorkspace

/// `FuzzFlatViews`: any bytes as a population's JSON Lines through `host eval --select visible`,
/// each rule called with a user view made straight from the line (`PlanUser.flatView`) and, in a
/// second worker over the same workspace (one Lua state), through a resolution context
/// (`flat: false`). The rules answer from a hash of everything they can observe of the user
/// (each member in `pairs` order, nested values, their Lua types and values, the length, a
/// write's error, `profile`, `now`, `locale`, the device's attributes), one bit each, so any
/// difference between the two views shows in the visible ids. Rules that only read named fields
/// (`p0`–`p2`, `id_bit`) get a plain view in the first worker (`LuaRule.isPlain`) and a frozen
/// one in the second, so plain views are checked against frozen ones the same way. The input's first byte picks
/// `--now`, `--locale`, a chosen device and the memo.
///
/// Invariants: the two workers write the same output, byte for byte, and fail the same users.
extension FuzzTargets {
    public static func flatViews(_ data: [UInt8]) {
        guard let screens = FlatViewsFuzz.screens(device: (data.first ?? 0) & 4 != 0) else { return }
        let pick = data.first ?? 0
        let path = FlatViewsFuzz.scratch + "/users.jsonl"
        guard FileManager.default.createFile(atPath: path, contents: Data(data)) else { return }
        func run(flat: Bool) -> ([UInt8], [String]) {
            guard case .success(let input) = UserInput.open(path, format: .jsonl, now: pick & 1 != 0 ? "2031-02-03T04:05:06Z" : nil,
                                                            locale: pick & 2 != 0 ? "nb" : nil, fileLimits: .standard) else { return ([], []) }
            let worker = EvalWorker(screens: screens, parser: input.parser, writer: EvalLineWriter(format: .jsonl, select: .visible),
                                    memo: pick & 8 != 0, flat: flat)
            var out: [UInt8] = [], failed: [String] = []
            while let b = input.nextBatch() {
                let chunk = worker.process(b)
                out += chunk.text
                failed += chunk.failures.map { "\($0.textBytes) \($0.diagnostic)" } + chunk.notes.order.map { "\($0)" }
            }
            return (out, failed)
        }
        let flat = run(flat: true), context = run(flat: false)
        check(flat.0 == context.0, "views made from the line and contexts' differ:\n\(String(decoding: flat.0, as: UTF8.self))\n---\n\(String(decoding: context.0, as: UTF8.self))")
        check(flat.1 == context.1, "failures differ: \(flat.1) / \(context.1)")
    }
}

extension FuzzTargets {
    /// A Lua function `describe(u)` (a chunk's local) that tells, as one line, everything a
    /// rule can observe of a user view `u`: each member in `pairs` order with its Lua type and
    /// value (nested values too), the device's idiom both ways, the length, a write's error,
    /// `type` and `tostring`'s form (its address as ADDR), the raw functions (`rawget`, `rawlen`,
    /// `next`, `getmetatable`, `setmetatable`'s and `rawset`'s refusals, `u[1]`), `profile`,
    /// `now`, `locale` and `name`. Shared by `FuzzFlatViews` (which hashes it) and
    /// `FlatViewTests` (which logs it).
    public static let describeUserLua = """
        local function describe(u)
          local parts = {}
          local function add(prefix, t, depth)
            for k, v in pairs(t) do
              parts[#parts + 1] = prefix .. tostring(k) .. "=" .. (math.type(v) or type(v)) .. ":" .. tostring(v)
              if type(v) == "table" and depth < 4 then add(prefix .. tostring(k) .. ".", v, depth + 1) end
            end
          end
          add("", u, 1)
          parts[#parts + 1] = "device.idiom:" .. tostring(u.device and u.device.idiom) .. " d:" .. tostring(u["device.idiom"])
          local ok, err = pcall(function() u.tier = "x" end)
          parts[#parts + 1] = "#" .. #u .. " write:" .. tostring(ok) .. ":" .. tostring(err):gsub("^.-:%d+: ", "")
          parts[#parts + 1] = "type:" .. type(u) .. " str:" .. tostring(u):gsub("0x%x+", "ADDR")
          local okset, errset = pcall(setmetatable, u, {})
          parts[#parts + 1] = "raw:" .. tostring(rawget(u, "tier")) .. " rawlen:" .. tostring(rawlen(u)) .. " next:" .. type(next(u))
            .. " mt:" .. tostring(getmetatable(u)) .. " setmt:" .. tostring(okset) .. ":" .. tostring(errset):gsub("^.-:%d+: ", "")
            .. " [1]:" .. tostring(u[1]) .. " ok:" .. tostring(pcall(rawset, u, "x", 1)) .. " t:" .. type(u)
          parts[#parts + 1] = "profile:" .. tostring(u.profile) .. " now:" .. tostring(u.now) .. " locale:" .. tostring(u.locale)
            .. " name:" .. tostring(u.name)
          return (table.concat(parts, " "):gsub("0x%x+", "ADDR"))
        end

        """
}

enum FlatViewsFuzz {
    /// This process's folder for the project and the input file, removed when it exits.
    static let scratch: String = {
        let dir = folder
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: FlatViewsFuzz.folder) }
        return dir
    }()
    static var folder: String { NSTemporaryDirectory() + "loom-fuzz-flat-\(getpid())" }

    /// Rules whose answers are bits of a hash of what they observe of the user
    /// (`FuzzTargets.describeUserLua`).
    static let lua = FuzzTargets.describeUserLua + """
        local function h(u)
          local s, n = describe(u), 0
          for i = 1, #s do n = (n * 31 + s:byte(i)) % 1000003 end
          return n
        end
        return { name = "f", version = "1.0.0", api = 1, register = function(host)
          for bit = 0, 4 do
            host.rule("b" .. bit, function(u) return (h(u) // (2 ^ bit)) % 2 == 1 end)
          end
          host.rule("id_bit", function(u) return #tostring(u.id) % 2 == 0 end)
          -- Plain rules (they only read named fields: a plain view in the flat worker, a frozen
          -- view in the other), answering from a hash of what they read.
          local function v(x)
            if type(x) == "table" then return "table;" end
            return (math.type(x) or type(x)) .. ":" .. tostring(x) .. ";"
          end
          for bit = 0, 2 do
            host.rule("p" .. bit, function(u)
              local s = v(u.id) .. v(u.tier) .. v(u.age) .. v(u.a) .. v(u.b) .. v(u.x) .. v(u[""]) .. v(u.name) .. v(u.profile)
                .. v(u.now) .. v(u.locale) .. v(u["device.idiom"]) .. v(u.device)
              local n = 0
              for i = 1, #s do n = (n * 31 + s:byte(i)) % 1000003 end
              return (n // (2 ^ bit)) % 2 == 1
            end)
          end
        end }
        """

    /// The workspace (one per device choice), made once per process.
    static func screens(device: Bool) -> PopulationScreens? {
        if let s = opened[device] { return s }
        let root = scratch + (device ? "/project-device" : "/project")
        try? FileManager.default.createDirectory(atPath: root + "/plugins/f", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(atPath: root + "/screens", withIntermediateDirectories: true)
        try? Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/loom.json"))
        try? Data(lua.utf8).write(to: URL(fileURLWithPath: root + "/plugins/f/plugin.lua"))
        let rules = (0...4).map { #""b\#($0)""# } + [#""id_bit""#, #"{"rollout": {"percent": 50, "group": "f"}}"#] + (0...2).map { #""p\#($0)""# }
        let children = rules.enumerated().map { k, r in #"{"type": "label", "id": "c\#(k)", "meta": {"text": "x"}, "rule": \#(r)}"# }
        try? Data(#"{"screen": "f", "root": {"type": "stack", "id": "root", "children": [\#(children.joined(separator: ", "))]}}"#.utf8)
            .write(to: URL(fileURLWithPath: root + "/screens/f.json"))
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = root
        if device { o.device = .standard }
        let (s, d) = PopulationScreens.open(options: o, screens: [root + "/screens/f.json"])
        check(s != nil && !d.hasErrors, "the fuzz project does not open: \(d.items)")
        opened[device] = s
        return s
    }
}
