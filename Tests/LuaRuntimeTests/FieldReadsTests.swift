import LuaRuntime
import XCTest

/// `LuaState.fieldReads` (loom_rule_field_reads): a function whose first parameter is used only
/// to read fields named by string constants is plain, with the names it reads; any other use of
/// that parameter (kept, copied, passed, compared, returned, written, captured, iterated, its
/// length, a computed or integer key, a method call) makes it not plain. Each case is compiled by
/// this machine's Lua and read back from its own bytecode.
final class FieldReadsTests: XCTestCase {
    private func reads(_ source: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String]? {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 10_000, memoryMegabytes: 64))
        try state.run("F = " + source)
        _ = state.getGlobal("F")
        let ref = state.rawRef()
        return state.fieldReads(ofFunction: ref)
    }

    func testFunctionsThatOnlyReadNamedFieldsArePlain() throws {
        XCTAssertEqual(try reads("function(user) return user.tier == 'gold' end"), ["tier"])
        XCTAssertEqual(try reads("function(u) return (u.churn_score or 0) >= 0.8 and u.beta == true and u.tier ~= nil end"),
                       ["churn_score", "beta", "tier"])
        // Each name once, in the order first read.
        XCTAssertEqual(try reads("function(u) return u.b == 1 or u.a == 2 or u.b == 3 end"), ["b", "a"])
        // The value read may go anywhere: only the view itself must not.
        XCTAssertEqual(try reads("function(u) KEPT = u.id local t = { u.x } return tostring(u.y) ~= '' end"), ["id", "x", "y"])
        XCTAssertEqual(try reads("function(u) return u.device.idiom == 'phone' end"), ["device"])
        XCTAssertEqual(try reads("function(u) return u['tier'] == 'gold' end"), ["tier"])
        // The other parameters are the rule's own (arguments, node).
        XCTAssertEqual(try reads("function(u, args, node) args = args or {} return args.k == u.k and node.id ~= nil end"), ["k"])
        XCTAssertEqual(try reads("function(u, ...) return select('#', ...) == 0 and u.a end"), ["a"])
        // Reading nothing at all.
        XCTAssertEqual(try reads("function(u) return true end"), [])
        // A nested function not capturing the user.
        XCTAssertEqual(try reads("function(u) local f = function(x) return x + 1 end return f(u.n or 0) > 2 end"), ["n"])
        // Non-ASCII and odd names.
        XCTAssertEqual(try reads("function(u) return u['é'] == 1 or u['a b'] == 2 or u[''] == 3 end"), ["é", "a b", ""])
    }

    func testAnyOtherUseOfTheUserIsNotPlain() throws {
        let notPlain = [
            "function(u) KEEP = u return true end",  // kept in a global
            "function(u) local v = u return v.x end",  // copied
            "function(u) return u end",  // returned
            "function(u) return u.x, u end",
            "function(u) return tostring(u) end",  // passed
            "function(u) return type(u) == 'table' end",
            "function(u) return rawequal(u, u) end",
            "function(u) return u == nil end",  // compared
            "function(u) return #u > 0 end",  // its length
            "function(u) for k in pairs(u) do end return true end",  // iterated
            "function(u) u.x = 1 return true end",  // written
            "function(u) u = {} return u.x end",  // overwritten
            "function(u) return u[1] end",  // an integer key
            "function(u) local k = 'x' return u[k] end",  // a computed key
            "function(u) return u['x' .. 'y'] end",
            "function(u) return u:check() end",  // a method call
            "function(u) return function() return u.x end end",  // captured
            "function(u) local function f() return function() return u end end return f() end",
            "function(u) return { u } end",  // stored
            "function(u) local t = {} t.v = u return true end",
            "function(u) local t = {} t[u] = 1 return true end",
            "function(u) return u and u.x end",  // tested and copied
            "function(u) if u then return true end return false end",
            "function(u) return not u end",
            "function(u) return u .. '' end",
            "function(u) return -u end",
            "function(u) return u + 1 end",
            "function(...) local u = ... return u.x end",  // no parameter
            "function() return true end",
            "function(u) return u." + String(repeating: "long", count: 12) + " end",  // a long name: no GETFIELD
        ]
        for source in notPlain {
            XCTAssertNil(try reads(source), source)
        }
        // An upvalue written with the user.
        XCTAssertNil(try reads("(function() local kept return function(u) kept = u return true end end)()"))
        // A C function.
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 10_000, memoryMegabytes: 64))
        _ = state.getGlobal("print")
        XCTAssertNil(state.fieldReads(ofFunction: state.rawRef()))
    }

    /// A function with more constants than GETFIELD can name (256) reads its later names through
    /// a register: not plain, and no crash reading the dump of a large function.
    func testLargeFunctionsAreReadWhole() throws {
        let many = (0..<300).map { "u.k\($0) == \($0)" }.joined(separator: " or ")
        XCTAssertNil(try reads("function(u) return \(many) end"))
        let few = (0..<200).map { "u.k\($0) == 1" }.joined(separator: " or ")
        XCTAssertEqual(try reads("function(u) return \(few) end")?.count, 200)
    }
}

/// `LuaState.newPlainView`: a list naming a field twice is refused (its two slots would set one
/// field), as is one past 4,096 names; others are made.
final class PlainViewListTests: XCTestCase {
    func testListsAreCheckedBeforeAViewIsMade() throws {
        let state = try LuaState(limits: LuaLimits(timeBudgetMilliseconds: 10_000, memoryMegabytes: 64))
        XCTAssertNotNil(state.newPlainView(keys: ["tier", "age", ""]))
        XCTAssertNotNil(state.newPlainView(keys: []))
        XCTAssertNil(state.newPlainView(keys: ["tier", "age", "tier"]))
        XCTAssertNil(state.newPlainView(keys: (0...4096).map { "k\($0)" }))
        XCTAssertNotNil(state.newPlainView(keys: (0..<4096).map { "k\($0)" }))
    }
}
