import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LuaRuntime
import XCTest

/// What one plugin can do to another through the engine: nothing. Each test loads small
/// plugins from a temporary project and resolves a screen whose components are guarded by both
/// plugins' rules.
final class IsolationTests: XCTestCase {
    /// A project folder with `plugins/<name>/plugin.lua` for each entry and one screen whose
    /// components (ids `a1`, `a2`, … and `b1`, …) are guarded by the given rules.
    func project(_ plugins: [String: String], screen: String) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-isolation-\(UUID().uuidString)")
        for (name, source) in plugins {
            let dir = root.appendingPathComponent("plugins/\(name)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data(source.utf8).write(to: dir.appendingPathComponent("plugin.lua"))
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("screens"), withIntermediateDirectories: true)
        try Data(screen.utf8).write(to: root.appendingPathComponent("screens/s.json"))
        try Data(#"{"name": "iso", "plugins": ["plugins"]}"#.utf8).write(to: root.appendingPathComponent("loom.json"))
        try Data(#"{"free": {"tier": "free", "nested": {"level": 1}}}"#.utf8).write(to: root.appendingPathComponent("users.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        return root.path
    }

    func resolve(_ projectDir: String, user: String = "free", limits: PluginLimits = PluginLimits(timeBudgetMilliseconds: 100, memoryMegabytes: 64))
        throws -> (shown: Set<String>, diagnostics: [String], ws: Workspace)
    {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = projectDir
        o.standardPlugins = ResolveTests.repo + "/Plugins"
        o.limits = limits
        let ws = try Workspace(options: o)
        XCTAssertFalse(ws.loadDiagnostics.hasErrors, "\(ws.loadDiagnostics.items.map(\.description))")
        let loaded = ws.screen(file: projectDir + "/screens/s.json")
        let (screen, d, check) = (loaded.screen, loaded.diagnostics, loaded.check)
        let s = try XCTUnwrap(screen, "\(d.items)")
        let profile = try ws.users.user(named: user, context: [], now: nil).get()
        let r = ws.resolve(s, check: try XCTUnwrap(check), user: profile)
        var shown = Set<String>()
        r.tree?.walk { n in if !n.hidden, let id = n.id { shown.insert(id) } }
        return (shown, (d.items + r.diagnostics.items).map(\.description), ws)
    }

    static func screen(_ components: [(id: String, rule: String)]) -> String {
        let children = components.map { #"{"type": "label", "id": "\#($0.id)", "meta": {"text": "x"}, "rule": "\#($0.rule)"}"# }
        return #"{"screen": "s", "root": {"type": "stack", "meta": {"orientation": "vertical"}, "children": [\#(children.joined(separator: ", "))]}}"#
    }

    /// Class 2: the user table is neither shared nor writable. Plugin `a` tries every way to
    /// make the user gold (rawset on the view, writing through what pairs hands out, nested
    /// tables, setmetatable); plugin `b`'s rule, evaluated after it, must still see a free user.
    func testOnePluginCannotChangeTheUserAnotherSees() throws {
        let attacker = """
            return { name = "a", version = "1", api = 1, register = function(host)
              host.rule("a_tries", function(user)
                local attempts = 0
                local function try(f) if pcall(f) then attempts = attempts + 1 end end
                try(function() rawset(user, "tier", "gold") end)
                try(function() user.tier = "gold" end)
                try(function() local _, real = pairs(user); real.tier = "gold" end)
                try(function() local it, real = pairs(user); rawset(real, "tier", "gold") end)
                try(function() for k, v in pairs(user) do if type(v) == "table" then rawset(v, "level", 99) end end end)
                try(function() user.nested.level = 99 end)
                try(function() setmetatable(user, nil) end)
                try(function() getmetatable(user).__index = { tier = "gold" } end)
                try(function() table.insert(user, "x") end)
                return attempts == 0
              end)
            end }
            """
        let victim = """
            return { name = "b", version = "1", api = 1, register = function(host)
              host.rule("b_is_free", function(user) return user.tier == "free" and user.nested.level == 1 end)
            end }
            """
        let dir = try project(["a": attacker, "b": victim], screen: Self.screen([("a1", "a_tries"), ("b1", "b_is_free"), ("a2", "a_tries"), ("b2", "b_is_free")]))
        let r = try resolve(dir)
        XCTAssertEqual(r.shown, ["a1", "a2", "b1", "b2"], "every write attempt must fail and the victim must see a free user: \(r.diagnostics)")
    }

    /// The same plugin gets the same view throughout a resolution, and it still reads like a table.
    func testUserViewsReadLikeTables() throws {
        let reader = """
            return { name = "r", version = "1", api = 1, register = function(host)
              host.rule("reads", function(user)
                local keys = {}
                for k in pairs(user) do keys[#keys + 1] = k end
                table.sort(keys)
                return type(user) == "table" and next(user) ~= nil and table.concat(keys, ",") == "nested,profile,tier"
                  and type(user.nested) == "table" and user.nested.level == 1 and rawget(user, "tier") == "free"
              end)
            end }
            """
        let dir = try project(["r": reader], screen: Self.screen([("r1", "reads")]))
        let r = try resolve(dir)
        XCTAssertEqual(r.shown, ["r1"], "\(r.diagnostics)")
    }

    /// Class 9 (memory blame): a plugin that holds most of its own cap does not make another
    /// plugin's modest allocation fail; the one that crosses its own cap is the one blamed.
    func testMemoryIsCappedPerPlugin() throws {
        let hog = """
            local held = {}
            return { name = "hog", version = "1", api = 1, register = function(host)
              host.rule("hog_holds", function()
                if #held == 0 then for i = 1, 40 do held[i] = string.rep(string.char(64 + i % 26), 1024 * 1024) end end
                return true
              end)
              host.rule("hog_grows", function()
                for i = #held + 1, #held + 40 do held[i] = string.rep(string.char(65 + i % 26), 1024 * 1024) end
                return true
              end)
            end }
            """
        let modest = """
            return { name = "modest", version = "1", api = 1, register = function(host)
              host.rule("modest_allocates", function()
                local t = {}
                for i = 1, 20 do t[i] = string.rep(string.char(97 + i), 1024 * 1024) end
                return #t == 20
              end)
            end }
            """
        let dir = try project(["hog": hog, "modest": modest],
                              screen: Self.screen([("h1", "hog_holds"), ("m1", "modest_allocates"), ("h2", "hog_grows")]))
        let r = try resolve(dir, limits: PluginLimits(timeBudgetMilliseconds: 2000, memoryMegabytes: 64))
        XCTAssertTrue(r.shown.contains("h1"), "\(r.diagnostics)")
        XCTAssertTrue(r.shown.contains("m1"), "the modest plugin is not blamed for the hog's memory: \(r.diagnostics)")
        XCTAssertFalse(r.shown.contains("h2"))
        let hogError = r.diagnostics.filter { $0.contains("hog_grows") }
        XCTAssertEqual(hogError.count, 1, "\(r.diagnostics)")
        XCTAssertTrue(hogError.first?.contains("memory limit exceeded (64 MiB)") ?? false, "\(hogError)")
        XCTAssertFalse(r.diagnostics.contains { $0.contains("modest") }, "\(r.diagnostics)")
    }

    /// Class 5: a rule registered from inside a coroutine keeps working after that coroutine
    /// is collected (the host keeps references to the main thread only).
    func testRuleRegisteredInsideACoroutineOutlivesIt() throws {
        let source = """
            return { name = "co", version = "1", api = 1, register = function(host)
              local co = coroutine.create(function()
                host.rule("from_coroutine", function(user) return user.tier == "free" end)
                coroutine.yield()
              end)
              coroutine.resume(co)
              co = nil
              collectgarbage("count")
            end }
            """
        let dir = try project(["co": source], screen: Self.screen([("c1", "from_coroutine"), ("c2", "from_coroutine")]))
        let r = try resolve(dir)
        r.ws.engine.state.collectGarbage()
        r.ws.engine.state.collectGarbage()
        XCTAssertEqual(r.shown, ["c1", "c2"], "\(r.diagnostics)")
        // Again after full collections: the coroutine's thread is gone by now.
        let again = try resolve(dir)
        XCTAssertEqual(again.shown, ["c1", "c2"], "\(again.diagnostics)")
    }

    /// Class 7: a rule that always exceeds its time budget, used by many components, costs one
    /// budget per resolution (it is not called again) and is reported once.
    func testARuleThatTimesOutIsCalledOncePerResolution() throws {
        let source = """
            return { name = "slow", version = "1", api = 1, register = function(host)
              host.rule("slow_rule", function() while true do end end)
            end }
            """
        let components = (1...300).map { (id: "s\($0)", rule: "slow_rule") }
        let dir = try project(["slow": source], screen: Self.screen(components))
        let start = Date()
        let r = try resolve(dir, limits: PluginLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 64))
        let seconds = Date().timeIntervalSince(start)
        XCTAssertTrue(r.shown.isEmpty, "every component fails closed")
        XCTAssertLessThan(seconds, 5, "300 × 50 ms would be 15 s: the rule must not be called again")
        let errors = r.diagnostics.filter { $0.contains("slow_rule") }
        XCTAssertEqual(errors.count, 2, "one for the first failure, one summary: \(errors)")
        XCTAssertTrue(errors.contains { $0.contains("time limit exceeded (50 ms)") }, "\(errors)")
        XCTAssertTrue(errors.contains { $0.contains("was not called again in this resolution after exceeding its limit: 299 more uses failed closed") }, "\(errors)")
    }
}
