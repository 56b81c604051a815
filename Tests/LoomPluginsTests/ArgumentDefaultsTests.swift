import Foundation
import LoomCore
import LoomPlugins
import LuaRuntime
import XCTest

/// Declared argument defaults reach the rule: a field the reference leaves out arrives with its
/// declared default; a reference without arguments gets the defaults alone.
final class ArgumentDefaultsTests: XCTestCase {
    func testDeclaredDefaultsAreFilledIn() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-defaults-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let plugin = root.appendingPathComponent("plugins/d")
        try FileManager.default.createDirectory(at: plugin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("screens"), withIntermediateDirectories: true)
        try Data("""
            return { name = "d", version = "1", api = 1, register = function(host)
              host.rule("sticky", function(user, args)
                return args ~= nil and args.stickiness == (user.expect or "id") and args.nested.depth == 2
              end, { args = {
                stickiness = { type = "string", default = "id" },
                nested = { type = "object", fields = { depth = { type = "integer", default = 2 } } },
              } })
            end }
            """.utf8).write(to: plugin.appendingPathComponent("plugin.lua"))
        try Data(#"""
            {"screen": "s", "root": {"type": "stack", "meta": {"orientation": "vertical"}, "children": [
              {"type": "label", "id": "no_args", "meta": {"text": "x"}, "rule": "sticky"},
              {"type": "label", "id": "empty_args", "meta": {"text": "x"}, "rule": {"sticky": {}}},
              {"type": "label", "id": "given", "meta": {"text": "x"}, "rule": {"sticky": {"stickiness": "id"}}},
              {"type": "label", "id": "other", "meta": {"text": "x"}, "rule": {"sticky": {"stickiness": "session"}}}
            ]}}
            """#.utf8).write(to: root.appendingPathComponent("screens/s.json"))
        try Data(#"{"name": "d", "plugins": ["plugins"]}"#.utf8).write(to: root.appendingPathComponent("loom.json"))
        try Data(#"{"u": {"tier": "free"}}"#.utf8).write(to: root.appendingPathComponent("users.json"))
        let (ws, screen, check) = try PluginTestKit.openScreen(project: root.path)
        let user = try ws.users.user(named: "u", context: [], now: nil).get()
        let r = ws.resolve(screen, check: check, user: user)
        var shown = Set<String>()
        r.tree?.walk { n in if !n.hidden, let id = n.id { shown.insert(id) } }
        XCTAssertEqual(shown, ["no_args", "empty_args", "given"], "\(r.diagnostics.items.map(\.description))")
    }

    func testWithDefaultsKeepsGivenValuesAndOrder() throws {
        let schema = try ArgumentSchema.parseArguments([
            "percent": ["type": "number", "required": true],
            "stickiness": ["type": "string", "default": "id"],
        ]).get()
        XCTAssertTrue(schema.hasDefaults)
        XCTAssertEqual(schema.withDefaults(["percent": 5]), ["percent": 5, "stickiness": "id"])
        XCTAssertEqual(schema.withDefaults(["stickiness": "x", "percent": 5]), ["stickiness": "x", "percent": 5])
        XCTAssertEqual(schema.defaultsAlone, ["stickiness": "id"])
        XCTAssertEqual(schema.withDefaults(.string("not an object")), .string("not an object"))
    }
}
