import Foundation
@testable import LuaRuntime
import XCTest

/// `LuaState.pushFrozenTree`: a value made in one call into C as read-only views, and a member
/// list that does not describe one value (a container not ended, counts that disagree, bytes out
/// of the buffer, a scalar at the top) pushes nothing and says so.
final class FrozenTreeTests: XCTestCase {
    static func sample() -> FrozenTree {
        var t = FrozenTree()
        t.beginObject(nil, count: 5)
        t.add("a", 1)
        t.add("b", "x\u{0}y")
        t.addNull("n")
        t.beginArray("c", count: 3)
        t.add(nil, true)
        t.addNull(nil)
        t.add(nil, -0.0)
        t.end()
        t.beginObject("d", count: 1)
        t.add("e", 2.5)
        t.end()
        t.end()
        return t
    }

    func testAValueIsPushedAsReadOnlyViews() throws {
        let state = try LuaState()
        let top = state.top
        XCTAssertTrue(state.pushFrozenTree(Self.sample(), name: "node"))
        XCTAssertEqual(state.top, top + 1)
        state.setGlobal("v")
        try state.run("""
            assert(v.a == 1 and math.type(v.a) == "integer")
            assert(v.b == "x\\0y" and #v.b == 3)
            assert(v.n == nil)
            assert(v.c[1] == true and v.c[2] == nil and 1 / v.c[3] < 0)
            assert(v.d.e == 2.5)
            assert(getmetatable(v) == false and getmetatable(v.c) == false and getmetatable(v.d) == false)
            local ok, err = pcall(function() v.a = 2 end)
            assert(not ok and err:find("attempt to modify read-only table 'node' (field 'a')", 1, true), err)
            ok, err = pcall(function() v.d.e = 3 end)
            assert(not ok and err:find("read-only table 'node'", 1, true), err)
            local keys = {}
            for k in pairs(v) do keys[#keys + 1] = k end
            table.sort(keys)
            assert(table.concat(keys, ",") == "a,b,c,d", table.concat(keys, ","))
            """)
    }

    func testAMemberListThatIsNotOneValuePushesNothing() throws {
        let state = try LuaState()
        let top = state.top
        func refused(_ t: FrozenTree, _ why: String) {
            XCTAssertFalse(state.pushFrozenTree(t, name: "node"), why)
            XCTAssertEqual(state.top, top, why)
        }
        var open = FrozenTree()
        open.beginObject(nil, count: 1)
        open.add("a", 1)
        refused(open, "an object begun and not ended")

        var scalar = FrozenTree()
        scalar.add(nil, 1)
        refused(scalar, "a scalar at the top")
        refused(FrozenTree(), "nothing")

        var t = Self.sample()
        t.members[0].descendants += 1
        refused(t, "the top's descendants too many")
        t = Self.sample()
        t.members[4].i = 4
        refused(t, "an array claiming a child more than it has")
        t = Self.sample()
        t.members[4].i = 2
        refused(t, "an array claiming a child fewer than it has")
        t = Self.sample()
        t.members[1].key_offset = t.bytes.count
        t.members[1].key_length = 1
        refused(t, "a key past the buffer")
        t = Self.sample()
        t.members[2].value_length = t.bytes.count
        refused(t, "a string past the buffer")
        t = Self.sample()
        t.members[1].kind = 99
        refused(t, "an unknown kind")
        XCTAssertTrue(state.pushFrozenTree(Self.sample(), name: "node"), "the sample itself is one value")
    }
}
