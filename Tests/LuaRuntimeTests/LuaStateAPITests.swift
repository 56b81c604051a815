import Foundation
import LuaRuntime
import XCTest

/// The Swift API other modules use instead of the C API: types, raw references, stack
/// manipulation, identities, metatables, caller locations and the rule-call hot path.
final class LuaStateAPITests: XCTestCase {
    func testTypes() throws {
        let state = try LuaState()
        try state.run("values = { true, 1, 's', {}, print, coroutine.create(function() end) }")
        state.getGlobal("values")
        let expected: [LuaType] = [.boolean, .number, .string, .table, .function, .thread]
        for (i, t) in expected.enumerated() {
            XCTAssertEqual(state.getIndex(-1, i + 1), t)
            XCTAssertEqual(state.type(-1), t)
            XCTAssertEqual(state.typeName(-1), t.name)
            state.pop()
        }
        XCTAssertEqual(state.getIndex(-1, 99), .nil)
        XCTAssertTrue(state.type(-1).isNoneOrNil)
        state.pop()
        XCTAssertEqual(state.type(state.top + 1), .none)
        XCTAssertEqual(state.typeName(state.top + 1), "no value")
        XCTAssertEqual(state.getGlobal("nope"), .nil)
    }

    func testRawReferences() throws {
        let state = try LuaState()
        let top = state.top
        state.push("kept")
        let r = state.rawRef()
        XCTAssertEqual(state.top, top, "rawRef pops the value")
        state.push(rawRef: r)
        XCTAssertEqual(state.toString(-1), "kept")
        state.pop()
        state.release(rawRef: r)
        state.push(rawRef: r)
        XCTAssertNotEqual(state.toString(-1), "kept", "a released reference no longer holds the value")
        state.top = top
    }

    func testRotateInsertRemove() throws {
        let state = try LuaState()
        let top = state.top
        func strings() -> [String] { (top + 1...state.top).map { state.toString($0) ?? "?" } }
        for s in ["a", "b", "c"] { state.push(s) }
        state.rotate(-3, 1)
        XCTAssertEqual(strings(), ["c", "a", "b"])
        state.insert(-3)
        XCTAssertEqual(strings(), ["b", "c", "a"])
        state.remove(-2)
        XCTAssertEqual(strings(), ["b", "a"])
        state.top = top
    }

    func testIdentityMetatablesAndRawAccess() throws {
        let state = try LuaState()
        try state.run("t = {}; u = t; v = {}")
        state.getGlobal("t")
        state.getGlobal("u")
        state.getGlobal("v")
        XCTAssertNotNil(state.toPointer(-3))
        XCTAssertEqual(state.toPointer(-3), state.toPointer(-2))
        XCTAssertNotEqual(state.toPointer(-3), state.toPointer(-1))
        state.push(1)
        XCTAssertNil(state.toPointer(-1), "numbers have no identity")
        state.pop()
        XCTAssertFalse(state.pushMetatable(-1))
        state.newTable()
        state.setMetatable(-2)
        XCTAssertTrue(state.pushMetatable(-1))
        XCTAssertEqual(state.type(-1), .table)
        state.pop(4)
        XCTAssertTrue(state.checkStack(100))
        state.newTable()
        state.push("k")
        state.push(42)
        state.rawSet(-3)
        state.push("k")
        XCTAssertEqual(state.rawGet(-2), .number)
        XCTAssertEqual(state.toInt(-1), 42)
        state.pop()
        state.pushNil()
        var keys: [String] = []
        while state.next(-2) {
            keys.append(state.toString(-2) ?? "?")
            state.pop()
        }
        XCTAssertEqual(keys, ["k"])
        XCTAssertEqual(state.stringBytes(state.top).map(Array.init), nil, "a table has no string bytes")
        state.push("añ")
        XCTAssertEqual(state.stringBytes(-1).map(Array.init), Array("añ".utf8))
        state.pop(2)
    }

    func testCallerLocation() throws {
        let state = try LuaState()
        var seen: (file: String?, line: Int)?
        var lineOnly: (file: String?, line: Int)?
        state.pushFunction { call in
            seen = call.state.callerLocation(level: 1)
            lineOnly = call.state.callerLocation(level: 1, withFile: false)
            XCTAssertNil(call.state.callerLocation(level: 50))
            return .success(0)
        }
        state.setGlobal("where")
        try state.run("local x = 1\nwhere()", chunkName: "plugins/p/plugin.lua")
        XCTAssertEqual(seen?.file, "plugins/p/plugin.lua")
        XCTAssertEqual(seen?.line, 2)
        XCTAssertNil(lineOnly?.file)
        XCTAssertEqual(lineOnly?.line, 2)
    }

    func testCallRule() throws {
        let state = try LuaState()
        let top = state.top
        func ref(_ source: String) throws -> Int32 {
            try state.load(source: "return " + source, chunkName: "=t")
            try state.pcall(nargs: 0, nresults: 1)
            return state.rawRef()
        }
        let user = try ref("{ tier = 'gold' }")
        let node = try ref("{ type = 'label' }")
        let args = try ref("{ tier = 'gold' }")
        let isGold = try ref("function(user, args, node) return user.tier == (args and args.tier or 'gold') and node.type == 'label' end")
        XCTAssertEqual(try state.callRule(owner: 1, function: isGold, user: user, args: -1, node: node), true)
        XCTAssertEqual(try state.callRule(owner: 2, function: isGold, user: user, args: args, node: node), true)
        XCTAssertEqual(state.top, top)
        XCTAssertEqual(state.currentOwner, 1, "the owner is restored")
        let notBoolean = try ref("function() return 'yes' end")
        XCTAssertNil(try state.callRule(owner: 1, function: notBoolean, user: user, args: -1, node: node))
        XCTAssertEqual(state.toString(-1), "yes", "a value that is not a boolean is left on the stack")
        state.pop()
        let raising = try ref("function() error('boom') end")
        XCTAssertThrowsError(try state.callRule(owner: 1, function: raising, user: user, args: -1, node: node)) { e in
            XCTAssertTrue((e as? LuaError)?.message.contains("boom") ?? false, "\(e)")
        }
        XCTAssertEqual(state.top, top, "the error is popped")
        XCTAssertEqual(state.benchmarkBarePCall(function: isGold, user: user, node: node, count: 10), 10)
        XCTAssertEqual(state.benchmarkBarePCall(function: raising, user: user, node: node, count: 3), 0)
        XCTAssertEqual(state.top, top)
    }
}
