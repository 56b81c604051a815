import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import XCTest

/// Exploring a user's navigation graph leaves nothing behind per user: flows' `when` rules are
/// decided on one subject per rule place (`RuleDecision`), not a new one per decision, which the
/// plugin engine kept with its frozen node table for as long as the process ran (about 270
/// bytes of live Lua memory per user of `host matrix` / `host diff --users` on the sample app).
final class GraphMemoryTests: XCTestCase {
    func testLiveLuaMemoryIsFlatInTheNumberOfUsersExplored() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = url.path + "/docs/examples/movies"
        let ws = try Workspace(options: o)
        let engine = try XCTUnwrap(ws.pluginHost as? PluginEngine)
        let screen = try XCTUnwrap(ws.screen(file: url.path + "/docs/examples/movies/screens/home.json").screen)
        func explore(_ range: Range<Int>) {
            for i in range {
                let user = UserProfile(name: "u\(i)", attributes: [
                    "id": .string(String(i * 7919 % 100_000)), "tier": .string(["gold", "free", "guest"][i % 3]),
                    "country": .string(["NO", "SE", "DK"][i % 3]), "app_version": .string("5.3.1")])
                let out = ws.navigationGraph(from: screen, user: user)
                XCTAssertFalse(out.graph.edges.isEmpty)
            }
        }
        explore(0..<150)
        engine.state.collectGarbage()
        let warm = engine.state.gcCountKB
        explore(150..<1050)
        engine.state.collectGarbage()
        let after = engine.state.gcCountKB
        // Before the fix: about 240 KB more for these 900 users.
        XCTAssertLessThan(after - warm, 40, "live Lua memory grew from \(warm) KB to \(after) KB over 900 users")
    }
}
