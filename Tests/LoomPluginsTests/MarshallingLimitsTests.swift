import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
@testable import LoomTesting
import LuaRuntime
import XCTest

/// Conversions between Lua, JSON and Swift are bounded (nesting, cycles, values, bytes) and keys
/// never trap: each case ends with a located error, never a crash.
final class MarshallingLimitsTests: XCTestCase {
    // MARK: Helpers

    /// A temporary project: `plugins/t/plugin.lua` (registering what `register` says),
    /// `screens/s.json`, `users.json`.
    func project(register: String, screen: String, users: String = #"{"u": {"tier": "gold"}}"#) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-marshal-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("plugins/t"), withIntermediateDirectories: true)
        try fm.createDirectory(at: dir.appendingPathComponent("screens"), withIntermediateDirectories: true)
        addTeardownBlock { try? fm.removeItem(at: dir) }
        let plugin = """
            return { name = "t", version = "1.0.0", api = 1, register = function(host)
            \(register)
            end }
            """
        try Data(plugin.utf8).write(to: dir.appendingPathComponent("plugins/t/plugin.lua"))
        try Data(screen.utf8).write(to: dir.appendingPathComponent("screens/s.json"))
        try Data(users.utf8).write(to: dir.appendingPathComponent("users.json"))
        try Data("{}".utf8).write(to: dir.appendingPathComponent("loom.json"))
        return dir.path
    }

    func workspace(_ dir: String) throws -> Workspace {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = dir
        o.standardPlugins = PluginTestKit.packageRoot + "/Plugins"
        return try Workspace(options: o)
    }

    /// Loads, checks and resolves `screens/s.json` for `user`; every diagnostic, as text.
    @discardableResult
    func resolve(_ dir: String, user: String? = "u", context: [String] = []) throws -> (Resolution?, String) {
        let ws = try workspace(dir)
        var all = ws.loadDiagnostics
        let loaded = ws.screen(file: dir + "/screens/s.json")
        let (screen, d, check) = (loaded.screen, loaded.diagnostics, loaded.check)
        all.append(contentsOf: d)
        guard let screen, let check else { return (nil, all.items.map(\.description).joined(separator: "\n")) }
        switch ws.users.user(named: user, context: context, now: nil) {
        case .success(let profile):
            let r = ws.resolve(screen, check: check, user: profile)
            all.append(contentsOf: r.diagnostics)
            return (r, all.items.map(\.description).joined(separator: "\n"))
        case .failure(let e):
            all.append(e)
            return (nil, all.items.map(\.description).joined(separator: "\n"))
        }
    }

    static func screen(_ type: String, meta: String = "{}") -> String {
        #"{"screen": "s", "root": {"type": "\#(type)", "id": "c", "meta": \#(meta)}}"#
    }

    func shown(_ r: Resolution?) -> Set<String> {
        var out = Set<String>()
        r?.tree?.walk { n in if !n.hidden, let id = n.id { out.insert(id) } }
        return out
    }

    /// Runs `source` in a plugin environment and converts what it returns.
    func convert(_ source: String) throws -> Result<JSONValue, LuaHostError> {
        let engine = try PluginEngine()
        let state = engine.state
        try engine.sandbox.pushEnvironment(label: "t", folder: nil)
        try engine.sandbox.loadChunk(source: source, chunkName: "=t", envIndex: -1)
        try state.pcall(nargs: 0, nresults: 1)
        let top = state.top
        let r = state.json(at: -1)
        XCTAssertEqual(state.top, top, "the conversion leaves the stack as it found it")
        return r
    }

    func message(_ r: Result<JSONValue, LuaHostError>, file: StaticString = #filePath, line: UInt = #line) -> String {
        if case .failure(let e) = r { return e.message }
        XCTFail("expected an error, got \(r)", file: file, line: line)
        return ""
    }

    static let deepLua = "local t = {} local cur = t for i = 2, N do cur.a = {} cur = cur.a end"

    // MARK: Lua to JSON: nesting, cycles, budgets

    func testDirectConversionLimits() throws {
        // 64 levels: fine; 65: a located error (no heap corruption at 63, as before).
        for (n, ok) in [(63, true), (64, true), (65, false), (1000, false)] {
            let r = try convert(Self.deepLua.replacingOccurrences(of: "N", with: "\(n)") + " return t")
            if ok {
                guard case .success(let v) = r else { XCTFail("\(n): \(r)"); continue }
                XCTAssertFalse(v.nestsDeeper(than: 64))
                XCTAssertTrue(v.nestsDeeper(than: n - 1))
            } else {
                XCTAssertTrue(message(r).hasSuffix("table nested deeper than 64 levels"), "\(n): \(message(r))")
                XCTAssertTrue(message(r).hasPrefix("at a.a.a.a … a.a.a.a: "), message(r))
            }
        }
        // Lists count the same.
        let list = try convert("local t = {} local cur = t for i = 2, 70 do cur[1] = {} cur = cur[1] end return t")
        XCTAssertTrue(message(list).contains("[1][1][1][1] … [1][1][1][1]: table nested deeper than 64 levels"), message(list))
    }

    func testCyclesAreReportedAsCycles() throws {
        let selfCycle = message(try convert("local t = {} t.self = t return t"))
        XCTAssertEqual(selfCycle, "a cycle: the top-level table contains itself (reached again at self)")
        let deeper = message(try convert("local t = {x = {y = {}}} t.x.y.back = t.x return t"))
        XCTAssertEqual(deeper, "a cycle: the table at x contains itself (reached again at x.y.back)")
        let inList = message(try convert("local t = {} t[1] = {t} return t"))
        XCTAssertTrue(inList.hasPrefix("a cycle: the top-level table"), inList)
        XCTAssertFalse(selfCycle.contains("deeper"))
        // Shared, not cyclic: fine.
        guard case .success(let v) = try convert("local s = {1, 2} return {a = s, b = s}") else { return XCTFail("shared table") }
        XCTAssertEqual(v, ["a": [1, 2], "b": [1, 2]])
    }

    func testSharedSubtablesCannotAmplify() throws {
        // 2^40 leaves if expanded: stopped by the value budget, quickly.
        let (r, seconds) = try PluginTestKit.timed { try convert("local t = {x = 1} for i = 1, 40 do t = {a = t, b = t} end return t") }
        XCTAssertTrue(message(r).contains("more than 1000000 values in one conversion"), message(r))
        XCTAssertLessThan(seconds, 30)
        // 20,000 references to one 16 MiB string: stopped by the byte budget, without copying them all.
        let (big, s2) = try PluginTestKit.timed {
            try convert("local s = string.rep('x', 16 * 1024 * 1024) local l = {} for i = 1, 20000 do l[i] = s end return l")
        }
        XCTAssertTrue(message(big).contains("more than 64 MiB of strings in one conversion"), message(big))
        XCTAssertLessThan(s2, 30)
        // One table of plain values in a list 600,000 times (read again each time: 2 values a
        // time) meets the budget; 1,000 times comes out as the table whole each time.
        let (leaf, s3) = try PluginTestKit.timed {
            try convert("local s = {x = 1} local l = {} for i = 1, 600000 do l[i] = s end return l")
        }
        XCTAssertTrue(message(leaf).contains("more than 1000000 values in one conversion"), message(leaf))
        XCTAssertLessThan(s3, 30)
        guard case .success(.array(let list)) = try convert("local s = {x = 1} local l = {} for i = 1, 1000 do l[i] = s end return l") else {
            return XCTFail("1,000 references to a small table")
        }
        XCTAssertEqual(list.count, 1_000)
        XCTAssertTrue(list.allSatisfy { $0 == ["x": 1] })
    }

    func testSharedTablesCountWhereverTheyAppear() throws {
        // A table 40 levels deep, reached at level 2 (fine) and again at level 31 (71 levels).
        let src = """
            local s = {} local cur = s for i = 2, 40 do cur.d = {} cur = cur.d end
            local b = {} local c = b for i = 2, 29 do c.x = {} c = c.x end c.s = s
            return { a = s, b = b }
            """
        let m = message(try convert(src))
        XCTAssertTrue(m.hasSuffix("table nested deeper than 64 levels"), m)
        XCTAssertTrue(m.hasPrefix("at b.x.x.x … x.x.x.s: "), m)
        // Within the limits, a shared table comes out whole each time it appears.
        guard case .success(let v) = try convert("local s = {k = {1, 2}} local t = {a = s, b = {c = s}} return {t, t}") else { return XCTFail() }
        let one: JSONValue = ["a": ["k": [1, 2]], "b": ["c": ["k": [1, 2]]]]
        XCTAssertEqual(v, [one, one])
        // The budget counts every appearance: 2^19 leaves fit, 2^20 do not.
        guard case .success = try convert("local t = {x = 1} for i = 1, 18 do t = {a = t, b = t} end return t") else { return XCTFail("2^18") }
        XCTAssertTrue(message(try convert("local t = {x = 1} for i = 1, 20 do t = {a = t, b = t} end return t")).contains("more than 1000000 values"))
    }

    func testErrorsDoNotDependOnLuaTraversalOrder() throws {
        // Several faults in one table: the same one is reported in every state (Lua's hash
        // seed, hence `next` order, differs from state to state).
        let src = #"""
            local t = {}
            for i = 1, 50 do t["k" .. i] = i end
            t.z = function() end
            t.m = { ["\xff"] = 1, ["\xfe"] = 2 }
            t.b = { ["\u{E9}"] = 1, ["e\u{301}"] = 2, ["\u{65}\u{301}"] = 3 }
            return t
            """#
        var seen = Set<String>()
        for _ in 0..<12 { seen.insert(message(try convert(src))) }
        XCTAssertEqual(seen, ["at b: keys 'é' (U+0065 U+0301) and 'é' (U+00E9) are distinct JSON names that Swift compares equal; Loom cannot keep both — rename one"])
        var keys = Set<String>()
        for _ in 0..<12 { keys.insert(message(try convert(#"return { ["\xff"] = 1, ["a\xfe"] = 2, [true] = 3, [2.5] = 4 }"#))) }
        XCTAssertEqual(keys, ["table keys must be strings (or 1...n for a list), found a boolean key"])
        var utf8 = Set<String>()
        for _ in 0..<12 { utf8.insert(message(try convert(#"return { ["\xff"] = 1, ["a\xfe"] = 2, ["\xc3"] = 3 }"#))) }
        XCTAssertEqual(utf8, ["key is not valid UTF-8 (byte 0xfe at offset 1)"])
    }

    func testKeysThatSwiftComparesEqualAreAnErrorNotATrap() throws {
        let m = message(try convert(#"return { ["\u{E9}"] = 1, ["e\u{301}"] = 2 }"#))
        // In byte order: the same message on every run.
        XCTAssertEqual(m, "keys 'é' (U+0065 U+0301) and 'é' (U+00E9) are distinct JSON names that Swift compares equal; Loom cannot keep both — rename one")
        let nested = message(try convert(#"return { inner = { ["\u{C5}"] = 1, ["A\u{30A}"] = 2 } }"#))
        XCTAssertTrue(nested.hasPrefix("at inner: keys 'Å' (U+0041 U+030A) and 'Å' (U+00C5)"), nested)
        // Distinct as Swift strings: both kept.
        guard case .success(let v) = try convert(#"return { ["\u{E9}"] = 1, e = 2 }"#) else { return XCTFail() }
        XCTAssertEqual(v.object?.count, 2)
    }

    func testInvalidUTF8InKeysAndStringsIsReported() throws {
        XCTAssertEqual(message(try convert(#"return { ["abc\xff"] = 1 }"#)), "key is not valid UTF-8 (byte 0xff at offset 3)")
        XCTAssertEqual(message(try convert(#"return { s = "ab\xc3" }"#)), "at s: string is not valid UTF-8 (byte 0xc3 at offset 2)")
        XCTAssertEqual(message(try convert(#"return { list = { "ok", "\xed\xa0\x80" } }"#)), "at list[2]: string is not valid UTF-8 (byte 0xa0 at offset 1)")
        // Two invalid keys that would both decode to U+FFFD: the first one met is reported.
        XCTAssertTrue(message(try convert(#"return { ["\xff"] = 1, ["\xfe"] = 2 }"#)).hasPrefix("key is not valid UTF-8"))
        guard case .success(let ok) = try convert(#"return { ["é"] = "日本", ["\u{1F600}"] = 1 }"#) else { return XCTFail() }
        XCTAssertEqual(ok.object?.count, 2)
    }

    func testPluginsCannotForgeReadOnlyViews() throws {
        // A table shaped like an old read-only view whose __index is itself: read as what it
        // holds (nothing), with no loop.
        let r = try convert("local t = {} setmetatable(t, {__pairs = pairs, __index = t}) return {v = t}")
        XCTAssertEqual(try r.get(), ["v": [:]])
    }

    // MARK: Through a resolution

    func testDeepPropsFromABuilderAreALocatedErrorNotACrash() throws {
        let register = """
            host.single("deep", function(node)
              \(Self.deepLua.replacingOccurrences(of: "N", with: "node.meta.n"))
              return { view = "V", props = t }
            end, { meta = { n = "integer" } })
            """
        for n in [63, 64] {
            let dir = try project(register: register, screen: Self.screen("deep", meta: #"{"n": \#(n)}"#))
            let (r, text) = try resolve(dir)
            XCTAssertEqual(shown(r), ["c"], "\(n): \(text)")
            XCTAssertFalse(text.contains("error"), text)
        }
        for n in [65, 500] {
            let dir = try project(register: register, screen: Self.screen("deep", meta: #"{"n": \#(n)}"#))
            let (r, text) = try resolve(dir)
            XCTAssertEqual(shown(r), [], "\(n)")
            XCTAssertTrue(text.contains("the builder of 'deep' (plugin t): props: at a.a.a.a … a.a.a.a: table nested deeper than 64 levels"), text)
        }
    }

    func testCyclicAndAmplifyingPropsThroughAResolution() throws {
        let register = """
            host.single("cycle", function(node) local t = {} t.self = t return { view = "V", props = t } end)
            host.single("dag", function(node) local t = {x = 1} for i = 1, 40 do t = {a = t, b = t} end return { view = "V", props = t } end)
            host.single("keys", function(node) return { view = "V", props = { ["\\u{E9}"] = 1, ["e\\u{301}"] = 2 } } end)
            host.single("bad", function(node) return { view = "V", props = { ["abc\\xff"] = 1 } } end)
            host.cluster("box", function(node, children) return { view = "Box", props = {}, children = children } end)
            """
        let screen = #"""
            {"screen": "s", "root": {"type": "box", "id": "root", "children": [
              {"type": "cycle", "id": "c1"}, {"type": "dag", "id": "c2"}, {"type": "keys", "id": "c3"}, {"type": "bad", "id": "c4"}]}}
            """#
        let dir = try project(register: register, screen: screen)
        let (r, text) = try resolve(dir)
        XCTAssertEqual(shown(r), ["root"], text)
        XCTAssertTrue(text.contains("the builder of 'cycle' (plugin t): props: a cycle: the top-level table contains itself (reached again at self)"), text)
        XCTAssertTrue(text.contains("the builder of 'dag' (plugin t): props: at "), text)
        XCTAssertTrue(text.contains("more than 1000000 values in one conversion"), text)
        XCTAssertTrue(text.contains("are distinct JSON names that Swift compares equal; Loom cannot keep both — rename one"), text)
        XCTAssertTrue(text.contains("key is not valid UTF-8 (byte 0xff at offset 3)"), text)
    }

    func testRegistrationOptionsAreBoundedAndKeysNeverTrap() throws {
        let register = """
            host.single("a", function(node) return { view = "V" } end, { meta = { ["\\u{E9}"] = "string", ["e\\u{301}"] = "string" } })
            host.rule("r", function() return true end, { description = "d", ["\\u{E9}"] = 1, ["e\\u{301}"] = 2 })
            """
        let ws = try workspace(try project(register: register, screen: Self.screen("label")))
        let text = ws.loadDiagnostics.items.map(\.description).joined(separator: "\n")
        XCTAssertTrue(text.contains("plugin.lua:2): host.single('a'): at meta: keys 'é' (U+0065 U+0301) and 'é' (U+00E9) are distinct JSON names"), text)
        let deep = """
            local o = {} local cur = o for i = 1, 80 do cur.x = {} cur = cur.x end
            host.rule("r", function() return true end, { extra = o })
            """
        let ws2 = try workspace(try project(register: deep, screen: Self.screen("label")))
        let text2 = ws2.loadDiagnostics.items.map(\.description).joined(separator: "\n")
        XCTAssertTrue(text2.contains("plugin.lua:3): host.rule('r'): at extra.x.x.x … x.x.x.x: table nested deeper than 64 levels"), text2)
        let cyclic = """
            local o = { meta = {} } o.meta.back = o
            host.single("c", function(node) return { view = "V" } end, o)
            """
        let ws3 = try workspace(try project(register: cyclic, screen: Self.screen("label")))
        let text3 = ws3.loadDiagnostics.items.map(\.description).joined(separator: "\n")
        XCTAssertTrue(text3.contains("host.single('c'): a cycle: the table at meta contains itself (reached again at meta.back.meta)"), text3)
    }

    func testHostLogWithHugeArgumentsIsCapped() throws {
        let register = """
            local s = string.rep("x", 16 * 1024 * 1024)
            local l = {} for i = 1, 20000 do l[i] = s end
            host.log(table.unpack(l))
            host.log("after")
            """
        let (ws, seconds) = try PluginTestKit.timed { try workspace(try project(register: register, screen: Self.screen("label"))) }
        XCTAssertFalse(ws.loadDiagnostics.hasErrors, "\(ws.loadDiagnostics.items)")
        let lines = ws.engine.log.filter { $0.0 == "t" }.map(\.1)
        XCTAssertEqual(lines.count, 1, "the cap is spent by the first line")
        XCTAssertLessThanOrEqual(lines.first?.utf8.count ?? 0, ws.engine.sandbox.logCapBytes + 64)
        XCTAssertTrue(lines.first?.hasSuffix("(log capped)") ?? false)
        XCTAssertLessThan(seconds, 30)
    }

    func testCheckResultsAreBounded() throws {
        let register = """
            host.rule("r", function() return true end, { check = function(args)
              local s = string.rep("x", 16 * 1024 * 1024)
              local l = {} for i = 1, 20000 do l[i] = s end
              return l
            end })
            host.single("x", function(node) return { view = "V" } end)
            """
        let screen = #"{"screen": "s", "root": {"type": "x", "id": "c", "rule": {"r": {"a": 1}}}}"#
        let (r, text) = try resolve(try project(register: register, screen: screen))
        XCTAssertEqual(shown(r), [])
        let lines = text.split(separator: "\n").filter { $0.contains("rule 'r': ") }
        XCTAssertEqual(lines.count, Limits.maxMessages + 1, text.prefix(2000).description)
        XCTAssertTrue(lines.allSatisfy { $0.utf8.count < Limits.maxMessageBytes + 200 })
        XCTAssertTrue(text.contains("… and 19900 more messages (only the first 100 are shown)"))
    }

    // MARK: JSON data handed to Lua: checked where it is read

    func testDeepRuleArgumentsAreACheckErrorAtTheirLocation() throws {
        let register = """
            host.single("x", function(node) return { view = "V" } end)
            """
        let args = JSONLimitsSupport.nested(300)
        let screen = #"{"screen": "s", "root": {"type": "x", "id": "c", "rule": {"equals": {"deep": \#(args)}}}}"#
        let dir = try project(register: register, screen: screen)
        let (r, text) = try resolve(dir)
        XCTAssertEqual(shown(r), [], text)
        XCTAssertTrue(text.contains("s.json:1:69: error: rule 'equals': the arguments are nested deeper than 64 levels (at 1:141)"), text)
        // Under the limit: evaluated as usual.
        let ok = #"{"screen": "s", "root": {"type": "x", "id": "c", "rule": {"equals": {"tier": "gold"}}}}"#
        let (r2, t2) = try resolve(try project(register: register, screen: ok))
        XCTAssertEqual(shown(r2), ["c"], t2)
    }

    func testDeepScreenMetaIsALocatedErrorBeforeAnyLuaRuns() throws {
        let register = """
            host.single("x", function(node) error("must not run") end, { open_meta = true })
            """
        let meta = "{\"m\": " + JSONLimitsSupport.nested(500) + "}"
        let dir = try project(register: register, screen: Self.screen("x", meta: meta))
        let (r, text) = try resolve(dir)
        XCTAssertEqual(shown(r), [])
        XCTAssertTrue(text.contains("s.json:1:\(64 + 63): error: the meta of component 'x' 'c' at root is nested deeper than 64 levels"), text)
        XCTAssertFalse(text.contains("must not run"), text)
        // Items' meta too.
        let items = #"{"screen": "s", "root": {"type": "list", "id": "l", "items": [{"title": "a", "meta": \#(meta)}]}}"#
        let (_, t2) = try resolve(try project(register: register, screen: items))
        XCTAssertTrue(t2.contains("the meta of item at root/items[0] is nested deeper than 64 levels"), t2)
    }

    func testDeepUserAttributeAndContextNeverReachLua() throws {
        let register = """
            host.single("x", function(node) return { view = "V" } end)
            """
        let users = "{\"u\": {\"tier\": \"gold\", \"x\": " + JSONLimitsSupport.nested(100) + "}}"
        let screen = #"{"screen": "s", "root": {"type": "x", "id": "c", "rule": {"equals": {"tier": "gold"}}}}"#
        let dir = try project(register: register, screen: screen, users: users)
        let (r, text) = try resolve(dir)
        XCTAssertTrue(text.contains("users.json:1:\(29 + 64): error: attribute 'x' is nested deeper than 64 levels (profile 'u')"), text)
        XCTAssertEqual(shown(r), ["c"], "the other attributes still work")
        let (r2, t2) = try resolve(dir, context: ["deep=" + JSONLimitsSupport.nested(500)])
        XCTAssertNil(r2)
        XCTAssertTrue(t2.contains("--context deep=VALUE: the value is nested deeper than 64 levels"), t2)
        // The user table itself, built from a profile made in Swift: deep attributes are pushed
        // without overflowing the Lua stack.
        let ws = try workspace(dir)
        var attrs: [String: JSONValue] = [:]
        var v: JSONValue = 1
        for _ in 0..<300 { v = .array([v]) }
        attrs["deep"] = v
        attrs["tier"] = "gold"
        _ = try PluginTestKit.evaluate(ws.engine, "equals", args: #"{"tier": "gold"}"#, user: PluginTestKit.user(attrs))
    }

    func testValidOutputIsUnchanged() throws {
        // Props within every limit come out as before: host-made tables in their order, others sorted.
        let register = """
            host.single("x", function(node) return { view = "V", props = { z = 1, a = { "s", 2.5, true }, m = node.meta } } end, { open_meta = true })
            """
        let dir = try project(register: register, screen: Self.screen("x", meta: #"{"b": 1, "a": {"y": 2, "x": [1, {"k": null}]}}"#))
        let (r, text) = try resolve(dir)
        XCTAssertFalse(text.contains("error"), text)
        var props: JSONValue?
        r?.tree?.walk { n in if n.id == "c" { props = n.props } }
        XCTAssertEqual(props?.serialized(pretty: false), #"{"a":["s",2.5,true],"m":{"b":1,"a":{"y":2,"x":[1,{}]}},"z":1}"#)
    }
}

enum JSONLimitsSupport {
    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
    }
}

/// Scenario arguments (values a scenario hands to the host) are read with the same bounds.
final class ScenarioArgumentLimitsTests: XCTestCase {
    static let packageRoot = PluginTestKit.packageRoot

    func runScenario(_ body: String) throws -> String {
        let temp = NSTemporaryDirectory() + "loom-scenario-limits-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: temp) }
        let shop = temp + "/shop"
        try FileManager.default.copyItem(atPath: Self.packageRoot + "/Tests/Fixtures/scenarios/shop", toPath: shop)
        for f in ["home.lua", "navigation.lua", "segments.lua"] { try? FileManager.default.removeItem(atPath: shop + "/scenarios/" + f) }
        try Data(("scenario(\"hostile\", function(t)\n" + body + "\nend)\n").utf8).write(to: URL(fileURLWithPath: shop + "/scenarios/hostile.lua"))
        var o = ScenarioOptions()
        o.project = shop
        o.jobs = 1
        o.standardPlugins = Self.packageRoot + "/Plugins"
        let report = ScenarioRunner.run(o)
        XCTAssertEqual(report.results.count, 1)
        XCTAssertEqual(report.failed, 1, "the scenario must fail")
        return report.results.map { $0.message ?? "" }.joined(separator: "\n")
    }

    func testDeepCyclicAndClashingArguments() throws {
        let deep = try runScenario("""
              local c = {} local cur = c for i = 1, 80 do cur.a = {} cur = cur.a end
              t:open("home", { user = "member", context = { deep = c } })
            """)
        XCTAssertTrue(deep.contains("argument 2: at context.deep.a.a … a.a.a.a: table nested deeper than 64 levels"), deep)
        let cyclic = try runScenario("""
              local o = { user = "member" } o.context = { back = o }
              t:open("home", o)
            """)
        XCTAssertTrue(cyclic.contains("argument 2: a cycle: the top-level table contains itself (reached again at context.back)"), cyclic)
        let keys = try runScenario("""
              t:open("home", { user = "member", context = { ["\\u{E9}"] = 1, ["e\\u{301}"] = 2 } })
            """)
        XCTAssertTrue(keys.contains("at context: keys 'é' (U+0065 U+0301) and 'é' (U+00E9) are distinct JSON names that Swift compares equal"), keys)
        let utf8 = try runScenario("""
              t:open("home", { user = "member", context = { ["a\\xff"] = 1, ["a\\xfe"] = 2 } })
            """)
        XCTAssertTrue(utf8.contains("at context: key is not valid UTF-8 (byte 0x"), utf8)
    }
}
