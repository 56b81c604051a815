import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
import LoomStyles
import XCTest

/// Builders and styles (docs/styles.md, "Builders"): components naming the same style share one
/// read-only `node.style` (a write is a located error naming the key, and no other node sees
/// it); a builder's output, node table and resolved table are kept by component and style, so
/// uncached resolutions, cached ones and device changes give what a fresh workspace gives.
final class StyledBuildTests: XCTestCase {
    static let plugin = """
        return { name = "t", version = "1.0.0", api = 1, register = function(host)
          host.single("card", function(node)
            if node.meta.mutate then node.style.size = 1 end
            return { view = "Card", props = { size = node.style.size, tint = node.style.tint } }
          end, { meta = { mutate = "boolean" }, style = { size = "integer", tint = "color" } })
        end }
        """
    static let screen = """
        {"screen": "s", "root": {"type": "stack", "id": "root", "style": "Row", "children": [
          {"type": "card", "id": "a", "style": "Card"},
          {"type": "card", "id": "m", "style": "Card", "meta": {"mutate": true}},
          {"type": "card", "id": "b", "style": "Card"},
          {"type": "label", "id": "l", "meta": {"text": "x"}, "style": "Card"}
        ]}}
        """

    func workspace() throws -> (Workspace, Screen, ScreenCheck, UserProfile, String) {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("loom-styled-\(UUID().uuidString)")
        addTeardownBlock { try? fm.removeItem(at: dir) }
        let files = [
            "loom.json": "{}",
            "users.json": #"{"gold": {"tier": "gold"}}"#,
            "plugins/t/plugin.lua": Self.plugin,
            "screens/s.json": Self.screen,
            "styles/Card.json": ##"{"size": 3, "tint": "#FF0000"}"##,
            "styles/Card~ipad.json": #"{"size": 9}"#,
            "styles/Row.json": #"{"spacing": 4}"#,
        ]
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = dir.path
        o.standardPlugins = PluginTestKit.packageRoot + "/Plugins"
        let ws = try Workspace(options: o)
        XCTAssertEqual(ws.loadDiagnostics.items.map(\.description), [])
        let loaded = ws.screen(file: dir.path + "/screens/s.json")
        let screen = try XCTUnwrap(loaded.screen, loaded.diagnostics.items.map(\.description).joined(separator: "\n"))
        guard case .success(let user) = ws.users.user(named: "gold", context: [], now: nil) else { throw XCTSkip("no user") }
        return (ws, screen, try XCTUnwrap(loaded.check), user, dir.path)
    }

    func node(_ r: Resolution, _ id: String) throws -> ResolvedNode {
        var found: ResolvedNode?
        r.tree?.walk { n in if n.id == id { found = n } }
        return try XCTUnwrap(found, "no node \(id)")
    }

    func json(_ r: Resolution) throws -> String {
        try XCTUnwrap(r.tree.map { TreeOutput.json($0, explain: true).serialized(pretty: true) })
    }

    func testAWriteToTheSharedStyleIsALocatedErrorAndNoOtherNodeSeesIt() throws {
        let (ws, screen, check, user, dir) = try workspace()
        let r = ws.resolve(screen, check: check, user: user, explain: true)
        let errors = r.diagnostics.errors.map(\.description)
        XCTAssertEqual(errors.count, 1, errors.joined(separator: "\n"))
        let e = try XCTUnwrap(errors.first)
        XCTAssertTrue(e.contains("attempt to modify read-only table 'style' (field 'size')"), e)
        XCTAssertTrue(e.contains(dir + "/plugins/t/plugin.lua:3"), e)
        XCTAssertTrue(try node(r, "m").hidden)
        // The components built before and after it (same style, same table) see the file's values.
        for id in ["a", "b"] {
            let n = try node(r, id)
            XCTAssertFalse(n.hidden, id)
            XCTAssertEqual(n.props.object?["size"], .int(3), id)
            XCTAssertEqual(n.props.object?["tint"], .object(["r": .double(1), "g": .double(0), "b": .double(0), "a": .double(1)]), id)
        }
        // Each error reported again by the next resolution, located alike.
        let again = ws.resolveUncached(screen, check: check, user: user, explain: true)
        XCTAssertEqual(again.diagnostics.errors.map(\.description), errors)
    }

    func testUncachedCachedAndOtherDevicesGiveWhatAFreshWorkspaceGives() throws {
        let (ws, screen, check, user, _) = try workspace()
        let phone = try json(ws.resolve(screen, check: check, user: user))
        XCTAssertEqual(try json(ws.resolveUncached(screen, check: check, user: user)), phone)
        XCTAssertEqual(try json(ws.resolve(screen, check: check, user: user)), phone)

        let ipad = try DeviceContext.parse(device: "ipad", orientation: nil, traits: nil).get()
        ws.deviceContext = ipad
        let pad = ws.resolve(screen, check: check, user: user)
        XCTAssertEqual(try node(pad, "a").props.object?["size"], .int(9))
        XCTAssertEqual(try node(pad, "a").resolvedStyle?.values.object?["size"], .int(9))
        XCTAssertEqual(try json(ws.resolveUncached(screen, check: check, user: user)), try json(pad))

        // Back to the phone: the phone's styles and outputs again, cached or not.
        ws.useDevice(nil)
        XCTAssertEqual(try json(ws.resolveUncached(screen, check: check, user: user)), phone)
        XCTAssertEqual(try json(ws.resolve(screen, check: check, user: user)), phone)
        XCTAssertEqual(try node(ws.resolve(screen, check: check, user: user), "b").props.object?["size"], .int(3))

        // A fresh workspace for the iPad agrees with the one that switched.
        let (fresh, fs, fc, fu, _) = try workspace()
        fresh.deviceContext = ipad
        let freshPad = fresh.resolve(fs, check: fc, user: fu)
        XCTAssertEqual(try node(freshPad, "a").props, try node(pad, "a").props)
        XCTAssertEqual(try node(freshPad, "root").resolvedStyle?.line, "spacing=4")
        XCTAssertEqual(try node(freshPad, "l").resolvedStyle?.origins.map(\.key), ["size", "tint"])
    }
}
