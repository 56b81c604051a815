import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
@testable import LoomTesting
import LuaRuntime
import XCTest

/// A wrapper may return `children = { child }` (by identity or id) or `{}`, as docs/plugin-api.md says.
final class WrapperChildrenTests: XCTestCase {
    func resolve(_ dir: String) throws -> (Resolution?, String) {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = dir
        o.standardPlugins = PluginTestKit.packageRoot + "/Plugins"
        let ws = try Workspace(options: o)
        var all = ws.loadDiagnostics
        let loaded = ws.screen(file: dir + "/screens/s.json")
        all.append(contentsOf: loaded.diagnostics)
        var r: Resolution?
        if let screen = loaded.screen, let check = loaded.check, case .success(let profile) = ws.users.user(named: "u", context: [], now: nil) {
            r = ws.resolve(screen, check: check, user: profile)
            all.append(contentsOf: r!.diagnostics)
        }
        return (r, all.items.map(\.description).joined(separator: "\n"))
    }

    func shown(_ r: Resolution?) -> Set<String> {
        var out = Set<String>()
        r?.tree?.walk { n in if !n.hidden, let id = n.id { out.insert(id) } }
        return out
    }

    func project(register: String, screen: String) throws -> String {
        try PluginTestKit.writeProject(for: self, name: "wrapper", register: register, screen: screen, users: #"{"u": {"tier": "gold"}}"#).path
    }

    func resolveWrapper(_ body: String) throws -> (Set<String>, String) {
        let register = """
            host.single("w_label", function(node) return { view = "Label" } end)
            host.wrapper("w_card", function(node, child) \(body) end)
            """
        let screen = #"""
            {"screen": "s", "root": {"type": "w_card", "id": "root", "children": [{"type": "w_label", "id": "inner"}]}}
            """#
        let dir = try project(register: register, screen: screen)
        let (r, text) = try resolve(dir)
        return (shown(r), text)
    }

    func testWrapperReturnsItsChildByIdentity() throws {
        let (shown, text) = try resolveWrapper(#"return { view = "Card", children = { child } }"#)
        XCTAssertEqual(shown, ["root", "inner"], text)
        XCTAssertFalse(text.contains("error"), text)
    }

    func testWrapperReturnsItsChildByID() throws {
        let (shown, text) = try resolveWrapper(#"return { view = "Card", children = { child.id } }"#)
        XCTAssertEqual(shown, ["root", "inner"], text)
        XCTAssertFalse(text.contains("error"), text)
    }

    func testWrapperReturningAnEmptyListShowsNoChild() throws {
        let (shown, text) = try resolveWrapper(#"return { view = "Card", children = {} }"#)
        XCTAssertEqual(shown, ["root"], text)
        XCTAssertFalse(text.contains("error"), text)
    }

    func testWrapperReturningAnotherTableIsAnError() throws {
        let (shown, text) = try resolveWrapper(#"return { view = "Card", children = { { id = "inner" } } }"#)
        XCTAssertFalse(shown.contains("root"), text)
        XCTAssertTrue(text.contains("'children'[1] is not one of the children it was given, nor a node it created with ui.*"), text)
        let (_, text2) = try resolveWrapper(#"return { view = "Card", children = { "other" } }"#)
        XCTAssertTrue(text2.contains("'children'[1] is not one of the children it was given"), text2)
    }

    func testSingleReturningChildrenSaysItHasNone() throws {
        let register = #"host.single("w_label", function(node) return { view = "Label", children = {} } end)"#
        let dir = try project(register: register, screen: #"{"screen": "s", "root": {"type": "w_label", "id": "c"}}"#)
        let (_, text) = try resolve(dir)
        XCTAssertTrue(text.contains("this builder was given none and created none, so leave it out"), text)
    }
}
