import CLua
import Foundation
import LuaRuntime
import XCTest

/// Hostile plugins against the runtime: shared libraries, frozen views, require, per-plugin
/// memory, time limits, references from coroutines, log caps.
final class HardeningTests: XCTestCase {
    func makeSandbox(_ limits: LuaLimits = LuaLimits(timeBudgetMilliseconds: 100, memoryMegabytes: 32)) throws -> Sandbox {
        try Sandbox(limits: limits)
    }

    // MARK: 1. Shared libraries

    func testPairsDoesNotHandOutTheSharedLibraries() throws {
        let sb = try makeSandbox()
        for lib in ["string", "table", "math", "os", "coroutine", "utf8"] {
            let r = try sb.evalAll("""
                local f, real = pairs(\(lib))
                local ok, err = pcall(function() real.injected = function() return "PWNED" end end)
                local ok2 = pcall(function() local _, r2 = f(real, nil) end)
                return ok, err
                """, count: 2)
            XCTAssertEqual(r[0], .bool(false), "\(lib): the value pairs hands out is read-only")
            guard case .string(let m) = r[1] else { return XCTFail("\(lib): \(r)") }
            XCTAssertTrue(m.contains("attempt to modify read-only table '\(lib)' (field 'injected')"), m)
        }
        // The exploit from the issue: string.upper for every plugin.
        _ = try? sb.eval("local _, real = pairs(string); real.upper = function() return 'PWNED' end")
        XCTAssertEqual(try sb.eval("return ('abc'):upper() .. string.upper('d')"), .string("ABCD"))
        _ = try? sb.eval("local _, real = pairs(table); real.concat = function() return 'PWNED' end")
        XCTAssertEqual(try sb.eval("return table.concat({'a', 'b'})"), .string("ab"))
    }

    func testNoPathReachesTheRealLibraryTables() throws {
        let sb = try makeSandbox()
        // next, select, load's env, rawget, getmetatable, method lookups.
        let attempts = [
            "local k, v = next(string); return rawequal(v, string[k]) and type(v)",
            "return type(select(2, pairs(string)))",
            "return getmetatable(string)",
            "return getmetatable('')",
            "return rawget(string, 'upper') == string.upper",
        ]
        XCTAssertEqual(try sb.eval(attempts[0]), .string("function"))
        XCTAssertEqual(try sb.eval(attempts[1]), .string("table"), "the view, which answers type 'table'")
        XCTAssertEqual(try sb.eval(attempts[2]), .bool(false))
        XCTAssertEqual(try sb.eval(attempts[3]), .bool(false))
        XCTAssertEqual(try sb.eval(attempts[4]), .bool(true))
        let e = assertLuaError { _ = try sb.eval("load('upper = 1', 'x', 't', string)()") }
        XCTAssertTrue(e?.message.contains("read-only table 'string' (field 'upper')") ?? false, e?.message ?? "")
        let e2 = assertLuaError { _ = try sb.eval("setmetatable(string, {})") }
        XCTAssertTrue(e2?.message.contains("cannot change the metatable of read-only table 'string'") ?? false, e2?.message ?? "")
        let e3 = assertLuaError { _ = try sb.eval("table.insert(math, 1)") }
        XCTAssertTrue(e3?.message.contains("read-only table 'math'") ?? false, e3?.message ?? "")
        XCTAssertEqual(try sb.eval("return ('x'):upper()"), .string("X"))
    }

    func testLibraryViewsBehaveAsTables() throws {
        let sb = try makeSandbox()
        XCTAssertEqual(try sb.eval("return type(string)"), .string("table"))
        XCTAssertEqual(try sb.eval("return next(math) ~= nil"), .bool(true))
        XCTAssertEqual(try sb.eval("local n = 0 for k, v in pairs(table) do n = n + 1 end return n >= 7"), .bool(true))
        XCTAssertEqual(try sb.eval("return #string"), .int(0))
        XCTAssertEqual(try sb.eval("return rawlen(string)"), .int(0))
        XCTAssertEqual(try sb.eval("return tostring(string):sub(1, 6)"), .string("table:"))
        XCTAssertEqual(try sb.eval("return rawequal(string, string)"), .bool(true))
        // rawset on a library view changes only this environment's copy.
        XCTAssertEqual(try sb.eval("rawset(math, 'pi', 3) return math.pi"), .int(3))
        XCTAssertEqual(try sb.eval("return math.pi > 3.14"), .bool(true), "another environment keeps its own")
        XCTAssertEqual(try sb.eval("rawset(string, 'upper', function() return 'p' end) return ('x'):upper()"), .string("X"),
                       "string methods use the shared, private library")
    }

    // MARK: 2. Frozen views

    /// Runs `code` in a fresh environment with `node` bound to a frozen copy of the table
    /// `tableCode` builds (in the host's trusted code); `tree`: frozen with `freezeTree`, the
    /// host's one-call freeze of its own trees, instead of `freezeTop`.
    func evalFrozen(_ sb: Sandbox, _ tableCode: String, _ code: String, count: Int32 = 1, tree: Bool = false) throws -> [LuaValue] {
        let st = sb.state
        let saved = st.top
        defer { st.top = saved }
        try sb.pushEnvironment(label: "t", folder: nil)
        let env = st.absIndex(-1)
        try st.load(source: tableCode, chunkName: "=table")
        try st.hostCall(nargs: 0, nresults: 1)
        if tree { try sb.freezeTree() } else { try sb.freezeTop() }
        lua_setfield(st.L, env, "node")
        try sb.loadChunk(source: code, chunkName: "frozen.lua", envIndex: env)
        try st.pcall(nargs: 0, nresults: count)
        return (0..<count).map { st.value(at: -count + $0) }
    }

    func testFrozenViewsRefuseEveryWrite() throws {
        let sb = try makeSandbox()
        let table = "return { a = { b = 1 }, list = { 1, 2, 3 }, name = 'n' }"
        let writes = [
            ("node.x = 1", "attempt to modify read-only table 'node' (field 'x')"),
            ("node.a.b = 2", "attempt to modify read-only table 'node' (field 'b')"),
            ("rawset(node, 'x', 1)", "attempt to modify read-only table 'node' (field 'x')"),
            ("rawset(node.a, 'b', 2)", "attempt to modify read-only table 'node' (field 'b')"),
            ("table.insert(node.list, 4)", "attempt to modify read-only table 'node' (field '4')"),
            ("table.sort(node.list, function(a, b) return a > b end)", "attempt to modify read-only table 'node'"),
            ("table.remove(node.list)", "attempt to modify read-only table 'node'"),
            ("setmetatable(node, {})", "cannot change the metatable of read-only table 'node'"),
            ("local _, t = pairs(node); rawset(t, 'x', 1)", "attempt to modify read-only table 'node' (field 'x')"),
            ("local k, v = next(node, nil); rawset(node[k] == v and node or v, 'x', 1)", "attempt to modify read-only table 'node'"),
        ]
        for tree in [false, true] {
            for (code, message) in writes {
                let e = assertLuaError(code) { _ = try evalFrozen(sb, table, code, tree: tree) }
                XCTAssertTrue(e?.message.contains(message) ?? false, "\(code) (tree: \(tree)): \(e?.message ?? "")")
                XCTAssertEqual(e?.kind, .runtime, code)
            }
            XCTAssertEqual(try evalFrozen(sb, table, "return node.a.b + #node.list", tree: tree)[0], .int(4), "unchanged")
        }
    }

    func testFrozenViewsReadLikeTables() throws {
        let sb = try makeSandbox()
        let table = "return { a = { b = 1 }, list = { 1, 2, 3 }, empty = {}, name = 'n' }"
        let reads: [(String, LuaValue)] = [
            ("return type(node)", .string("table")),
            ("return type(node.a)", .string("table")),
            ("return node.a.b", .int(1)),
            ("return next(node.empty) == nil", .bool(true)),
            ("return next(node) ~= nil", .bool(true)),
            ("return #node.list", .int(3)),
            ("return rawlen(node.list)", .int(3)),
            ("return rawget(node, 'name')", .string("n")),
            ("return rawequal(rawget(node, 'a'), node.a)", .bool(true)),
            ("return table.concat(node.list, ',')", .string("1,2,3")),
            ("return select('#', table.unpack(node.list))", .int(3)),
            ("local s = 0 for _, v in ipairs(node.list) do s = s + v end return s", .int(6)),
            ("local n = 0 for k, v in pairs(node) do n = n + 1 end return n", .int(4)),
            ("local n = 0 for k, v in next, node do n = n + 1 end return n", .int(4)),
            ("return getmetatable(node)", .bool(false)),
            ("return tostring(node):sub(1, 6)", .string("table:")),
            ("return node.a == node.a", .bool(true)),
            ("return (('x y'):gsub('%w', node.a))", .string("x y")),
            ("return (('b'):gsub('%w', node.a))", .string("1")),
            ("return os.time(setmetatable({}, {__index = {year = 1970, month = 1, day = 1, hour = 0}}))", .int(0)),
            ("local ok, e = pcall(function() return node + 1 end) return e:match('a table value') ~= nil", .bool(true)),
        ]
        for (code, expected) in reads {
            XCTAssertEqual(try evalFrozen(sb, table, code)[0], expected, code)
            XCTAssertEqual(try evalFrozen(sb, table, code, tree: true)[0], expected, "\(code) (freezeTree)")
        }
    }

    /// `freezeTree` on what is not a tree (the host never hands it one): a cycle, a table key or
    /// nesting past its depth is finished by `freeze`, so every table is still a view.
    func testFreezeTreeFallsBackToFreeze() throws {
        let sb = try makeSandbox()
        let cyclic = "local t = { name = 'root', a = { b = 1 } }; t.self = t; t.kids = { t, { up = t } }; return t"
        XCTAssertEqual(try evalFrozen(sb, cyclic, "return node.self == node and node.kids[1] == node and node.kids[2].up == node", tree: true)[0], .bool(true))
        let e0 = assertLuaError { _ = try evalFrozen(sb, cyclic, "node.a.b = 2", tree: true) }
        XCTAssertTrue(e0?.message.contains("read-only table") ?? false, e0?.message ?? "")
        let keys = "local k = { id = 7 }; return { list = { 1 }, [k] = 'v' }"
        let e = assertLuaError { _ = try evalFrozen(sb, keys, "for k in pairs(node) do if type(k) == 'table' then k.id = 8 end end", tree: true) }
        XCTAssertTrue(e?.message.contains("read-only table") ?? false, e?.message ?? "")
        let e2 = assertLuaError { _ = try evalFrozen(sb, keys, "node.list[1] = 2", tree: true) }
        XCTAssertTrue(e2?.message.contains("read-only table") ?? false, e2?.message ?? "")
        let deep = "local root = {} local t = root for i = 1, 1000 do t.next = {} t = t.next end t.v = 'bottom' return root"
        XCTAssertEqual(try evalFrozen(sb, deep, "local t = node local n = 0 while t.next do t = t.next n = n + 1 end return n .. t.v", tree: true)[0], .string("1000bottom"))
        let e3 = assertLuaError { _ = try evalFrozen(sb, deep, "local t = node for i = 1, 999 do t = t.next end t.next.w = 1", tree: true) }
        XCTAssertTrue(e3?.message.contains("read-only table") ?? false, e3?.message ?? "")
        // A value that is not a table stays as it is.
        XCTAssertEqual(try evalFrozen(sb, "return 'x'", "return node", tree: true)[0], .string("x"))
    }

    func testFreezeIsSafeOnCyclesSharedAndDeepTables() throws {
        let sb = try makeSandbox()
        let cyclic = "local t = { name = 'root' }; t.self = t; t.kids = { t, { up = t } }; return t"
        XCTAssertEqual(try evalFrozen(sb, cyclic, "return node.self == node and node.kids[1] == node and node.kids[2].up == node")[0], .bool(true))
        let shared = "local s = { v = 1 }; return { x = s, y = s, list = { s, s } }"
        XCTAssertEqual(try evalFrozen(sb, shared, "return node.x == node.y and node.list[2] == node.x")[0], .bool(true))
        // Table keys are frozen too.
        let keys = "local k = { id = 7 }; return { [k] = 'v' }"
        let e = assertLuaError { _ = try evalFrozen(sb, keys, "local k = next(node); k.id = 8") }
        XCTAssertTrue(e?.message.contains("read-only table") ?? false, e?.message ?? "")
        // Deep nesting: no recursion in C.
        let deep = "local root = {} local t = root for i = 1, 200000 do t.next = {} t = t.next end t.v = 'bottom' return root"
        let (r, seconds) = try timed { try evalFrozen(sb, deep, "local t = node local n = 0 while t.next do t = t.next n = n + 1 end return n") }
        XCTAssertEqual(r[0], .int(200_000))
        XCTAssertLessThan(seconds, 5)
    }

    func testFreezingIsCheapAndAViewOfAViewIsTheView() throws {
        let sb = try makeSandbox()
        let st = sb.state
        let saved = st.top
        defer { st.top = saved }
        let (_, seconds) = try timed {
            for i in 0..<20_000 {
                st.newTable(nrec: 8)
                for k in 0..<8 {
                    st.push("v\(k)")
                    st.setField(-2, "k\(k)")
                }
                st.push(i)
                st.setField(-2, "id")
                try sb.freezeTop(name: "user")
                st.pop(1)
            }
        }
        XCTAssertLessThan(seconds, 2, "20,000 user views")
        st.newTable()
        try sb.freezeTop()
        let p1 = lua_topointer(st.L, -1)
        try sb.freezeTop()
        XCTAssertEqual(lua_topointer(st.L, -1), p1, "freezing a view gives the view")
    }

    func testPushReadonlyTarget() throws {
        let sb = try makeSandbox()
        let st = sb.state
        let saved = st.top
        defer { st.top = saved }
        st.newTable()
        st.push("gold")
        st.setField(-2, "tier")
        let real = lua_topointer(st.L, -1)
        try sb.freezeTop()
        XCTAssertEqual(st.type(-1), .userdata)
        XCTAssertTrue(st.isReadonlyView(-1))
        let top = st.top
        XCTAssertTrue(st.pushReadonlyTarget(-1))
        XCTAssertEqual(st.top, top + 1)
        XCTAssertEqual(st.type(-1), .table)
        XCTAssertEqual(lua_topointer(st.L, -1), real)
        st.getField(-1, "tier")
        XCTAssertEqual(st.toString(-1), "gold")
        st.pop(2)
        // Not a view: nothing pushed.
        st.newTable()
        XCTAssertFalse(st.pushReadonlyTarget(-1))
        XCTAssertFalse(st.isReadonlyView(-1))
        st.push("x")
        XCTAssertFalse(st.pushReadonlyTarget(-1))
        st.pushNil()
        XCTAssertFalse(st.pushReadonlyTarget(-1))
        XCTAssertEqual(st.top, top + 3)
    }

    // MARK: 3. require

    func makePluginFolder() throws -> (String, String) {
        let base = NSTemporaryDirectory() + "loom-h1-\(UUID().uuidString)"
        let folder = base + "/plugin"
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        try "return { v = 'util' }".write(toFile: folder + "/util.lua", atomically: true, encoding: .utf8)
        try "return { v = 'sub' }".write(toFile: folder + "/sub/init.lua", atomically: true, encoding: .utf8)
        try "return { v = 'deep' }".write(toFile: folder + "/sub/deep.lua", atomically: true, encoding: .utf8)
        try "return { v = 'SECRET' }".write(toFile: base + "/secret.lua", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: folder + "/escape.lua", withDestinationPath: base + "/secret.lua")
        try fm.createSymbolicLink(atPath: folder + "/inside.lua", withDestinationPath: folder + "/util.lua")
        try fm.createSymbolicLink(atPath: folder + "/outdir", withDestinationPath: base)
        mkfifo(folder + "/fifo.lua", 0o644)
        try fm.createSymbolicLink(atPath: folder + "/zero.lua", withDestinationPath: "/dev/zero")
        try fm.createDirectory(atPath: folder + "/dir.lua", withIntermediateDirectories: true)
        try String(repeating: "-- padding\n", count: 200_000).write(toFile: folder + "/big.lua", atomically: true, encoding: .utf8)
        return (base, folder)
    }

    func testRequireStaysInsideThePluginFolder() throws {
        let sb = try makeSandbox()
        let (base, folder) = try makePluginFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        XCTAssertEqual(try sb.eval("return require('util').v", folder: folder), .string("util"))
        XCTAssertEqual(try sb.eval("return require('sub').v .. require('sub.deep').v", folder: folder), .string("subdeep"))
        XCTAssertEqual(try sb.eval("return require('inside').v", folder: folder), .string("util"), "a symlink inside the folder is fine")
        let refused: [(String, String)] = [
            ("require('escape')", "module 'escape' resolves outside the plugin's folder"),
            ("require('outdir.secret')", "module 'outdir.secret' resolves outside the plugin's folder"),
            ("require('util\\0')", "is not a plain module name"),
            ("require('util\\0.x')", "is not a plain module name"),
            ("require('../secret')", "is not a plain module name"),
            ("require('sub..deep')", "is not a plain module name"),
            ("require('.util')", "is not a plain module name"),
            ("require('util.')", "is not a plain module name"),
            ("require('')", "is not a plain module name"),
            ("require(('a'):rep(300))", "is not a plain module name"),
            ("require('/etc/passwd')", "is not a plain module name"),
            ("require('fifo')", "module 'fifo' is not a regular file"),
            ("require('zero')", "module 'zero' resolves outside the plugin's folder"),
            ("require('dir')", "module 'dir' is not a regular file"),
            ("require('big')", "module 'big' is larger than 1 MiB (1048576 bytes)"),
            ("require('os')", "module 'os' not found in the plugin's folder"),
            ("require(42)", "require: module name must be a string"),
        ]
        for (code, message) in refused {
            let (e, seconds) = timed { assertLuaError(code) { _ = try sb.eval(code, chunkName: "p.lua", folder: folder) } }
            XCTAssertTrue(e?.message.contains(message) ?? false, "\(code): \(e?.message ?? "")")
            XCTAssertEqual(e?.line, 1, "\(code): located at the require call")
            XCTAssertLessThan(seconds, 2, code)
            XCTAssertFalse(e?.message.contains("\0") ?? true, "no raw NUL in messages")
        }
    }

    func testRequireCannotBeRedirectedThroughTheStringLibrary() throws {
        let sb = try makeSandbox()
        let (base, folder) = try makePluginFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let code = """
            local _, real = pairs(string)
            pcall(function() real.gsub = function() return '../secret', 1 end end)
            pcall(function() real.match = function() return true end end)
            pcall(function() real.find = function() return nil end end)
            rawset(string, 'gsub', function() return '../secret', 1 end)
            return require('util').v
            """
        XCTAssertEqual(try sb.eval(code, folder: folder), .string("util"))
    }

    func testVirtualFilesStillServeRequire() throws {
        let sb = try makeSandbox()
        sb.virtualFiles["/embedded/p/helper.lua"] = "return { v = 'virtual' }"
        sb.virtualFiles["/embedded/p/pkg/init.lua"] = "return { v = 'pkg' }"
        XCTAssertEqual(try sb.eval("return require('helper').v .. require('pkg').v", folder: "/embedded/p"), .string("virtualpkg"))
        let e = assertLuaError { _ = try sb.eval("return require('nope')", chunkName: "p.lua", folder: "/embedded/p") }
        XCTAssertTrue(e?.message.contains("module 'nope' not found in the plugin's folder") ?? false, e?.message ?? "")
    }

    // MARK: 4. Per-plugin memory

    func testOnePluginsMemoryIsNotBlamedOnAnother() throws {
        let sb = try makeSandbox(LuaLimits(timeBudgetMilliseconds: 2000, memoryMegabytes: 32))
        let st = sb.state
        let saved = st.top
        defer { st.top = saved }
        try sb.pushEnvironment(label: "hog", folder: nil)
        let hog = st.absIndex(-1)
        try sb.pushEnvironment(label: "victim", folder: nil)
        let victim = st.absIndex(-1)
        st.currentOwner = 2
        XCTAssertEqual(try sb.eval("held = {} for i = 1, 22 do held[i] = ('x'):rep(1024 * 1024 - 64) .. i end return #held", inEnvironmentAt: hog), .int(22))
        XCTAssertGreaterThan(st.memoryUsed(owner: 2), 22 * 1024 * 1024)
        st.currentOwner = 3
        let before3 = st.memoryUsed(owner: 3)
        XCTAssertEqual(try sb.eval("local t = {} for i = 1, 16 do t[i] = ('y'):rep(1024 * 1024 - 64) .. i end return #t", inEnvironmentAt: victim), .int(16),
                       "16 MiB for a second plugin while the first holds 22 MiB of a 32 MiB cap")
        XCTAssertLessThan(st.memoryUsed(owner: 2) , 32 * 1024 * 1024)
        // The victim's own excess is its own error, with the cap named.
        let e = assertLuaError { _ = try sb.eval("local t = {} for i = 1, 40 do t[i] = ('z'):rep(1024 * 1024) .. i end", inEnvironmentAt: victim) }
        XCTAssertEqual(e?.kind, .memory)
        XCTAssertEqual(e?.message, "memory limit exceeded (32 MiB)")
        st.collectGarbage()
        XCTAssertLessThan(st.memoryUsed(owner: 3) - before3, 4 * 1024 * 1024, "freed blocks are credited back to their owner")
        // The hog dropping its data is credited to the hog.
        st.currentOwner = 2
        _ = try sb.eval("held = nil return 1", inEnvironmentAt: hog)
        st.collectGarbage()
        XCTAssertLessThan(st.memoryUsed(owner: 2), 4 * 1024 * 1024)
        st.currentOwner = 1
    }

    func testOwnersAndTheirCounters() throws {
        let st = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 1000, memoryMegabytes: 8))
        XCTAssertEqual(st.currentOwner, 1, "plugin code the host did not attribute is still capped")
        XCTAssertGreaterThan(st.memoryUsed(owner: 0), 0, "the host's own tables (the standard library)")
        st.currentOwner = 40
        XCTAssertEqual(st.currentOwner, 40)
        _ = try st.eval("big = {} for i = 1, 100000 do big[i] = i end return 1")
        XCTAssertGreaterThan(st.memoryUsed(owner: 40), 1_000_000)
        XCTAssertEqual(st.memoryUsed(owner: 41), 0)
        XCTAssertEqual(st.memoryUsed(owner: 5000), 0, "an owner never seen")
        // A table grown by another owner moves to it.
        st.currentOwner = 41
        _ = try st.eval("for i = 100001, 200000 do big[i] = i end return 1")
        XCTAssertGreaterThan(st.memoryUsed(owner: 41), 2_000_000)
        XCTAssertLessThan(st.memoryUsed(owner: 40), 1_000_000)
        // Each owner alone is capped; the host (owner 0) never is.
        st.currentOwner = 42
        let e = assertLuaError { _ = try st.eval("local t = {} for i = 1, 1e7 do t[i] = i end") }
        XCTAssertEqual(e?.message, "memory limit exceeded (8 MiB)")
        st.currentOwner = 0
        XCTAssertEqual(try st.eval("local t = {} for i = 1, 2e6 do t[i] = i end return #t"), .int(2_000_000), "owner 0 is the host: not capped")
        st.currentOwner = 1
        // Every block is accounted to someone.
        var total = 0
        for o in Int32(0)...50 { total += st.memoryUsed(owner: o) }
        XCTAssertEqual(total, st.memoryUsed)
    }

    func testNestedCallsChargeTheInnerOwner() throws {
        let st = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 1000, memoryMegabytes: 8))
        // A host function that calls into "plugin 7" from inside "plugin 6", saving and
        // restoring the owner as the host does.
        st.pushFunction { call in
            let s = call.state
            let saved = s.currentOwner
            s.currentOwner = 7
            defer { s.currentOwner = saved }
            s.getGlobal("inner")
            do { try s.pcall(nargs: 0, nresults: 0) } catch let e as LuaError { return .failure(LuaHostError(e.message)) } catch { return .failure(LuaHostError("\(error)")) }
            return .success(0)
        }
        st.setGlobal("call_inner")
        try st.run("function inner() kept7 = {} for i = 1, 50000 do kept7[i] = i end end")
        st.currentOwner = 6
        _ = try st.eval("kept6 = {} for i = 1, 50000 do kept6[i] = i end call_inner() return 1")
        XCTAssertEqual(st.currentOwner, 6)
        XCTAssertGreaterThan(st.memoryUsed(owner: 7), 500_000)
        XCTAssertGreaterThan(st.memoryUsed(owner: 6), 500_000)
        XCTAssertLessThan(st.memoryUsed(owner: 6), 2_000_000)
    }

    // MARK: 5a. Message handlers after a limit

    func testXpcallHandlersDoNotOutliveALimit() throws {
        let sb = try makeSandbox()
        let cases = [
            "xpcall(function() while true do end end, function(e) while true do end end)",
            "xpcall(function() while true do end end, function(e) pcall(function() while true do end end) while true do end end)",
            "xpcall(function() error('plain') end, function(e) while true do end end) while true do end",
            "xpcall(function() local s = ('a'):rep(30) .. 'b' while true do s:find('(a*)*b') end end, function() while true do end end)",
            "local co = coroutine.wrap(function() xpcall(function() while true do end end, function() while true do end end) end) co()",
            "for i = 1, 10 do xpcall(function() while true do end end, function(e) return e end) end while true do end",
        ]
        for code in cases {
            let (e, seconds) = timed { assertLuaError(code) { _ = try sb.eval(code) } }
            XCTAssertEqual(e?.kind, .time, code)
            XCTAssertEqual(e?.message, "time limit exceeded (100 ms)", code)
            XCTAssertLessThan(seconds, 2, code)
        }
        // A handler still runs for ordinary errors.
        XCTAssertEqual(try sb.eval("local ok, m = xpcall(function() error('x', 0) end, function(e) return 'handled ' .. e end) return m"), .string("handled x"))
        XCTAssertEqual(try sb.eval("return select('#', xpcall(function(a, b) return a, b end, print, 1, 2))"), .int(3))
    }

    func testCloseHandlersOfKilledCoroutinesDoNotRunUnbounded() throws {
        let sb = try makeSandbox()
        let cases = [
            """
            local co = coroutine.wrap(function()
              local x <close> = setmetatable({}, { __close = function() while true do end end })
              while true do end
            end)
            co()
            """,
            """
            local co = coroutine.create(function()
              local x <close> = setmetatable({}, { __close = function() while true do end end })
              while true do end
            end)
            coroutine.resume(co)
            coroutine.close(co)
            while true do end
            """,
            """
            local x <close> = setmetatable({}, { __close = function() while true do end end })
            while true do end
            """,
            """
            local co = coroutine.create(function()
              local x <close> = setmetatable({}, { __close = function() while true do end end })
              coroutine.yield()
            end)
            coroutine.resume(co)
            coroutine.close(co)
            """,
            """
            local ok = pcall(function()
              local x <close> = setmetatable({}, { __close = function() while true do end end })
              error('first')
            end)
            while true do end
            """,
        ]
        for code in cases {
            let (e, seconds) = timed { assertLuaError(code) { _ = try sb.eval(code) } }
            XCTAssertEqual(e?.kind, .time, code)
            XCTAssertLessThan(seconds, 2, code)
        }
        // A coroutine killed in one call, closed in the next.
        let st = sb.state
        let saved = st.top
        defer { st.top = saved }
        try sb.pushEnvironment(label: "k", folder: nil)
        let env = st.absIndex(-1)
        _ = assertLuaError {
            _ = try sb.eval("""
                co = coroutine.create(function()
                  local x <close> = setmetatable({}, { __close = function() while true do end end })
                  while true do end
                end)
                coroutine.resume(co)
                """, inEnvironmentAt: env)
        }
        let (r, seconds) = try timed { try sb.eval("local ok, e = coroutine.close(co) return ok", inEnvironmentAt: env) }
        XCTAssertEqual(r, .bool(false))
        XCTAssertLessThan(seconds, 2)
        XCTAssertEqual(try sb.eval("local co = coroutine.create(function() coroutine.yield(1) end) coroutine.resume(co) return coroutine.close(co)", inEnvironmentAt: env), .bool(true))
        XCTAssertEqual(try sb.eval("local f = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end) return f(1) + f(10)", inEnvironmentAt: env), .int(22))
        let e = assertLuaError { _ = try sb.eval("coroutine.wrap(function() error('inner') end)()", chunkName: "w.lua") }
        XCTAssertTrue(e?.message.contains("inner") ?? false, e?.message ?? "")
    }

    // MARK: 5b. C functions that run no Lua instructions

    func testLongCFunctionsMeetTheBudget() throws {
        let sb = try makeSandbox()
        let cases = [
            "table.move({}, 1, math.maxinteger // 2, 2)",
            "table.move({}, 1, math.maxinteger // 2, 2, {})",
            "table.insert(setmetatable({}, { __len = function() return math.maxinteger - 1 end }), 1, 'x')",
            "table.remove(setmetatable({}, { __len = function() return math.maxinteger - 1 end }), 1)",
            "local s = ('x'):rep(10000) s:gsub('', ('%0'):rep(1000000))",
            "local s = ('x'):rep(4 * 1024 * 1024) local t = {} for i = 1, 3000 do t[i] = s end table.sort(t)",
            "local s = ('x'):rep(4 * 1024 * 1024) local t = {} for i = 1, 3000 do t[i] = s end table.sort(t, function(a, b) return a < b end)",
        ]
        for code in cases {
            let (e, seconds) = timed { assertLuaError(code) { _ = try sb.eval(code) } }
            XCTAssertEqual(e?.kind, .time, "\(code): \(e?.message ?? "")")
            XCTAssertLessThan(seconds, 3, code)
        }
        // Bounded ones stay ordinary.
        let bounded: [(String, LuaValue)] = [
            ("return #string.rep('', math.maxinteger)", .int(0)),
            ("return #string.rep('', math.maxinteger, '')", .int(0)),
            ("return #('ab'):rep(3, ',')", .int(8)),
            ("return ('ab'):rep(3, ',')", .string("ab,ab,ab")),
            ("return ('ab'):rep(1, ',')", .string("ab")),
            ("return ('ab'):rep(0)", .string("")),
            ("return ('ab'):rep(-5)", .string("")),
            ("return ('a'):rep(4)", .string("aaaa")),
            ("return (''):rep(3, 'xy')", .string("xyxy")),
            ("return #('abc'):rep(1000001)", .int(3_000_003)),
            ("local t = {} for i = 1, 100 do t[i] = (i * 7919) % 101 end table.sort(t) for i = 2, 100 do assert(t[i - 1] <= t[i]) end return t[1]", .int(1)),
            ("local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return table.concat(t)", .string("321")),
            ("local t = {1, 2, 3} table.insert(t, 1, 0) table.insert(t, 5) return table.concat(t)", .string("01235")),
            ("local t = {1, 2, 3} return table.remove(t, 1) .. table.concat(t)", .string("123")),
            ("return table.concat(table.move({1, 2, 3}, 1, 3, 2), ',')", .string("1,1,2,3")),
        ]
        for (code, expected) in bounded {
            XCTAssertEqual(try sb.eval(code), expected, code)
        }
        let tooLarge = assertLuaError { _ = try sb.eval("return ('x'):rep(1e10)") }
        XCTAssertTrue(tooLarge?.message.contains("resulting string too large") ?? false, tooLarge?.message ?? "")
        let e = assertLuaError { _ = try sb.eval("return ('x'):rep(1e9)") }
        XCTAssertEqual(e?.kind, .memory)
        let e2 = assertLuaError { _ = try sb.eval("return ('x'):rep(1e8, ',')") }
        XCTAssertEqual(e2?.kind, .memory)
    }

    func testOtherLongOperationsAreCapped() throws {
        let sb = try makeSandbox()
        let (e, seconds) = timed { assertLuaError { _ = try sb.eval("return os.date(('%c'):rep(1000000), 0)") } }
        XCTAssertTrue(e?.message.contains("os.date: format longer than 256 bytes") ?? false, e?.message ?? "")
        XCTAssertLessThan(seconds, 1)
        XCTAssertEqual(try sb.eval("return os.date(('%Y'):rep(10), 0)"), .string(String(repeating: "1970", count: 10)))
        let r = try sb.evalAll("return load(('x = 1 '):rep(300000))", count: 2)
        XCTAssertEqual(r[0], .nil)
        XCTAssertEqual(r[1], .string("load: chunk larger than 1 MiB (1048576 bytes), the limit for a chunk a plugin loads"))
        let r2 = try sb.evalAll("local piece = ('x = 1 '):rep(10000) return load(function() return piece end)", count: 2)
        XCTAssertEqual(r2[0], .nil)
        guard case .string(let m) = r2[1] else { return XCTFail("\(r2)") }
        XCTAssertTrue(m.contains("load: chunk larger than 1 MiB"), m)
        XCTAssertEqual(try sb.eval("local parts = {'return ', '4', '2'} local i = 0 return load(function() i = i + 1 return parts[i] end)()"), .int(42))
        // Verified bounded: huge ranges in concat/unpack, many arguments.
        let bounded = [
            "return table.concat({}, '', 1, math.maxinteger)",
            "return table.unpack({}, 1, 1e8)",
            "return table.unpack({}, 1, math.maxinteger)",
            "return string.char(table.unpack({}, 1, 1e7))",
        ]
        for code in bounded {
            let (err, s) = timed { assertLuaError(code) { _ = try sb.eval(code) } }
            XCTAssertEqual(err?.kind, .runtime, "\(code): \(err?.message ?? "")")
            XCTAssertLessThan(s, 1, code)
        }
        let t0 = DispatchTime.now().uptimeNanoseconds
        _ = try? sb.eval("local t = {} for i = 1, 200000 do t[i] = 65 end return #utf8.char(table.unpack(t)) + #string.char(table.unpack(t))")
        XCTAssertLessThan(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9, 2)
    }

    func testBulkLibraryCallsInATightLoopOvershootLittle() throws {
        let sb = try makeSandbox()
        let cases = [
            "local t = {} for i = 1, 1000000 do t[i] = 'x' end while true do table.concat(t) end",
            "local t = {} for i = 1, 200000 do t[i] = i end while true do select('#', table.unpack(t)) end",
            "local s = ('x'):rep(4000000) while true do s:upper() end",
            "local s = ('x'):rep(4000000) while true do s:rep(2) end",
            "local t = {} for i = 1, 200000 do t[i] = 65 end while true do string.char(table.unpack(t)) end",
        ]
        for code in cases {
            let (e, seconds) = timed { assertLuaError(code) { _ = try sb.eval(code) } }
            XCTAssertEqual(e?.kind, .time, "\(code): \(e?.message ?? "")")
            XCTAssertLessThan(seconds, 0.5, "\(code): the budget is 100 ms")
        }
    }

    // MARK: 5c. Total time budget

    func testTotalTimeBudget() throws {
        let st = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 0, memoryMegabytes: 32, totalTimeBudgetMilliseconds: 300))
        XCTAssertEqual(st.limits.totalTimeBudgetNanoseconds, 300_000_000)
        // Short calls read no clock and add nothing.
        for _ in 0..<1000 { _ = try st.eval("return 1") }
        XCTAssertEqual(st.totalTimeUsedNanoseconds, 0)
        let (e, seconds) = timed { assertLuaError { _ = try st.eval("while true do end") } }
        XCTAssertEqual(e?.kind, .time)
        XCTAssertEqual(e?.message, "total Lua time limit exceeded (0.3 s)")
        XCTAssertLessThan(seconds, 2)
        XCTAssertGreaterThan(st.totalTimeUsedNanoseconds, 300_000_000)
        // Every later call fails at once, without running Lua.
        let top = st.top
        let e2 = assertLuaError { try st.run("ran = true") }
        XCTAssertEqual(e2?.kind, .time)
        XCTAssertEqual(e2?.message, "total Lua time limit exceeded (0.3 s)")
        XCTAssertEqual(st.top, top, "function and arguments are popped")
        XCTAssertEqual(st.getGlobal("ran"), .nil, "no Lua ran")
        st.pop(1)
        // Raising the budget lets Lua run again.
        var limits = st.limits
        limits.totalTimeBudgetNanoseconds = 0
        st.limits = limits
        XCTAssertEqual(try st.eval("return 7"), .int(7))
    }

    func testTotalTimeBudgetAddsUpAcrossCalls() throws {
        let st = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 32, totalTimeBudgetMilliseconds: 120))
        var messages: [String] = []
        for _ in 0..<5 {
            do { try st.run("while true do end") } catch let e as LuaError { messages.append(e.message) } catch {}
        }
        XCTAssertEqual(messages.count, 5)
        XCTAssertEqual(messages.first, "time limit exceeded (50 ms)")
        XCTAssertEqual(messages.last, "total Lua time limit exceeded (0.12 s)")
        let sb = try Sandbox(limits: LuaLimits(timeBudgetMilliseconds: 3000, totalTimeBudgetMilliseconds: 500))
        let e = assertLuaError { _ = try sb.eval("local ok = pcall(function() while true do end end) while true do end") }
        XCTAssertEqual(e?.message, "total Lua time limit exceeded (0.5 s)", "a pcall does not swallow it")
        let e2 = assertLuaError { _ = try sb.eval("return 1") }
        XCTAssertEqual(e2?.kind, .time)
    }

    // MARK: 6. References from coroutines

    func testAFunctionRegisteredFromACoroutineOutlivesIt() throws {
        let st = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 1000, memoryMegabytes: 32))
        var kept: [LuaRef] = []
        var threadsSeen: [OpaquePointer] = []
        st.pushFunction { call in
            let s = call.state
            threadsSeen.append(s.L)
            s.pushCopy(1)
            kept.append(s.ref())
            return .success(0)
        }
        st.setGlobal("register")
        st.pushFunction { _ in
            // Released while a coroutine runs: unreferenced through the main thread.
            if !kept.isEmpty { kept.removeFirst() }
            return .success(0)
        }
        st.setGlobal("release_one")
        try st.run("""
            for i = 1, 20 do
              local co = coroutine.create(function(n)
                local big = {} for j = 1, 100 do big[j] = {} end
                register(function(x) return n * 100 + x + #big end)
                coroutine.yield()
              end)
              coroutine.resume(co, i)
            end
            local co = coroutine.wrap(function() release_one() release_one() end)
            co()
            """)
        XCTAssertEqual(st.L, st.mainThread, "the running thread is the main one again")
        XCTAssertEqual(kept.count, 18)
        XCTAssertTrue(threadsSeen.allSatisfy { $0 != st.mainThread }, "registered from coroutines")
        st.collectGarbage()
        st.collectGarbage()
        for (i, r) in kept.enumerated() {
            st.push(r)
            st.push(5)
            try st.pcall(nargs: 1, nresults: 1)
            XCTAssertEqual(st.toInt(-1), (i + 3) * 100 + 5 + 100)
            st.pop(1)
        }
        kept.removeAll()
        st.collectGarbage()
        XCTAssertEqual(try st.eval("return 1"), .int(1))
    }

    func testACoroutineKilledByTheLimitLeavesLaterCallsAlone() throws {
        let sb = try makeSandbox()
        var logged = 0
        sb.logSink = { _, _ in logged += 1 }
        let st = sb.state
        let saved = st.top
        defer { st.top = saved }
        try sb.pushEnvironment(label: "k", folder: nil)
        let env = st.absIndex(-1)
        let e = assertLuaError {
            _ = try sb.eval("""
                kept = {}
                local co = coroutine.create(function() print('doomed') while true do end end)
                kept.co = co
                coroutine.resume(co)
                return true
                """, inEnvironmentAt: env)
        }
        XCTAssertEqual(e?.kind, .time)
        for i in 0..<5 {
            let (r, seconds) = try timed {
                try sb.eval("""
                    local co = coroutine.create(function(n) print('building') coroutine.yield(n) end)
                    local _, v = coroutine.resume(co, 1)
                    for _ = 1, 5 do local t = {} for i = 1, 5000 do t[i] = { i } end end
                    return v
                    """, inEnvironmentAt: env)
            }
            XCTAssertEqual(r, .int(1), "call \(i)")
            XCTAssertLessThan(seconds, 0.5)
        }
        XCTAssertEqual(logged, 6)
    }

    // MARK: 7. Log caps

    func testPrintChecksItsRoomBeforeBuildingALine() throws {
        let sb = try makeSandbox()
        sb.logCapBytes = 1000
        var lines: [String] = []
        sb.logSink = { _, line in lines.append(line) }
        let (_, seconds) = try timed {
            _ = try sb.eval("""
                local big = ('x'):rep(8 * 1024 * 1024)
                for i = 1, 2000 do print(big, big, big) end
                return 1
                """)
        }
        XCTAssertLessThan(seconds, 2)
        XCTAssertEqual(lines.count, 1, "the cap is spent by the first line")
        XCTAssertLessThanOrEqual(lines[0].utf8.count, 1000 + 20)
        XCTAssertTrue(lines[0].hasSuffix("(log capped)"), lines[0])
        // Another label has its own room.
        _ = try sb.eval("print('hello', nil, 1)", label: "other")
        XCTAssertEqual(lines.last, "hello\tnil\t1")
    }
}
