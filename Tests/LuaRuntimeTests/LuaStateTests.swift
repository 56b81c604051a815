import CLua
import Foundation
import LuaRuntime
import XCTest

final class LuaStateTests: XCTestCase {
    // MARK: Values

    func testValuesRoundTrip() throws {
        let state = try LuaState()
        let strings = ["", "plain", "nul\u{0}inside\u{0}", "æøå — 日本語 — 🧵", String(repeating: "x", count: 100_000)]
        for s in strings {
            state.push(s)
            XCTAssertEqual(state.typeName(-1), "string")
            XCTAssertEqual(state.toString(-1), s, "string of \(s.utf8.count) bytes")
            XCTAssertEqual(state.rawLength(-1), s.utf8.count, "Lua sees the UTF-8 byte length, NULs included")
            state.pop()
        }
        for i in [0, 1, -1, Int.max, Int.min, 1 << 53 + 1] {
            state.push(i)
            XCTAssertTrue(state.isInteger(-1), "\(i) stays an integer")
            XCTAssertEqual(state.toInt(-1), i)
            state.pop()
        }
        for d in [0.5, -1.25, 1e300, -0.0, Double.pi] {
            state.push(d)
            XCTAssertFalse(state.isInteger(-1), "\(d) is a float")
            XCTAssertEqual(state.toDouble(-1), d)
            state.pop()
        }
        state.push(2.0)
        XCTAssertFalse(state.isInteger(-1), "an integral Double stays a float")
        XCTAssertEqual(state.toInt(-1), 2, "but converts to an integer on request")
        state.pop()
        state.push(2.5)
        XCTAssertNil(state.toInt(-1), "2.5 has no integer value")
        state.pop()
        for b in [true, false] {
            state.push(b)
            XCTAssertEqual(state.typeName(-1), "boolean")
            XCTAssertEqual(state.toBool(-1), b)
            state.pop()
        }
        state.pushNil()
        XCTAssertEqual(state.value(at: -1), .nil)
        XCTAssertFalse(state.toBool(-1))
        state.pop()
        state.push(42)
        XCTAssertNil(state.toString(-1), "numbers are not converted to strings in place")
        XCTAssertTrue(state.isInteger(-1), "and the number is left untouched")
        state.pop()
        XCTAssertEqual(state.top, LuaState.baseTop)
    }

    /// An outer protected call on the main thread trusts slot 1 to hold the message handler
    /// without looking (loom_pcall.c). After each kind of base-level use the handler is still
    /// there; `top = 0` at the base level leaves it; errors raised at the base level, and in a
    /// call nested in a host function (whose index 1 is the host function's first argument, a
    /// Lua function here, which must not be taken for the handler), come with the handler's
    /// traceback.
    func testResidentHandlerStaysInPlace() throws {
        let state = try LuaState()
        XCTAssertTrue(state.residentHandlerInPlace, "a fresh state")
        try state.run("x = 1", chunkName: "=t")
        XCTAssertThrowsError(try state.run("error('boom')", chunkName: "=t"))
        XCTAssertThrowsError(try state.run("syntax error here", chunkName: "=t"))
        state.push("a"); state.push(2); state.pop(2)
        XCTAssertTrue(state.residentHandlerInPlace, "after runs, a failed run, a failed load, pushes and pops")
        state.top = 0
        XCTAssertEqual(state.top, LuaState.baseTop, "top = 0 at the base level keeps the handler")
        XCTAssertTrue(state.residentHandlerInPlace)
        func failure(_ source: String) -> LuaError? {
            assertLuaError { try state.run(source, chunkName: "=t") }
        }
        let base = failure("local function f() error('deep') end f()")
        XCTAssertEqual(base?.message, "deep")
        XCTAssertTrue(base?.traceback.hasPrefix("stack traceback:") ?? false, "\(String(describing: base))")
        // A host function calling its first argument: a nested protected call.
        state.pushFunction { call in
            let s = call.state
            s.pushCopy(1)
            do {
                try s.pcall(nargs: 0, nresults: 0)
                return .success(0)
            } catch let e as LuaError {
                s.push(e.message + (e.traceback.hasPrefix("stack traceback:") ? " [traceback]" : " [no traceback]"))
                return .success(1)
            } catch {
                return .failure(LuaHostError("\(error)"))
            }
        }
        state.setGlobal("call_it")
        try state.run("result = call_it(function() error('nested') end)", chunkName: "=t")
        _ = state.getGlobal("result")
        XCTAssertEqual(state.toString(-1), "nested [traceback]")
        state.pop()
        XCTAssertEqual(state.top, LuaState.baseTop)
        XCTAssertTrue(state.residentHandlerInPlace, "after a host function's nested call")
    }

    func testStringsSurviveTheTripThroughLua() throws {
        let state = try LuaState()
        let s = "a\u{0}b — ü 🧵"
        state.push(s)
        state.setGlobal("s")
        // Lua sees the bytes: length, the NUL, and the UTF-8 code points.
        XCTAssertEqual(try state.eval("return #s"), .int(s.utf8.count))
        XCTAssertEqual(try state.eval("return s:byte(2)"), .int(0))
        XCTAssertEqual(try state.eval("return utf8.len(s)"), .int(s.unicodeScalars.count))
        XCTAssertEqual(try state.eval("return s .. '!'"), .string(s + "!"))
        XCTAssertEqual(try state.eval("return 'caf\\u{E9}'"), .string("café"))
    }

    func testTablesFieldsAndGlobals() throws {
        let state = try LuaState()
        state.newTable()
        state.push("v")
        state.setField(-2, "k")
        state.push(7)
        state.setIndex(-2, 1)
        state.setGlobal("t")
        XCTAssertEqual(try state.eval("return t.k .. t[1] .. #t"), .string("v71"))
        XCTAssertEqual(state.getGlobal("t"), .table)
        state.getField(-1, "k")
        XCTAssertEqual(state.toString(-1), "v")
        state.pop()
        state.getIndex(-1, 1)
        XCTAssertEqual(state.toInt(-1), 7)
        state.pop()
        var keys: [String] = []
        state.forEachPair(-1) { keys.append(state.toString(-2) ?? "#\(state.toInt(-2) ?? -1)") }
        XCTAssertEqual(keys.sorted(), ["#1", "k"])
        state.pop()
        XCTAssertEqual(state.top, LuaState.baseTop)
    }

    // MARK: References

    func testReferencesAreReleased() throws {
        let state = try LuaState()
        state.collectGarbage()
        let baselineKB = state.gcCountKB
        let registryLength = { () -> Int in
            Int(lua_rawlen(state.L, loom_registry_index()))
        }
        // 2000 references to distinct 10 KiB strings: about 20 MiB while held.
        var refs: [LuaRef] = []
        for i in 0..<2000 {
            state.push(String(repeating: "\(i % 10)", count: 10_000) + "\(i)")
            refs.append(state.ref())
        }
        state.push(refs[1234])
        XCTAssertEqual(state.toString(-1)?.hasSuffix("1234"), true, "a reference pushes its value")
        state.pop()
        state.collectGarbage()
        XCTAssertGreaterThan(state.gcCountKB, baselineKB + 15_000, "the referenced strings are alive")
        let lengthWhileHeld = registryLength()
        XCTAssertGreaterThanOrEqual(lengthWhileHeld, 2000)
        refs.removeAll()
        state.collectGarbage()
        XCTAssertLessThan(state.gcCountKB, baselineKB + 1_000, "dropping the references frees their values")
        // The registry slots are reused: many more refs never grow it past its high-water mark.
        for round in 0..<5 {
            for i in 0..<2000 {
                state.push(i)
                refs.append(state.ref())
            }
            refs.removeAll()
            XCTAssertLessThanOrEqual(registryLength(), lengthWhileHeld, "round \(round): the registry does not grow")
        }
        XCTAssertEqual(state.top, LuaState.baseTop)
    }

    // MARK: Host functions

    func testHostFunctionsTakeArgumentsAndReturnSeveralResults() throws {
        let state = try LuaState()
        var calls = 0
        state.pushFunction { call in
            calls += 1
            let a = call.int(1) ?? 0
            let b = call.int(2) ?? 0
            let label = call.string(3) ?? "?"
            let count = call.count
            call.state.push(a + b)
            call.state.push("\(label):\(count)")
            call.state.push(true)
            return .success(3)
        }
        state.setGlobal("add")
        let r = try state.eval("""
            local sum, text, flag = add(40, 2, "args")
            assert(flag == true)
            assert(math.type(sum) == "integer")
            return sum .. "|" .. text
            """)
        XCTAssertEqual(r, .string("42|args:3"))
        XCTAssertEqual(calls, 1)
        // Called from Swift directly through pcall, with the results left on the stack.
        state.getGlobal("add")
        state.push(1)
        state.push(2)
        state.push("x")
        try state.pcall(nargs: 3, nresults: 3)
        XCTAssertEqual([state.value(at: -3), state.value(at: -2), state.value(at: -1)], [.int(3), .string("x:3"), .bool(true)])
        state.pop(3)
        XCTAssertEqual(state.top, LuaState.baseTop)
    }

    func testHostFunctionErrorIsCatchableInLua() throws {
        let state = try LuaState()
        state.pushFunction { call in
            .failure(LuaHostError("host says no to \(call.string(1) ?? "?")"))
        }
        state.setGlobal("refuse")
        let r = try state.eval("""
            local ok, err = pcall(refuse, "plugins")
            assert(not ok)
            return err
            """)
        XCTAssertEqual(r, .string("host says no to plugins"))
        // Uncaught, it reaches the host as a runtime error with the message and the Lua caller.
        let e = assertLuaError { _ = try state.eval("local x = 1\nrefuse('you')\n", chunkName: "caller.lua") }
        XCTAssertEqual(e?.kind, .runtime)
        XCTAssertEqual(e?.message, "host says no to you")
        XCTAssertEqual(e?.file, "caller.lua")
        XCTAssertEqual(e?.line, 2)
        // The state goes on.
        XCTAssertEqual(try state.eval("return 1 + 1"), .int(2))
        XCTAssertEqual(state.top, LuaState.baseTop)
    }

    // MARK: Errors

    func testRuntimeErrorsCarryFileLineAndTraceback() throws {
        let state = try LuaState()
        let source = """
            local function inner(x)
              error("bad value " .. x)
            end
            local function outer() inner(7) end
            outer()
            """
        let e = assertLuaError { _ = try state.eval(source, chunkName: "plugins/demo/plugin.lua") }
        XCTAssertEqual(e?.kind, .runtime)
        XCTAssertEqual(e?.message, "bad value 7")
        XCTAssertEqual(e?.file, "plugins/demo/plugin.lua")
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.location, "plugins/demo/plugin.lua:2")
        XCTAssertEqual(e?.description, "plugins/demo/plugin.lua:2: bad value 7")
        let tb = e?.traceback ?? ""
        XCTAssertTrue(tb.hasPrefix("stack traceback:"), tb)
        XCTAssertTrue(tb.contains("plugins/demo/plugin.lua:2: in "), "the raising frame: \(tb)")
        XCTAssertTrue(tb.contains("plugins/demo/plugin.lua:4: in "), "the calling frame: \(tb)")
        XCTAssertTrue(tb.contains("plugins/demo/plugin.lua:5: in "), "the main chunk: \(tb)")

        // An error without a position (level 0) still gets the location of the first Lua frame.
        let e2 = assertLuaError { _ = try state.eval("\n\nerror('no position', 0)", chunkName: "p.lua") }
        XCTAssertEqual(e2?.message, "no position")
        XCTAssertEqual(e2?.file, "p.lua")
        XCTAssertEqual(e2?.line, 3)

        // Runtime errors raised by Lua itself.
        let e3 = assertLuaError { _ = try state.eval("local t = nil\nreturn t.x", chunkName: "q.lua") }
        XCTAssertEqual(e3?.kind, .runtime)
        XCTAssertEqual(e3?.line, 2)
        XCTAssertEqual(e3?.message, "attempt to index a nil value (local 't')")
    }

    func testNonStringErrorObjectsAreDescribed() throws {
        let state = try LuaState()
        let cases: [(String, String)] = [
            ("error(nil)", "error object is nil"),
            ("error({})", "error object is a table value"),
            ("error(true)", "error object is a boolean value (true)"),
            ("error(42)", "42"),
            ("error(setmetatable({}, {__tostring = function() return 'custom' end}))", "custom"),
            ("error(setmetatable({}, {__tostring = function() error('again') end}))", "error object is a table value (its __tostring failed)"),
        ]
        for (code, expected) in cases {
            let e = assertLuaError(code) { _ = try state.eval(code, chunkName: "e.lua") }
            XCTAssertEqual(e?.kind, .runtime, code)
            XCTAssertEqual(e?.message, expected, code)
            XCTAssertEqual(e?.file, "e.lua", code)
            XCTAssertEqual(e?.line, 1, code)
        }
        XCTAssertEqual(try state.eval("return 'still fine'"), .string("still fine"))
    }

    func testSyntaxErrorsHaveKindAndLine() throws {
        let state = try LuaState()
        let e = assertLuaError { try state.load(source: "local a = 1\nlocal b = 2\nlocal c = = 3\n", chunkName: "broken.lua") }
        XCTAssertEqual(e?.kind, .syntax)
        XCTAssertEqual(e?.file, "broken.lua")
        XCTAssertEqual(e?.line, 3)
        XCTAssertEqual(e?.message, "unexpected symbol near '='")
        let e2 = assertLuaError { try state.load(source: "return {\n  a = 1\n", chunkName: "open.lua") }
        XCTAssertEqual(e2?.kind, .syntax)
        XCTAssertEqual(e2?.line, 3)
        XCTAssertEqual(e2?.message, "'}' expected (to close '{' at line 1) near <eof>")
        XCTAssertEqual(state.top, LuaState.baseTop, "a failed load leaves nothing on the stack")
        // Binary chunks are refused by the loader itself.
        let e3 = assertLuaError { try state.load(source: "\u{1B}Lua\u{54}\u{0}", chunkName: "bin") }
        XCTAssertEqual(e3?.kind, .syntax)
        XCTAssertTrue(e3?.message.contains("binary chunk") ?? false, e3?.message ?? "")
    }

    // MARK: Limits

    func testTimeBudgetStopsAnInfiniteLoop() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 16))
        for round in 0..<3 {
            let (e, seconds) = timed { assertLuaError { _ = try state.eval("local n = 0\nwhile true do n = n + 1 end", chunkName: "loop.lua") } }
            XCTAssertEqual(e?.kind, .time, "round \(round)")
            XCTAssertEqual(e?.message, "time limit exceeded (50 ms)")
            XCTAssertEqual(e?.file, "loop.lua")
            XCTAssertEqual(e?.line, 2)
            XCTAssertGreaterThanOrEqual(seconds, 0.045, "the budget is spent before the call ends")
            XCTAssertLessThan(seconds, 0.5, "round \(round): stopped in well under a second")
            // The state keeps working, with a fresh budget per call.
            XCTAssertEqual(try state.eval("local s = 0 for i = 1, 1000 do s = s + i end return s"), .int(500_500))
        }
    }

    func testTimeBudgetCannotBeSwallowed() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 50, memoryMegabytes: 16))
        let cases: [(String, String)] = [
            ("pcall", "local ok = pcall(function() while true do end end)\nreturn 'swallowed'"),
            ("nested pcall", "for i = 1, 3 do pcall(pcall, function() while true do end end) end\nreturn 'swallowed'"),
            ("error handler", "xpcall(function() while true do end end, function(m) return m end)\nreturn 'swallowed'"),
            ("coroutine.wrap", "coroutine.wrap(function() while true do end end)()\nreturn 'swallowed'"),
            ("coroutine.resume", "local co = coroutine.create(function() while true do end end)\nlocal ok = coroutine.resume(co)\nreturn 'swallowed'"),
            ("coroutine in pcall", "pcall(coroutine.resume, coroutine.create(function() while true do end end))\nreturn 'swallowed'"),
        ]
        for (name, code) in cases {
            let (e, seconds) = timed { assertLuaError(name) { _ = try state.eval(code) } }
            XCTAssertEqual(e?.kind, .time, "\(name): \(e?.description ?? "no error")")
            XCTAssertEqual(e?.file, "test.lua", "\(name): the error points into the script")
            XCTAssertNotNil(e?.line, name)
            XCTAssertLessThan(seconds, 0.5, name)
            XCTAssertEqual(try state.eval("return 'next call'"), .string("next call"), "\(name): the state keeps working")
        }
    }

    func testUnlimitedBudgetLetsLongCallsFinish() throws {
        var limits = LuaLimits(timeBudgetMilliseconds: 0, memoryMegabytes: 0)
        limits.timeBudgetNanoseconds = 0
        let state = try LuaState(limits: limits)
        XCTAssertEqual(state.limits.timeBudgetNanoseconds, 0)
        // ~0.1-0.3 s of work: longer than a tiny budget, fine without one.
        XCTAssertEqual(try state.eval("local s = 0 for i = 1, 3e6 do s = s + 1 end return s"), .int(3_000_000))
        state.limits = LuaLimits(timeBudgetMilliseconds: 1, memoryMegabytes: 0)
        let e = assertLuaError { _ = try state.eval("local s = 0 for i = 1, 3e8 do s = s + 1 end return s") }
        XCTAssertEqual(e?.kind, .time, "a budget set later applies to the next call")
    }

    func testMemoryCapStopsATableBomb() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 2000, memoryMegabytes: 16))
        let bombs: [(String, String)] = [
            ("table growth", "local t = {}\nwhile true do t[#t + 1] = {#t} end"),
            ("string growth", "local s = 'x'\nwhile true do s = s .. s end"),
            ("string.rep", "return ('x'):rep(2^30)"),
            ("table.concat", "local t = {} for i = 1, 1e7 do t[i] = 'abcdefgh' end return table.concat(t)"),
            ("caught by pcall", "local big = {}\nlocal ok = pcall(function() while true do big[#big + 1] = {#big} end end)\nbig = nil\nreturn 'swallowed'"),
        ]
        for (name, code) in bombs {
            let (e, seconds) = timed { assertLuaError(name) { _ = try state.eval(code, chunkName: "bomb.lua") } }
            XCTAssertEqual(e?.kind, .memory, "\(name): \(e?.description ?? "no error")")
            XCTAssertEqual(e?.message, "memory limit exceeded (16 MiB)", name)
            XCTAssertLessThan(seconds, 1.5, name)
            // (The host's own work outside calls, such as compiling the next chunk, is never refused.)
            XCTAssertLessThanOrEqual(state.memoryPeak, 16 * 1024 * 1024 + 64 * 1024, "\(name): the cap holds")
            // The state keeps working, also for a call that needs a few MiB of its own.
            let after = try? state.eval("local t = {} for i = 1, 50000 do t[i] = 'item ' .. i end return #t")
            XCTAssertEqual(after, .int(50_000), "\(name): the state keeps working after the bomb")
        }
    }

    func testOversizedStringRepIsAnOrdinaryError() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 1000, memoryMegabytes: 16))
        // 2^40 bytes is beyond what string.rep accepts at all: an ordinary, catchable error.
        XCTAssertEqual(try state.eval("return select(2, pcall(string.rep, 'x', 2^40))"), .string("resulting string too large"))
        let e = assertLuaError { _ = try state.eval("return ('x'):rep(2^40)") }
        XCTAssertEqual(e?.kind, .runtime)
    }

    /// The cap limits live data: garbage awaiting collection must not make a call fail. A state
    /// holding ~9 MiB under a 16 MiB cap churns through far more than the remaining 7 MiB.
    func testMemoryCapCountsLiveDataNotGarbage() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 5000, memoryMegabytes: 16))
        XCTAssertEqual(try state.eval("live = {} for i = 1, 100000 do live[i] = ('x'):rep(40) .. i end return #live"), .int(100_000))
        XCTAssertGreaterThan(state.memoryUsed, 8 * 1024 * 1024)
        XCTAssertEqual(try state.eval("for i = 1, 300000 do local s = ('y'):rep(100) .. i end return 'strings churned'"), .string("strings churned"))
        XCTAssertEqual(try state.eval("for i = 1, 300000 do local t = {i, i, i, i} end return 'tables churned'"), .string("tables churned"))
        // But live data beyond the cap still fails.
        let e = assertLuaError { _ = try state.eval("more = {} for i = 1, 200000 do more[i] = ('z'):rep(40) .. i end") }
        XCTAssertEqual(e?.kind, .memory)
        XCTAssertEqual(try state.eval("more = nil return #live"), .int(100_000), "the state keeps working")
    }
}
