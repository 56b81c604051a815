import Foundation
import LoomCore
@testable import LoomPlugins
import LoomWorkspace
import XCTest

/// A template element's user view (ScopedUserViews.swift: the user's view with the element's
/// fields over it, for a rule on a node a `$each` made) is made in one call into C, as the plain
/// view is, instead of member by member and frozen by the sandbox's `freeze`. Rules must not be
/// able to tell: everything `UserViewInOneCallTests`' `dump` rule observes (members, `next`
/// order, `#`, `type`, `tostring`'s form, nested tables read-only, the error a write raises) is
/// the same both ways, for every user and element.
final class ScopedUserViewTests: XCTestCase {
    static let screen = #"""
        {"screen": "s", "data": {"rows": {"file": "data/rows.json"}},
         "root": {"type": "stack", "id": "root", "children": {"$each": "rows", "as": "r", "template":
           {"type": "label", "id": {"$format": "row_{r.id}"}, "meta": {"text": {"$bind": "r.name"}}, "rule": "dump"}}}}
        """#
    static let rows = #"""
        [{"id": 1, "name": "plain"},
         {"id": 2, "name": "nested", "tags": ["x", "y"], "address": {"city": "Oslo", "zip": null}},
         {"id": 3, "name": "numbers", "score": 0.5, "big": 9007199254740993, "neg": -0.0},
         {"id": 4, "name": "shadows", "tier": "element's", "profile": "element's"}]
        """#

    func testElementViewsMadeInOneCallShowRulesTheSameUser() throws {
        let dir = try PluginTestKit.writeProject(for: self, name: "scopedView", prelude: UserViewInOneCallTests.prelude,
                                                 register: UserViewInOneCallTests.register, screen: Self.screen, users: "{}")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("data"), withIntermediateDirectories: true)
        try Data(Self.rows.utf8).write(to: dir.appendingPathComponent("data/rows.json"))
        var compared = 0
        // (Not `deep`: its dump fills the engine's log; its view is made member by member both ways.)
        let users = UserViewInOneCallTests.users().filter { $0.name != "deep" }
        for user in users {
            // A workspace per user: a plugin's log is capped over the life of its state.
            let (ws, s, c) = try PluginTestKit.openScreen(project: dir.path)
            var logs: [[String]] = []
            for oneCall in [true, false] {
                ws.engine.userViewsInOneCall = oneCall
                let before = ws.engine.log.count
                let r = ws.resolve(s, check: c, user: user)
                XCTAssertTrue(r.diagnostics.items.isEmpty, "\(user.name ?? "-"): \(r.diagnostics.items)")
                logs.append(ws.engine.log.dropFirst(before).map(\.1))
            }
            XCTAssertEqual(logs[0].count, 4, "\(user.name ?? "-"): one line per element")
            XCTAssertEqual(logs[0], logs[1], "\(user.name ?? "-")")
            compared += logs[0].count
            // What the rule saw is the user with the element over it (not merely the same both ways).
            if user.name == "gold" {
                let seen = logs[0].joined(separator: "\n")
                XCTAssertTrue(seen.contains("tier=string:gold") && seen.contains("age=integer:30"), seen)
                XCTAssertTrue(seen.contains("Oslo"), seen)
                XCTAssertTrue(seen.contains("| false attempt to modify read-only table 'node' (field 'tier') |"), seen)
                XCTAssertFalse(seen.contains("writable"), seen)
            }
        }
        XCTAssertEqual(compared, 4 * users.count)
    }

    /// With the user's views reused by later resolutions (`userViewReuse`, as scenarios run), an
    /// element's view is kept with them: users taking turns each see their own view with the
    /// element over it, as they do with views made anew for each resolution.
    func testElementViewsKeptWithReusedViewsStayEachUsers() throws {
        let dir = try PluginTestKit.writeProject(for: self, name: "scopedReuse", prelude: UserViewInOneCallTests.prelude,
                                                 register: UserViewInOneCallTests.register, screen: Self.screen, users: "{}")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("data"), withIntermediateDirectories: true)
        try Data(Self.rows.utf8).write(to: dir.appendingPathComponent("data/rows.json"))
        let users = UserViewInOneCallTests.users().filter { ["gold", "one", "nested", "object"].contains($0.name) }
        var seen: [[String]] = []
        // One Lua state for both (the order `next` gives depends on the state's hash seed).
        let (ws, s, c) = try PluginTestKit.openScreen(project: dir.path)
        ws.engine.sandbox.logCapBytes = 4 << 20  // every line whole (the default cap is 64 KiB a plugin)
        for reuse in [0, 16] {
            ws.engine.userViewReuse = reuse
            var logs: [String] = []
            for round in 0..<3 {
                for user in users {
                    let before = ws.engine.log.count
                    let r = ws.resolve(s, check: c, user: user)
                    XCTAssertTrue(r.diagnostics.items.isEmpty, "\(user.name ?? "-"): \(r.diagnostics.items)")
                    let lines = ws.engine.log.dropFirst(before).map(\.1)
                    XCTAssertEqual(lines.count, 4, "\(user.name ?? "-") round \(round)")
                    logs.append(lines.joined(separator: "\n"))
                }
            }
            seen.append(logs)
        }
        XCTAssertEqual(seen[0], seen[1])
        // Each user's own tier, round after round (not the previous user's kept view).
        XCTAssertTrue(seen[1][0].contains("tier=string:gold") && seen[1][1].contains("tier=string:free"), seen[1][1])
        XCTAssertTrue(seen[1][5].contains("tier=string:free") && !seen[1][5].contains("tier=string:gold"), seen[1][5])
    }
}
