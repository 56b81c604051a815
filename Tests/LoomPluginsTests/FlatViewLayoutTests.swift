import LoomCore
import LuaRuntime
import XCTest

/// `host eval` hands a flat view's members to C as they are when `FlatUserView.Member` is laid
/// out as the C struct `loom_tree_member` (`PluginEngine.setFlatView`), and converts them when
/// not. On the platforms Loom builds on the two agree, so the eval and flat-view tests run the
/// path without the conversion: this fails when a change to either struct parts them.
final class FlatViewLayoutTests: XCTestCase {
    func testFlatViewMembersAreLaidOutAsTheCStruct() {
        XCTAssertEqual(FlatUserView.layout, LuaState.treeMemberLayout)
        XCTAssertFalse(LuaState.treeMemberLayout.contains(-1))
        // The kinds' raw values are the C kinds' (LOOM_TREE_NULL … LOOM_TREE_OBJECT: 0 … 7).
        XCTAssertEqual([FlatUserView.Member.Kind.null, .false, .true, .int, .double, .string, .array, .object].map(\.rawValue), Array(0...7))
    }
}
