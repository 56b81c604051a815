import Foundation
import LuaRuntime
import XCTest

/// Line coverage: a line hook (joined by the time budget's count hook when a call is stopped), only on states that asked
/// for it; executable lines come from the chunk's line information (nested functions included).
final class LineCoverageTests: XCTestCase {
    /// Lines 1–13; `lua5.4`'s debug.getinfo(f, "L") gives main 1,2,7,11,12,13; t.a 3,4,6,7;
    /// never 9,10,11.
    static let chunk = """
        local t = {}
        function t.a(x)
          if x then
            return 1
          end
          return 2
        end
        local function never()
          local y = 1
          return y
        end
        t.a(true)
        return t, never

        """

    func testExecutableLinesAndHitsOfNestedFunctions() throws {
        let state = try LuaState.recordingLineCoverage { () throws(LuaError) in try LuaState() }
        XCTAssertTrue(state.recordsLineCoverage)
        _ = try state.eval(Self.chunk, chunkName: "chunk.lua")
        let lines = try XCTUnwrap(state.lineCoverage?.files["chunk.lua"])
        // Executable: the union of the three functions' active lines. Line 6 (`return 2`) and
        // the body of `never` (9, 10) never ran; line 11 ran in the main chunk (the closure).
        XCTAssertEqual(lines, [1: 1, 2: 1, 3: 1, 4: 1, 6: 0, 7: 1, 9: 0, 10: 0, 11: 1, 12: 1, 13: 1])
    }

    func testHitsAddUpAcrossCallsAndCoroutines() throws {
        let state = try LuaState.recordingLineCoverage { () throws(LuaError) in try LuaState() }
        let code = """
            local function f(n)
              return n + 1
            end
            local total = 0
            for i = 1, 5 do
              total = f(total)
            end
            local co = coroutine.wrap(function()
              f(1)
            end)
            co()
            return total

            """
        XCTAssertEqual(try state.eval(code, chunkName: "loop.lua"), .int(5))
        let lines = try XCTUnwrap(state.lineCoverage?.files["loop.lua"])
        XCTAssertEqual(lines[2], 6, "f's body: 5 calls from the loop, 1 from the coroutine")
        XCTAssertEqual(lines[6], 5)
        XCTAssertEqual(lines[9], 1, "the coroutine's line")
        XCTAssertEqual(lines[12], 1)
    }

    func testOffUnlessAsked() throws {
        let state = try LuaState()
        XCTAssertFalse(state.recordsLineCoverage)
        XCTAssertNil(state.lineCoverage)
        _ = try state.eval("return 1")
        XCTAssertNil(state.lineCoverage)
        // Asking is per thread and scoped: a state made after the scope does not record.
        _ = try LuaState.recordingLineCoverage { () throws(LuaError) in try LuaState() }
        XCTAssertFalse(try LuaState().recordsLineCoverage)
    }

    func testStartingOnAnExistingState() throws {
        let state = try LuaState()
        XCTAssertTrue(state.startLineCoverage())
        _ = try state.eval("local a = 1\nreturn a\n", chunkName: "late.lua")
        XCTAssertEqual(state.lineCoverage?.files["late.lua"], [1: 1, 2: 1])
    }

    /// The budget's count hook still ends a runaway loop, with the same message, when lines are
    /// counted too (also after the limit re-armed the hook at every instruction).
    func testTimeBudgetStillHolds() throws {
        let sb = try LuaState.recordingLineCoverage { () throws(LuaError) in try Sandbox(limits: LuaLimits(timeBudgetMilliseconds: 100)) }
        XCTAssertTrue(sb.state.recordsLineCoverage)
        for code in ["while true do end", "local co = coroutine.wrap(function() while true do end end) co()",
                     "pcall(function() while true do end end) while true do end"] {
            let start = Date()
            let e = assertLuaError(code) { _ = try sb.eval(code, chunkName: "loop.lua") }
            XCTAssertEqual(e?.kind, .time, code)
            XCTAssertEqual(e?.message, "time limit exceeded (100 ms)", code)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, code)
        }
        // Lines are still counted after a limit was met.
        XCTAssertEqual(try sb.eval("local x = 2\nreturn x\n", chunkName: "after.lua"), .int(2))
        XCTAssertEqual(sb.state.lineCoverage?.files["after.lua"], [1: 1, 2: 1])
    }

    func testMerge() {
        var a = LuaLineCoverage(files: ["p.lua": [1: 1, 2: 0]])
        a.merge(LuaLineCoverage(files: ["p.lua": [2: 3, 4: 0], "q.lua": [1: 0]]))
        XCTAssertEqual(a.files, ["p.lua": [1: 1, 2: 3, 4: 0], "q.lua": [1: 0]])
        XCTAssertEqual(a.filter { $0 == "q.lua" }.files, ["q.lua": [1: 0]])
    }
}
