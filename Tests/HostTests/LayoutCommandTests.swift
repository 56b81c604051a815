import Foundation
import XCTest

/// Layout through the CLI and scenarios (docs/layout.md, docs/cli.md): `host run --layout`
/// frames and findings, `host check` on constraint syntax, broken constraints located,
/// `s:expect_frame`, `s:expect_fits` and frames in snapshots. The project's own plugin declares
/// its roles (`layout_as`), so these frames follow from the constraints alone.
final class LayoutCommandTests: XCTestCase {
    static let plugin = """
        return {
          name = "boxes", version = "1.0", api = 1,
          register = function(host)
            host.cluster("box", function(node) return { view = "Box", props = {} } end, { layout_as = "container" })
            host.single("plain", function(node) return { view = "Plain", props = {} } end, { layout_as = "view" })
          end,
        }
        """

    func project(title: String = #"["top == safe_area.top + 10", "left == parent.left + 16", "right == parent.right - 16", "height == 44"]"#,
                 extra: [String: String] = [:]) throws -> URL {
        let root = try Host.temporaryFolder("layout")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        var files = [
            "loom.json": #"{"name": "p"}"#,
            "plugins/boxes/plugin.lua": Self.plugin,
            "users.json": #"{"u": {"tier": "x"}}"#,
            "screens/s.json": """
                {"screen": "s", "root": {"type": "box", "id": "root", "children": [
                  {"type": "plain", "id": "title", "constraints": \(title)},
                  {"type": "plain", "id": "buy", "action": "buy",
                   "constraints": ["top == prev.bottom + 8", "left == parent.left + 16", "size == {30, 30}"]}
                ]}}
                """,
        ]
        for (k, v) in extra { files[k] = v }
        try Host.write(files, under: root)
        return root
    }

    func testRunLayoutPrintsFramesHeaderAndFindings() throws {
        let root = try project()
        let r = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--layout", "--device", "iphone-se-1st"], directory: root)
        assertExit(r, 0)
        assertContains(r.stdout, "layout: iphone-se-1st portrait 320×568 @2x, safe area 20,0,0,0", in: r, "stdout")
        assertMatches(r.stdout, #"box #root  Box  @ 0,0 320×568"#, in: r, "stdout")
        assertMatches(r.stdout, #"plain #title  Plain  @ 16,30 288×44"#, in: r, "stdout")
        assertMatches(r.stdout, #"plain #buy  Plain  @ 16,82 30×30"#, in: r, "stdout")
        // A 30×30 tap target is a finding, located at the node.
        assertMatches(r.stdout, #"small_tap_target root/children\[1\]: .*30×30.*screens/s\.json:3:\d+"#, in: r, "stdout")
        // Landscape turns the screen.
        let land = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--layout", "--device", "iphone-se-1st",
                                 "--orientation", "landscape"], directory: root)
        assertExit(land, 0)
        assertMatches(land.stdout, #"plain #title  Plain  @ 16,10 536×44"#, in: land, "stdout")
    }

    func testRunLayoutJSON() throws {
        let root = try project()
        let r = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--layout", "--device", "iphone-8", "--format", "json"],
                             directory: root)
        assertExit(r, 0)
        let o = try r.jsonObject()
        let layout = try XCTUnwrap(o["layout"] as? [String: Any], r.transcript)
        XCTAssertEqual(layout["device"] as? String, "iphone-8")
        XCTAssertEqual(layout["width"] as? Double, 375)
        let nodes = TreeJSON.components(o["tree"])
        let title = try XCTUnwrap(nodes.first { $0["id"] as? String == "title" }, r.transcript)
        let frame = try XCTUnwrap(title["frame"] as? [String: Any], r.transcript)
        XCTAssertEqual(frame["x"] as? Double, 16)
        XCTAssertEqual(frame["y"] as? Double, 30)
        XCTAssertEqual(frame["width"] as? Double, 343)
        XCTAssertEqual(frame["height"] as? Double, 44)
        // Without --layout there are no frames.
        let plain = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--format", "json"], directory: root)
        assertLacks(plain.stdout, "\"frame\"", in: plain, "stdout")
        assertLacks(plain.stdout, "\"layout\"", in: plain, "stdout")
    }

    func testBrokenConstraintIsLocatedAndTheLayoutGoesOn() throws {
        let root = try project(title: #"["top == safe_area.top + 10", "left == parent.left + 16", "right == parent.right - 16", "height == 44", "width == 500"]"#)
        let r = try Host.run(["run", "screens/s.json", "--user", "u", "--no-graph", "--layout", "--device", "iphone-se-1st"], directory: root)
        assertExit(r, 1)
        // The broken constraint is named at its string (line 2 of the screen).
        assertMatches(r.stderr, #"screens/s\.json:2:\d+: error: .*width == 500"#, in: r, "stderr")
        // The others still hold.
        assertMatches(r.stdout, #"plain #title  Plain  @ 16,30 288×44"#, in: r, "stdout")
    }

    func testCheckReportsConstraintSyntaxWithColumns() throws {
        let root = try project(title: #"["top == safe_area.top + 10", "wdth == 44", "left == #nope.left"]"#)
        let r = try Host.run(["check"], directory: root)
        assertExit(r, 1)
        assertMatches(r.stderr, #"screens/s\.json:2:\d+: error: .*wdth.*did you mean 'width'"#, in: r, "stderr")
    }

    func testScenariosExpectFramesFitsAndSnapshotFrames() throws {
        let root = try project(extra: [
            "scenarios/layout.lua": """
                scenario("title frame", function(t)
                  local s = t:open("s", { user = "u", device = "iphone-se-1st" })
                  s:expect_frame("title", { x = 16, y = 30, width = 288, height = 44 })
                  s:expect_frame("buy", { width = 30 })
                  s:expect_fits("title")
                  s:expect_snapshot()
                end)
                scenario("wrong frame", function(t)
                  local s = t:open("s", { user = "u", device = "iphone-se-1st" })
                  s:expect_frame("title", { width = 300 })
                end)
                scenario("small button", function(t)
                  local s = t:open("s", { user = "u", device = "iphone-se-1st" })
                  s:expect_fits("buy")
                end)
                scenario("bad key", function(t)
                  local s = t:open("s", { user = "u" })
                  s:expect_frame("title", { wdth = 300 })
                end)
                """,
        ])
        let r = try Host.run(["test"], directory: root)
        assertExit(r, 1)
        assertContains(r.stdout, "1 passed, 3 failed", in: r, "stdout")
        assertContains(r.stdout, "expected the frame of 'title' (plain) on iphone-se-1st portrait, compact regular to have width 300 (got 288); its frame is @ 16,30 288×44", in: r, "stdout")
        assertMatches(r.stdout, #"expected 'buy' \(plain\) to fit on iphone-se-1st"#, in: r, "stdout")
        assertMatches(r.stdout, #"^\s+small_tap_target root/children\[1\]: .*30×30"#, in: r, "stdout")
        assertContains(r.stdout, "unknown key 'wdth'; did you mean 'width'?", in: r, "stdout")
        let snap = try String(contentsOf: root.appendingPathComponent("scenarios/__snapshots__/layout/title_frame.snap"), encoding: .utf8)
        XCTAssertTrue(snap.contains(#"frame {"height":44,"width":288,"x":16,"y":30}"#), snap)
    }
}
