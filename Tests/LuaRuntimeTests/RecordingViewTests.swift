import Foundation
@testable import LuaRuntime
import XCTest

/// Recording views (`LuaState.recordingView(of:)` over a read-only view, `recordingView(ofTable:name:)`
/// over a view's table made without the view): views of one name share one metatable, yet each
/// reads its own table and logs its own reads; a write is refused as through the view; iterating,
/// `#` and `tostring` log the whole table.
final class RecordingViewTests: XCTestCase {
    private func user(_ tier: String) -> FrozenTree {
        var t = FrozenTree()
        t.beginObject(nil, count: 2)
        t.add("tier", tier)
        t.add("age", 30)
        t.end()
        return t
    }

    func testEachViewReadsAndLogsItsOwnTable() throws {
        let state = try LuaState()
        let top = state.top
        XCTAssertTrue(state.pushFrozenTree(user("gold"), name: "node"))
        let a = state.rawRef()
        XCTAssertTrue(state.pushFrozenTree(user("free"), name: "node"))
        let b = state.rawRef()
        let ra = try XCTUnwrap(state.recordingView(of: a)), rb = try XCTUnwrap(state.recordingView(of: b))
        XCTAssertEqual(state.top, top)
        state.push(rawRef: ra.view)
        state.setGlobal("va")
        state.push(rawRef: rb.view)
        state.setGlobal("vb")
        try state.run("""
            assert(va.tier == "gold" and vb.tier == "free")
            assert(va.age == 30 and va.missing == nil)
            assert(getmetatable(va) == false)
            local ok, err = pcall(function() va.tier = "free" end)
            assert(not ok and err:find("attempt to modify read-only table 'node' (field 'tier')", 1, true), err)
            assert(va.tier == "gold")
            """)
        XCTAssertEqual(state.reads(ra), ["tier", "age", "missing"])
        XCTAssertEqual(state.reads(rb), ["tier"])
        try state.run("local s = tostring(vb); assert(s:find('^table: '))")
        XCTAssertNil(state.reads(rb))
        state.release(ra)
        state.release(rb)
        // A value that is not a view gets no recording view.
        state.pushNil()
        let notView = state.rawRef()
        XCTAssertNil(state.recordingView(of: notView))
        XCTAssertEqual(state.top, top)
    }

    func testAViewsTableMadeWithoutTheViewIsSeenThroughARecordingViewOrAPlainOne() throws {
        let state = try LuaState()
        let top = state.top
        XCTAssertTrue(state.pushFrozenTreeTable(user("gold"), name: "node"))
        XCTAssertEqual(state.type(-1), .table)
        let t = state.rawRef()
        let r = try XCTUnwrap(state.recordingView(ofTable: t, name: "node"))
        state.push(rawRef: r.view)
        state.setGlobal("rv")
        XCTAssertTrue(state.pushView(ofTable: t, name: "node"))
        state.setGlobal("v")
        try state.run("""
            assert(rv.tier == "gold" and v.tier == "gold" and v.age == 30)
            for _, x in ipairs({ rv, v }) do
              local ok, err = pcall(function() x.age = 1 end)
              assert(not ok and err:find("attempt to modify read-only table 'node' (field 'age')", 1, true), err)
            end
            assert(v.age == 30)
            """)
        // The plain view's reads are not the recording view's.
        XCTAssertEqual(state.reads(r), ["tier"])
        try state.run("local n = 0; for _ in pairs(rv) do n = n + 1 end; assert(n == 2)")
        XCTAssertNil(state.reads(r))
        state.release(r)
        // Not a table: nothing made.
        state.pushNil()
        let notTable = state.rawRef()
        XCTAssertNil(state.recordingView(ofTable: notTable, name: "node"))
        XCTAssertFalse(state.pushView(ofTable: notTable, name: "node"))
        XCTAssertEqual(state.top, top)
    }
}
