import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
@testable import LoomTesting
import XCTest

/// A wrapper, cluster or collection builder that declares only its node (`function(node)`)
/// cannot see its children or items, so its output is kept per component like a single's and
/// it is not called again when only its children change; one that takes them (`function(node,
/// children)`, or `...`) is called for every new set of children. The builders below count
/// their calls in their props (not deterministic on purpose: it shows when they are called).
final class BlindBuilderTests: XCTestCase {
    private func project(builder: String) throws -> (Workspace, Screen, ScreenCheck) {
        let screen = #"""
            {"screen": "s", "root": {"type": "t_row", "id": "root", "meta": {"title": "T"}, "children": [
              {"type": "t_label", "id": "a", "rule": "gold"},
              {"type": "t_label", "id": "b"}]}}
            """#
        let dir = try PluginTestKit.writeProject(
            for: self, name: "blind", prelude: "local calls = 0\n",
            register: """
                host.single("t_label", function(node) return { view = "Label" } end)
                host.cluster("t_row", \(builder))
                host.rule("gold", function(user) return user.tier == "gold" end)
                """,
            screen: screen, users: #"{"g": {"tier": "gold"}, "f": {"tier": "free"}}"#)
        return try PluginTestKit.openScreen(project: dir.path)
    }

    /// Resolves for `g`, `f`, then `g` again: each root's `calls` prop and visible children.
    private func roots(_ p: (Workspace, Screen, ScreenCheck)) throws -> [(calls: Int?, children: [String])] {
        let (ws, screen, check) = p
        return try ["g", "f", "g"].map { name in
            let user = try ws.users.user(named: name, context: [], now: nil).get()
            let r = ws.resolve(screen, check: check, user: user)
            XCTAssertFalse(r.diagnostics.hasErrors, "\(r.diagnostics.items)")
            let root = try XCTUnwrap(r.tree)
            return (root.props["calls"]?.int, root.children.compactMap(\.id))
        }
    }

    func testABuilderOfTheNodeAloneIsCalledOnceWhateverItsChildren() throws {
        let r = try roots(project(builder: #"function(node) calls = calls + 1; return { view = "Row", props = { calls = calls, title = node.meta.title } } end"#))
        XCTAssertEqual(r.map(\.calls), [1, 1, 1])
        XCTAssertEqual(r.map(\.children), [["a", "b"], ["b"], ["a", "b"]])
    }

    func testABuilderTakingItsChildrenIsCalledForEachNewSetOfThem() throws {
        let r = try roots(project(builder: #"function(node, children) calls = calls + 1; return { view = "Row", props = { calls = calls, n = #children } } end"#))
        // The third resolution reuses the first's tree (same rule outcomes): no third call.
        XCTAssertEqual(r.map(\.calls), [1, 2, 1])
        XCTAssertEqual(r.map(\.children), [["a", "b"], ["b"], ["a", "b"]])
    }

    func testAVarargBuilderCanSeeItsChildrenSoIsCalledAgain() throws {
        let r = try roots(project(builder: #"function(...) calls = calls + 1; return { view = "Row", props = { calls = calls } } end"#))
        XCTAssertEqual(r.map(\.calls), [1, 2, 1])
    }

    func testABlindBuilderReturningChildrenIsNotKept() throws {
        // It drops the children it cannot see: an output with `children` is not kept (it is
        // made for each new set), and the result is the same every time.
        let r = try roots(project(builder: #"function(node) calls = calls + 1; return { view = "Row", props = { calls = calls }, children = {} } end"#))
        XCTAssertEqual(r.map(\.calls), [1, 2, 1])
        XCTAssertEqual(r.map(\.children), [[], [], []])
    }
}
