import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LoomStyles
import LoomTesting
import OrderedCollections
import XCTest

/// `PluginEngine.userViewReuse` (what `host test` turns on): each plugin's frozen view of a user
/// is kept across resolutions of the same user, screen parameters and device, and only those.
/// Rules still run on every resolution (a rule that logs logs each time), and every resolution
/// shows what a workspace without reuse shows.
final class UserViewReuseTests: XCTestCase {
    static let plugin = """
        return { name = "v", version = "1", api = 1, register = function(host)
          host.rule("is_gold", function(user) print("is_gold " .. tostring(user.tier)); return user.tier == "gold" end)
          host.rule("logs", function(user) host.log("logs " .. tostring(user.profile)); return true end)
          -- "é" precomposed is 2 bytes, decomposed ("e" + U+0301) 3: Swift compares them equal.
          host.rule("precomposed", function(user) return user.city ~= nil and #user.city == 2 end)
          host.rule("param_is_7", function(user) return user.params ~= nil and user.params.id == "7" end)
          host.rule("on_ipad", function(user) return user["device.idiom"] == "pad" end)
          host.rule("negative_zero", function(user) return type(user.score) == "number" and 1 / user.score < 0 end)
        end }
        """
    static let rules = ["is_gold", "logs", "precomposed", "param_is_7", "on_ipad", "negative_zero"]

    func project() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-viewreuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("plugins/v"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("screens"), withIntermediateDirectories: true)
        try Data(Self.plugin.utf8).write(to: root.appendingPathComponent("plugins/v/plugin.lua"))
        try Data(IsolationTests.screen(Self.rules.map { ($0, $0) }).utf8).write(to: root.appendingPathComponent("screens/s.json"))
        try Data(#"{"name": "reuse", "plugins": ["plugins"]}"#.utf8).write(to: root.appendingPathComponent("loom.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        return root.path
    }

    func workspace(_ dir: String, reuse: Int) throws -> (Workspace, Screen, ScreenCheck) {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = dir
        o.standardPlugins = ResolveTests.repo + "/Plugins"
        let ws = try Workspace(options: o)
        XCTAssertFalse(ws.loadDiagnostics.hasErrors, "\(ws.loadDiagnostics.items.map(\.description))")
        ws.engine.userViewReuse = reuse
        let loaded = ws.screen(file: dir + "/screens/s.json")
        return (ws, try XCTUnwrap(loaded.screen), try XCTUnwrap(loaded.check))
    }

    /// One resolution: the ids shown and the lines logged while resolving.
    func shown(_ ws: Workspace, _ s: Screen, _ c: ScreenCheck, _ user: UserProfile, params: [String: String], device: DeviceContext?)
        -> (shown: [String], logged: [String])
    {
        let before = ws.engine.log.count
        ws.useDevice(device)
        let r = ws.resolve(s, check: c, user: user, params: params)
        var ids: [String] = []
        r.tree?.walk { n in if !n.hidden, let id = n.id { ids.append(id) } }
        XCTAssertTrue(r.diagnostics.items.isEmpty, "\(r.diagnostics.items)")
        return (ids, ws.engine.log.dropFirst(before).map(\.1))
    }

    func testReusedViewsFollowTheUserParamsAndDevice() throws {
        let dir = try project()
        let ipad = try DeviceContext.parse(device: "ipad", orientation: nil, traits: nil).get()
        func user(_ name: String, _ attrs: OrderedDictionary<String, JSONValue>) -> UserProfile { UserProfile(name: name, attributes: attrs) }
        let cases: [(UserProfile, [String: String], DeviceContext?, [String])] = [
            (user("gold", ["tier": "gold"]), [:], nil, ["is_gold", "logs"]),
            (user("free", ["tier": "free"]), [:], nil, ["logs"]),
            (user("gold", ["tier": "gold"]), ["id": "7"], nil, ["is_gold", "logs", "param_is_7"]),
            (user("gold", ["tier": "gold"]), ["id": "8"], nil, ["is_gold", "logs"]),
            (user("gold", ["tier": "gold"]), [:], ipad, ["is_gold", "logs", "on_ipad"]),
            (user("gold", ["tier": "gold"]), [:], nil, ["is_gold", "logs"]),
            // Equal to Swift, different bytes to Lua.
            (user("c", ["city": .string("\u{E9}")]), [:], nil, ["logs", "precomposed"]),
            (user("c", ["city": .string("e\u{301}")]), [:], nil, ["logs"]),
            (user("z", ["score": .double(0.0)]), [:], nil, ["logs"]),
            (user("z", ["score": .double(-0.0)]), [:], nil, ["logs", "negative_zero"]),
            // Another name: `user.profile` differs.
            (user("free2", ["tier": "free"]), [:], nil, ["logs"]),
        ]
        let (fresh, fs, fc) = try workspace(dir, reuse: 0)
        for reuse in [1, 2, 16] {
            let (ws, s, c) = try workspace(dir, reuse: reuse)
            // Twice over: the second round reads views kept by the first (or evicted since).
            for round in 0..<2 {
                for (k, (u, params, device, expected)) in cases.enumerated() {
                    let got = shown(ws, s, c, u, params: params, device: device)
                    let want = shown(fresh, fs, fc, u, params: params, device: device)
                    XCTAssertEqual(got.shown, expected, "reuse \(reuse), round \(round), case \(k)")
                    XCTAssertEqual(got.shown, want.shown, "reuse \(reuse), round \(round), case \(k)")
                    // The rules ran: they logged on this resolution as without reuse.
                    XCTAssertEqual(got.logged, want.logged, "reuse \(reuse), round \(round), case \(k)")
                    XCTAssertTrue(got.logged.contains("logs \(u.name!)"), "\(got.logged)")
                }
            }
        }
    }

    /// What reuse changes, as a plugin can see it: the view a rule gets is the table it got the
    /// last time for that user (without reuse, a new table each resolution).
    func testTheSameUserGetsTheSameTableOnlyWithReuse() throws {
        let dir = try project()
        try Data("""
            return { name = "v", version = "1", api = 1, register = function(host)
              local last = {}
              host.rule("logs", function(user)
                host.log((rawequal(user, last[user.tier]) and "kept " or "made ") .. user.tier)
                last[user.tier] = user
                return true
              end)
            end }
            """.utf8).write(to: URL(fileURLWithPath: dir + "/plugins/v/plugin.lua"))
        try Data(IsolationTests.screen([("logs", "logs")]).utf8).write(to: URL(fileURLWithPath: dir + "/screens/s.json"))
        for (reuse, expected) in [(16, ["made gold", "kept gold", "made free", "kept gold", "kept free"]),
                                  (1, ["made gold", "kept gold", "made free", "made gold", "made free"]),
                                  (0, ["made gold", "made gold", "made free", "made gold", "made free"])] {
            let (ws, s, c) = try workspace(dir, reuse: reuse)
            var logged: [String] = []
            for tier in ["gold", "gold", "free", "gold", "free"] {
                logged += shown(ws, s, c, UserProfile(name: tier, attributes: ["tier": .string(tier)]), params: [:], device: nil).logged
            }
            XCTAssertEqual(logged, expected, "reuse \(reuse)")
        }
    }

    func testChangingTheReuseKeepsTheAnswers() throws {
        let dir = try project()
        let (ws, s, c) = try workspace(dir, reuse: 16)
        for tier in ["gold", "free", "gold", "free"] {
            XCTAssertEqual(shown(ws, s, c, UserProfile(name: tier, attributes: ["tier": .string(tier)]), params: [:], device: nil).shown.first,
                           tier == "gold" ? "is_gold" : "logs")
        }
        ws.engine.userViewReuse = 1
        ws.engine.userViewReuse = 0
        for tier in ["free", "gold"] {
            XCTAssertEqual(shown(ws, s, c, UserProfile(name: tier, attributes: ["tier": .string(tier)]), params: [:], device: nil).shown.first,
                           tier == "gold" ? "is_gold" : "logs")
        }
    }
}
