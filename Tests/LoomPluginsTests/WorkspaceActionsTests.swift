import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import XCTest

/// `Workspace.visibleActions`: the actions a user can take on a screen. A workspace keeps the
/// actions of the last resolved trees it read; users who see different trees get their own.
final class WorkspaceActionsTests: XCTestCase {
    func testActionsFollowEachUsersTreeWhenUsersAlternate() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-actions-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("screens"), withIntermediateDirectories: true)
        try Data(#"{"name": "actions", "plugins": []}"#.utf8).write(to: root.appendingPathComponent("loom.json"))
        try Data(#"{"gold": {"tier": "gold"}, "free": {"tier": "free"}}"#.utf8).write(to: root.appendingPathComponent("users.json"))
        try Data("""
            {"screen": "home", "root": {"type": "stack", "id": "root", "children": [
              {"type": "button", "id": "buy", "meta": {"title": "Buy"}, "action": "buy:4k", "rule": {"equals": {"tier": "gold"}}},
              {"type": "button", "id": "join", "meta": {"title": "Join"}, "action": "join", "rule": {"NOT": {"equals": {"tier": "gold"}}}},
              {"type": "button", "id": "help", "meta": {"title": "Help"}, "action": "help"}
            ]}}
            """.utf8).write(to: root.appendingPathComponent("screens/home.json"))
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = root.path
        o.standardPlugins = ResolveTests.repo + "/Plugins"
        let ws = try Workspace(options: o)
        XCTAssertFalse(ws.loadDiagnostics.hasErrors, "\(ws.loadDiagnostics.items.map(\.description))")
        let gold = try ws.users.user(named: "gold", context: [], now: nil).get()
        let free = try ws.users.user(named: "free", context: [], now: nil).get()
        for _ in 0..<3 {
            for (user, expected) in [(gold, ["buy:4k", "help"]), (free, ["join", "help"])] {
                let got = try XCTUnwrap(ws.visibleActions(screenID: "home", user: user))
                XCTAssertEqual(got.actions.map(\.action), expected, "\(user.name ?? "?")")
                XCTAssertEqual(got.actions.map(\.gated), [true, false])
                XCTAssertEqual(got.actions.map(\.componentPath), expected[0] == "buy:4k"
                    ? ["root/children[0]", "root/children[2]"] : ["root/children[1]", "root/children[2]"])
                XCTAssertEqual(got.file, root.path + "/screens/home.json")
            }
        }
    }
}
