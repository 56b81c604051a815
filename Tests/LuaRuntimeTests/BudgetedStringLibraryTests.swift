import CLua
import Foundation
import LuaRuntime
import XCTest

/// The budgeted find/match/gmatch/gsub of Sources/CLua/loom_strlib.c against Lua's own: same
/// results and the same error messages (ported from the standalone C test).
final class BudgetedStringLibraryTests: XCTestCase {
    /// A plain state (full standard library, for math.random) whose `string` holds the budgeted
    /// functions and whose global `stock` holds Lua's originals.
    func makeState() throws -> LuaState {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 5000, memoryMegabytes: 64))
        try state.run("""
            stock = {}
            for _, n in ipairs({"find", "match", "gmatch", "gsub"}) do stock[n] = string[n] end
            """)
        state.getGlobal("string")
        loom_open_budgeted_strlib(state.L)
        state.pop()
        return state
    }

    func testTheBudgetedFunctionsReplaceTheStockOnes() throws {
        let state = try makeState()
        for name in ["find", "match", "gmatch", "gsub"] {
            XCTAssertEqual(try state.eval("return string.\(name) ~= stock.\(name)"), .bool(true), name)
        }
    }

    func testBatteryPassesWithBothImplementations() throws {
        let state = try makeState()
        XCTAssertEqual(try state.eval(PatternBattery.pm, chunkName: "pm-budgeted.lua"), .string("pm ok"))
        try state.run("for n, f in pairs(stock) do string[n] = f end")
        XCTAssertEqual(try state.eval(PatternBattery.pm, chunkName: "pm-stock.lua"), .string("pm ok"))
    }

    func testSameResultsAndErrorsAsStockLua() throws {
        let state = try makeState()
        var compared = 0
        for round in 0...30 {
            let saved = state.top
            try state.load(source: PatternBattery.differential, chunkName: "diff.lua")
            state.getGlobal("stock")
            state.push(round)
            do {
                try state.pcall(nargs: 2, nresults: 1)
                compared += state.toInt(-1) ?? 0
            } catch {
                XCTFail("round \(round): \(error.message)")
            }
            state.top = saved
        }
        XCTAssertGreaterThan(compared, 15_000, "fixed cases and 30 fuzz rounds were compared")
    }

    func testGmatchIteratorKeepsItsDepthLimitAfterAnError() throws {
        let state = try makeState()
        XCTAssertEqual(try state.eval("""
            local it = string.gmatch(('a'):rep(300), ('.?'):rep(300))
            local ok1, e1 = pcall(it); local ok2, e2 = pcall(it)
            assert(not ok1 and e1:find('too complex') and not ok2 and e2:find('too complex'), tostring(e2))
            return 'depth limit kept'
            """), .string("depth limit kept"))
    }
}
