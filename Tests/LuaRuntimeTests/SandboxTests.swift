import Foundation
import LuaRuntime
import XCTest

final class SandboxTests: XCTestCase {
    func makeSandbox(_ limits: LuaLimits = LuaLimits(timeBudgetMilliseconds: 100, memoryMegabytes: 32)) throws -> Sandbox {
        try Sandbox(limits: limits)
    }

    // MARK: What is (not) there

    func testDangerousGlobalsAreAbsent() throws {
        let sb = try makeSandbox()
        let absent = [
            "io", "debug", "package", "dofile", "loadfile", "string.dump", "math.random",
            "math.randomseed", "os.execute", "os.exit", "os.getenv", "os.remove", "os.rename", "os.tmpname", "os.clock",
            "os.setlocale", "_G.io", "_ENV.debug", "rawget(_G, 'package')",
        ]
        for name in absent {
            XCTAssertEqual(try sb.eval("return \(name)"), .nil, "\(name) must not be reachable from a plugin")
        }
        let present = [
            "assert", "error", "ipairs", "next", "pairs", "pcall", "xpcall", "select", "tonumber", "tostring", "type",
            "rawequal", "rawget", "rawlen", "rawset", "setmetatable", "getmetatable", "load", "require", "print",
            "collectgarbage", "string.format", "string.find", "table.sort", "math.floor", "utf8.char", "coroutine.wrap",
            "os.time", "os.date", "os.difftime",
        ]
        for name in present {
            XCTAssertEqual(try sb.eval("return type(\(name))"), .string("function"), "\(name) is part of the sandbox")
        }
        XCTAssertEqual(try sb.eval("return _VERSION"), .string("Lua 5.4"))
        XCTAssertEqual(try sb.eval("return _G == _ENV"), .bool(true), "_G is the plugin's own environment")
    }

    func testCallingAbsentFunctionsFailsWithAClearMessage() throws {
        let sb = try makeSandbox()
        let cases: [(String, String)] = [
            ("os.execute('echo pwned')", "attempt to call a nil value (field 'execute')"),
            ("io.open('/etc/passwd')", "attempt to index a nil value (global 'io')"),
            ("debug.sethook()", "attempt to index a nil value (global 'debug')"),
            ("package.loadlib('x', 'y')", "attempt to index a nil value (global 'package')"),
            ("dofile('/etc/passwd')", "attempt to call a nil value (global 'dofile')"),
            ("string.dump(print)", "attempt to call a nil value (field 'dump')"),
            ("math.random()", "attempt to call a nil value (field 'random')"),
        ]
        for (code, message) in cases {
            let e = assertLuaError(code) { _ = try sb.eval(code, chunkName: "p.lua") }
            XCTAssertEqual(e?.kind, .runtime, code)
            XCTAssertEqual(e?.message, message, code)
            XCTAssertEqual(e?.line, 1, code)
        }
    }

    func testOsIsAPureUTCDateHelper() throws {
        let sb = try makeSandbox()
        let e = assertLuaError { _ = try sb.eval("return os.time()") }
        XCTAssertTrue(e?.message.contains("os.time needs a date table") ?? false, e?.message ?? "")
        let e2 = assertLuaError { _ = try sb.eval("return os.date('%Y')") }
        XCTAssertTrue(e2?.message.contains("os.date needs an explicit time") ?? false, e2?.message ?? "")
        XCTAssertEqual(try sb.eval("return os.date('%Y', 0)"), .string("1970"))
        XCTAssertEqual(try sb.eval("return os.date('%Y-%m-%d %H:%M:%S', 86399)"), .string("1970-01-01 23:59:59"), "UTC, never local time")
        XCTAssertEqual(try sb.eval("return os.date('!%H', 3600)"), .string("01"))
        XCTAssertEqual(try sb.eval("return os.date('*t', 951782400).day"), .int(29), "2000-02-29 (leap year)")
        XCTAssertEqual(try sb.eval("return os.time({year = 2000, month = 2, day = 29, hour = 0})"), .int(951_782_400))
        XCTAssertEqual(try sb.eval("return os.time({year = 1970, month = 1, day = 1, hour = 0})"), .int(0))
        XCTAssertEqual(try sb.eval("return os.time({year = 2024, month = 13, day = 1, hour = 0}) == os.time({year = 2025, month = 1, day = 1, hour = 0})"), .bool(true), "months normalise")
        XCTAssertEqual(try sb.eval("return os.date('%Y-%m-%d', os.time({year = 2031, month = 7, day = 15}))"), .string("2031-07-15"), "round trip")
        XCTAssertEqual(try sb.eval("return os.difftime(10, 4)"), .int(6))
    }

    func testCollectGarbageOnlyCounts() throws {
        let sb = try makeSandbox()
        for option in ["", "'collect'", "'stop'", "'step'", "'incremental'", "'generational'"] {
            let e = assertLuaError(option) { _ = try sb.eval("collectgarbage(\(option))") }
            XCTAssertTrue(e?.message.contains("only \"count\" is available") ?? false, "\(option): \(e?.message ?? "")")
        }
        let count = try sb.eval("return collectgarbage('count')")
        guard case .double(let kb) = count else { return XCTFail("count returned \(count)") }
        XCTAssertGreaterThan(kb, 1)
    }

    func testStringLibraryIsSharedButLocked() throws {
        let sb = try makeSandbox()
        XCTAssertEqual(try sb.eval("return getmetatable('')"), .bool(false), "the string metatable stays private")
        XCTAssertEqual(try sb.eval("return ('abc'):upper()"), .string("ABC"), "string methods still work")
        let e = assertLuaError { _ = try sb.eval("string.upper = nil") }
        XCTAssertTrue(e?.message.contains("attempt to modify read-only table 'string' (field 'upper')") ?? false, e?.message ?? "")
        let e2 = assertLuaError { _ = try sb.eval("getmetatable('').__index = {}") }
        XCTAssertTrue(e2?.message.contains("attempt to index a boolean value") ?? false, e2?.message ?? "")
        for lib in ["table", "math", "os", "utf8", "coroutine"] {
            let e3 = assertLuaError(lib) { _ = try sb.eval("\(lib).injected = 1") }
            XCTAssertTrue(e3?.message.contains("read-only table '\(lib)'") ?? false, "\(lib): \(e3?.message ?? "")")
        }
        // rawset on the read-only view changes only this environment's view.
        XCTAssertEqual(try sb.eval("rawset(string, 'upper', function() return 'pwned' end) return string.upper('x')"), .string("pwned"))
        XCTAssertEqual(try sb.eval("return string.upper('x') .. ('y'):upper()"), .string("XY"), "another environment is not affected")
        XCTAssertEqual(try sb.eval("local n = 0 for k in pairs(string) do n = n + 1 end return n > 10"), .bool(true), "pairs sees the library")
        XCTAssertEqual(try sb.eval("return #table == 0 and getmetatable(table)"), .bool(false), "its metatable is hidden")
    }

    func testEnvironmentsAreIsolated() throws {
        let sb = try makeSandbox()
        let top = sb.state.top
        defer { sb.state.top = top }
        try sb.pushEnvironment(label: "a", folder: nil)
        let a = sb.state.absIndex(-1)
        try sb.pushEnvironment(label: "b", folder: nil)
        let b = sb.state.absIndex(-1)
        XCTAssertEqual(try sb.eval("secret = 'from a'; tostring = nil; return secret", inEnvironmentAt: a), .string("from a"))
        XCTAssertEqual(try sb.eval("return secret", inEnvironmentAt: a), .string("from a"), "globals persist in their environment")
        XCTAssertEqual(try sb.eval("return secret", inEnvironmentAt: b), .nil, "one environment's globals are invisible to another")
        XCTAssertEqual(try sb.eval("return load('return secret')()", inEnvironmentAt: b), .nil, "load runs in the caller's environment")
        XCTAssertEqual(try sb.eval("return type(tostring)", inEnvironmentAt: b), .string("function"), "removing a base function is local")
        XCTAssertEqual(try sb.eval("return rawget(_G, 'secret')", inEnvironmentAt: b), .nil)
        XCTAssertEqual(try sb.eval("return load('return secret', 'x', 't', {secret = 'explicit'})()", inEnvironmentAt: b), .string("explicit"))
        XCTAssertEqual(try sb.eval("return secret", inEnvironmentAt: a), .string("from a"))
    }

    func testLoadRefusesBinaryChunks() throws {
        let sb = try makeSandbox()
        let r = try sb.evalAll("return load('\\27LuaT\\0\\25\\147\\r\\n\\26\\n')", count: 2)
        XCTAssertEqual(r[0], .nil)
        XCTAssertEqual(r[1], .string("attempt to load a binary chunk (binary chunks are not available to plugins)"))
        let e = assertLuaError { _ = try sb.eval("return load('return 1', 'x', 'b')") }
        XCTAssertTrue(e?.message.contains("only text chunks") ?? false, e?.message ?? "")
        let e2 = assertLuaError { _ = try sb.eval("return load('return 1', 'x', 'bt')") }
        XCTAssertTrue(e2?.message.contains("only text chunks") ?? false, e2?.message ?? "")
        // A reader function that produces a binary chunk piece by piece is refused too.
        let r2 = try sb.evalAll("""
            local parts = {"\\27", "LuaT", "\\0\\25\\147"}
            local i = 0
            return load(function() i = i + 1 return parts[i] end)
            """, count: 2)
        XCTAssertEqual(r2[0], .nil)
        guard case .string(let msg) = r2[1] else { return XCTFail("no message: \(r2)") }
        XCTAssertTrue(msg.contains("binary chunk"), msg)
        XCTAssertEqual(try sb.eval("return load('return 6 * 7')()"), .int(42), "text chunks load")
    }

    func testGcMetamethodsAreRefused() throws {
        let sb = try makeSandbox()
        let e = assertLuaError { _ = try sb.eval("setmetatable({}, {__gc = function() end})", chunkName: "gc.lua") }
        XCTAssertEqual(e?.message, "__gc metamethods are not available to plugins")
        XCTAssertEqual(e?.line, 1)
        // A __gc added after setmetatable is never called (Lua checks at setmetatable time).
        XCTAssertEqual(try sb.eval("""
            local ran = false
            local mt = {}
            setmetatable({}, mt)
            mt.__gc = function() ran = true end
            return ran
            """), .bool(false))
        sb.state.collectGarbage()
        XCTAssertEqual(try sb.eval("return getmetatable(setmetatable({}, {__index = {x = 1}})).__index.x"), .int(1), "other metatables work")
    }

    // MARK: print and logs

    func testPrintGoesToTheLogWithACap() throws {
        let sb = try makeSandbox()
        var lines: [(String, String)] = []
        sb.logSink = { lines.append(($0, $1)) }
        sb.logCapBytes = 100
        _ = try sb.eval("print('hello', 42, nil, true)", label: "plug")
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(lines.first?.0, "plug")
        XCTAssertEqual(lines.first?.1, "hello\t42\tnil\ttrue")
        _ = try sb.eval("for i = 1, 100 do print(('x'):rep(30)) end", label: "plug")
        let total = lines.filter { $0.0 == "plug" }.map(\.1.utf8.count).reduce(0, +)
        XCTAssertLessThan(total, 200, "the log is capped per label")
        XCTAssertTrue(lines.last?.1.hasSuffix("(log capped)") ?? false, lines.last?.1 ?? "")
        _ = try sb.eval("print('other')", label: "other")
        XCTAssertEqual(lines.last?.1, "other", "the cap is per label")
    }

    // MARK: require

    func testRequireStaysInsideTheFolder() throws {
        let sb = try makeSandbox()
        sb.virtualFiles = [
            "/virtual/plug/lib/util.lua": "return { answer = 42, env_is_shared = (marker == 'set by main') }",
            "/virtual/plug/pkg/init.lua": "return 'init'",
            "/virtual/outside.lua": "return 'escaped'",
        ]
        XCTAssertEqual(try sb.eval("marker = 'set by main' return require('lib.util').answer", folder: "/virtual/plug"), .int(42))
        XCTAssertEqual(try sb.eval("marker = 'set by main' return require('lib.util').env_is_shared", folder: "/virtual/plug"), .bool(true))
        XCTAssertEqual(try sb.eval("return require('pkg')", folder: "/virtual/plug"), .string("init"))
        XCTAssertEqual(try sb.eval("return require('lib.util') == require('lib.util')", folder: "/virtual/plug"), .bool(true), "modules load once")
        for name in ["../outside", "..", "lib/../../outside", "/etc/passwd", ".hidden", "a..b"] {
            let e = assertLuaError(name) { _ = try sb.eval("return require('\(name)')", folder: "/virtual/plug") }
            XCTAssertTrue(e?.message.contains("is not a plain module name") ?? false, "\(name): \(e?.message ?? "")")
        }
        let e = assertLuaError { _ = try sb.eval("return require('absent')", folder: "/virtual/plug") }
        XCTAssertTrue(e?.message.contains("module 'absent' not found in the plugin's folder") ?? false, e?.message ?? "")
        let e2 = assertLuaError { _ = try sb.eval("return require('os')", folder: "/virtual/plug") }
        XCTAssertTrue(e2?.message.contains("module 'os' not found") ?? false, e2?.message ?? "")
    }

    // MARK: Budgeted pattern matching

    func testPatternBatteryPassesInTheSandbox() throws {
        let sb = try makeSandbox(LuaLimits(timeBudgetMilliseconds: 5000, memoryMegabytes: 64))
        XCTAssertEqual(try sb.eval(PatternBattery.pm, chunkName: "pm.lua"), .string("pm ok"))
    }

    func testOrdinaryPatternResults() throws {
        let sb = try makeSandbox()
        let cases: [(String, LuaValue)] = [
            ("return string.match('key = value', '(%w+)%s*=%s*(%w+)')", .string("key")),
            ("return select(2, string.match('key = value', '(%w+)%s*=%s*(%w+)'))", .string("value")),
            ("return string.find('hello world', 'o w')", .int(5)),
            ("return select(2, string.find('hello world', 'l+'))", .int(4)),
            ("return (string.gsub('hello world', 'o', '0'))", .string("hell0 w0rld")),
            ("return select(2, string.gsub('hello world', 'o', '0'))", .int(2)),
            ("local t = {} for w in ('one two three'):gmatch('%a+') do t[#t + 1] = w end return table.concat(t, ',')", .string("one,two,three")),
            ("return ('x(a(b)c)y'):match('%b()')", .string("(a(b)c)")),
            ("return ('THE (quick) fox'):gsub('%f[%a]%a+', string.lower)", .string("the (quick) fox")),
            ("return ('5.3.0-beta.1'):match('^(%d+)%.(%d+)%.(%d+)%-?(.*)$')", .string("5")),
            ("return ('2024-12-01T10:00:00Z'):match('^(%d%d%d%d)%-(%d%d)')", .string("2024")),
            ("return ('a.b'):find('.', 1, true)", .int(2)),
            ("return pcall(string.find, 'a', '(%')", .bool(false)),
            ("return select(2, pcall(string.rep('a', 300000).find, string.rep('a', 300000), string.rep('.?', 200000)))", .string("pattern too complex")),
        ]
        for (code, expected) in cases {
            var got = try sb.eval(code)
            if case .string(let s) = got, s.hasSuffix("pattern too complex") { got = .string("pattern too complex") }
            XCTAssertEqual(got, expected, code)
        }
    }

    /// The runaway cases of the C test: each must end with "time limit exceeded" within the
    /// budget, however it is called, and the next call must work.
    func testCatastrophicPatternsEndWithTheTimeBudget() throws {
        let sb = try makeSandbox(LuaLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 64))
        let heavy: [(String, String)] = [
            ("catastrophic match", "return string.match(('a'):rep(40), ('a*'):rep(20) .. 'b')"),
            ("catastrophic find", "return string.find(('a'):rep(40), ('a*'):rep(20) .. 'b')"),
            ("catastrophic gmatch", "for x in string.gmatch(('a'):rep(40), ('a*'):rep(20) .. 'b') do end"),
            ("catastrophic gsub", "return string.gsub(('a'):rep(40), ('a*'):rep(20) .. 'b', 'x')"),
            ("method call", "return (('a'):rep(40)):match(('a*'):rep(20) .. 'b')"),
            ("quadratic find .-x", "return (':'):rep(1000000):find('.-x')"),
            ("quadratic find .*x", "return (':'):rep(1000000):find('.*x')"),
            ("quadratic gsub .-x", "return (':'):rep(1000000):gsub('.-x', '')"),
            ("quadratic gmatch .-x", "for x in (':'):rep(1000000):gmatch('.-x') do end"),
            ("quadratic %b()", "return ('('):rep(1000000):find('%b()')"),
            ("back-reference (.*)%1x", "return ('a'):rep(200000):find('(.*)%1x')"),
            ("huge bracket class", "return (':'):rep(1000000):find('[' .. ('a'):rep(100000) .. ']')"),
            ("plain find, long needle", "return ('a'):rep(1000000):find(('a'):rep(100000) .. 'b', 1, true)"),
            ("swallowed by pcall", "local ok, e = pcall(string.match, ('a'):rep(40), ('a*'):rep(20) .. 'b')\nreturn 'swallowed: ' .. tostring(e)"),
            ("inside a coroutine", "local co = coroutine.wrap(function ()\n  return string.match(('a'):rep(40), ('a*'):rep(20) .. 'b') end)\nreturn co()"),
        ]
        let followUp = """
            local r, n = ('abc'):gsub('%w', '%0%0'); assert(r == 'aabbcc' and n == 3)
            local i, j = string.find('hello', 'l+'); assert(i == 3 and j == 4)
            assert(string.match('key=val', '(%w+)=(%w+)') == 'key')
            local t = {} for w in string.gmatch('a b c', '%a') do t[#t + 1] = w end assert(#t == 3)
            return 'follow-up ok'
            """
        for (name, code) in heavy {
            let (e, seconds) = timed { assertLuaError(name) { _ = try sb.eval(code, chunkName: "heavy.lua") } }
            XCTAssertEqual(e?.kind, .time, "\(name): \(e?.description ?? "completed")")
            XCTAssertEqual(e?.message, "time limit exceeded (50 ms)", name)
            XCTAssertLessThan(seconds, 0.5, "\(name) took \(seconds) s")
            XCTAssertEqual(try sb.eval(followUp), .string("follow-up ok"), "after \(name)")
        }
    }
}
