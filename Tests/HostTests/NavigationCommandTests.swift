import Foundation
import XCTest

/// `host graph` in every format and `host navigate` with steps and deep links, on the sample app.
final class NavigationCommandTests: XCTestCase {
    func graph(_ user: String, _ format: String, file: StaticString = #filePath, line: UInt = #line) throws -> HostResult {
        try Host.run(["graph", "home", "--project", Host.moviesProject, "--user", user, "--format", format], file: file, line: line)
    }

    func testGraphDOT() throws {
        let r = try graph("gold", "dot")
        assertExit(r, 0)
        XCTAssertTrue(r.stdout.hasPrefix("digraph"), r.transcript)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).last, "}", "DOT is not closed\n\(r.transcript)")
        for screen in ["home", "movie_detail", "premium_lounge", "settings"] { assertContains(r.stdout, screen, in: r, "the DOT graph") }
        let free = try graph("free", "dot")
        assertExit(free, 0)
        // docs/examples/movies/README.md: only gold sees the premium tab (its button steps `premium`);
        // free sees the upsell banner instead (its action steps `upgrade`).
        assertContains(r.stdout, #""home" -> "premium_lounge" [label="premium (flow)", style=dashed];"#, in: r, "gold's DOT graph")
        assertLacks(r.stdout, #""home" -> "upgrade""#, in: r, "gold's DOT graph")
        assertContains(free.stdout, #""home" -> "upgrade" [label="upgrade (flow)", style=dashed];"#, in: free, "free's DOT graph")
        assertLacks(free.stdout, "premium_lounge", in: free, "free's DOT graph")
    }

    func testGraphMermaid() throws {
        let r = try graph("gold", "mermaid")
        assertExit(r, 0)
        XCTAssertTrue(r.stdout.hasPrefix("flowchart"), r.transcript)
        assertContains(r.stdout, "movie_detail", in: r, "the Mermaid graph")
    }

    func testGraphTextAndJSON() throws {
        let t = try graph("gold", "text")
        assertExit(t, 0)
        assertContains(t.stdout, "premium_lounge", in: t, "stdout")
        let j = try graph("gold", "json")
        assertExit(j, 0)
        let o = try j.jsonObject()
        XCTAssertEqual(o["entry"] as? String, "home")
        XCTAssertTrue(TreeJSON.edgeSteps(o).contains("premium"), j.transcript)
        let free = try graph("free", "json").jsonObject()
        XCTAssertFalse(TreeJSON.edgeSteps(free).contains("premium"), "free can reach the premium flow")
    }

    func testGraphSVG() throws {
        guard Host.which("dot") != nil else { throw XCTSkip("Graphviz's `dot` is not installed") }
        let r = try graph("gold", "svg")
        assertExit(r, 0)
        assertContains(r.stdout, "<svg", in: r, "stdout")
        assertContains(r.stdout, "</svg>", in: r, "stdout")
    }

    func testGraphToAFile() throws {
        let dir = try Host.temporaryFolder("graph")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("g.dot")
        let r = try Host.run(["graph", "home", "--project", Host.moviesProject, "--user", "gold", "--format", "dot", "-o", out.path])
        assertExit(r, 0)
        XCTAssertEqual(r.stdout, "", "output went to stdout as well")
        let text = try String(contentsOf: out, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("digraph"), text)
    }

    // MARK: navigate

    func navigate(_ user: String, _ extra: [String], file: StaticString = #filePath, line: UInt = #line) throws -> HostResult {
        try Host.run(["navigate", "home", "--project", Host.moviesProject, "--user", user] + extra, file: file, line: line)
    }

    func testNavigateStepsAndBack() throws {
        let r = try navigate("gold", ["--steps", "movie:42,back"])
        assertExit(r, 0)
        assertContains(r.stdout, "movie_detail", in: r, "stdout")
        assertContains(r.stdout, "will-navigate", in: r, "stdout")
        assertContains(r.stdout, "did-navigate", in: r, "stdout")
        let stacks = lines(of: r.stdout, matching: #"^\s*stack:"#)
        XCTAssertEqual(stacks.count, 2, "one stack line after each step\n\(r.transcript)")
        XCTAssertTrue(stacks.first?.contains("movie_detail") == true, "after movie:42 the stack lacks movie_detail: \(stacks)")
        XCTAssertTrue(stacks.last.map { $0.contains("home") && !$0.contains("movie_detail") } == true, "back did not pop: \(stacks)")
        assertLacks(r.stderr, "error:", in: r, "stderr")
    }

    func testNavigateJSON() throws {
        let r = try navigate("gold", ["--steps", "movie:42,back", "--format", "json"])
        assertExit(r, 0)
        let o = try r.jsonObject()
        XCTAssertEqual((o["steps"] as? [Any])?.count, 2, r.transcript)
        XCTAssertTrue(o["diagnostics"] is [Any])
    }

    func testUnavailableStepFails() throws {
        // The premium tab is hidden from free users, so its step is not available.
        let r = try navigate("free", ["--steps", "premium"])
        assertExit(r, 1)
        assertContains(r.stderr, "not available", in: r, "stderr")
        assertContains(r.stderr, "premium", in: r, "stderr")
        // For gold the same step works.
        let gold = try navigate("gold", ["--steps", "premium"])
        assertExit(gold, 0)
        assertContains(gold.stdout, "premium_lounge", in: gold, "stdout")
        // A step after a failing one is not performed.
        let later = try navigate("free", ["--steps", "premium,movie:42"])
        assertExit(later, 1)
        assertLacks(later.stdout, "movie_detail", in: later, "stdout")
    }

    func testDeepLink() throws {
        let r = try navigate("gold", ["--link", "app://movie/42"])
        assertExit(r, 0)
        let stacks = lines(of: r.stdout, matching: #"^\s*stack:"#)
        XCTAssertTrue(stacks.last?.contains("movie_detail") == true, "the link does not land on movie_detail\n\(r.transcript)")
    }

    func testNavigateUnknownUser() throws {
        let r = try navigate("nobody", ["--steps", "movie:42"])
        assertExit(r, 1)
        assertContains(r.stderr, "nobody", in: r, "stderr")
    }
    /// A deep link declared in a tab flow lands where `host navigate --link` lands, and
    /// `host graph` draws it there: to the tab flow's `order`, not to the modal flow's screen of
    /// the same name (issue 37).
    func testTheGraphDrawsALinkWhereNavigateLands() throws {
        let dir = try Host.temporaryFolder("links")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        try Host.write([
            "loom.json": "{}",
            "flows.json": """
            {"flows": {
              "main": {"presentation": "tabs", "start": "home",
                "steps": {"order": {"push": "order"}, "checkout": {"flow": "checkout"}},
                "links": {"app://order/{id}": "order:{id}"}},
              "checkout": {"presentation": "modal", "start": "cart",
                "steps": {"place": {"push": "order"}, "close": {"finish": true}}}
            }}
            """,
            "screens/home.json": #"{"screen": "home", "root": {"type": "stack", "children": [{"type": "button", "id": "go", "action": "checkout", "meta": {"title": "Checkout"}}]}}"#,
            "screens/cart.json": #"{"screen": "cart", "root": {"type": "stack", "children": [{"type": "button", "id": "p", "action": "place", "meta": {"title": "Place"}}]}}"#,
            "screens/order.json": #"{"screen": "order", "root": {"type": "stack", "children": []}}"#,
        ], under: dir)
        let nav = try Host.run(["navigate", "home", "--project", dir.path, "--link", "app://order/7", "--format", "json"])
        assertExit(nav, 0)
        let stack = (((try nav.jsonObject()["steps"] as? [[String: Any]])?.last?["stack"]) as? [[String: Any]]) ?? []
        let landed = try XCTUnwrap(stack.last, nav.transcript)
        XCTAssertEqual(landed["screen"] as? String, "order")
        XCTAssertEqual(landed["flow"] as? String, "main")
        let graph = try Host.run(["graph", "home", "--project", dir.path, "--format", "json"])
        let g = try graph.jsonObject()
        let link = try XCTUnwrap((g["links"] as? [[String: Any]])?.first, graph.transcript)
        let node = try XCTUnwrap((g["nodes"] as? [[String: Any]])?.first { $0["id"] as? String == link["to"] as? String }, graph.transcript)
        // A node's "screen" is written when it differs from its id (`order@main`).
        XCTAssertEqual((node["screen"] ?? node["id"]) as? String, landed["screen"] as? String, graph.transcript)
        XCTAssertEqual(node["flow"] as? String, landed["flow"] as? String, graph.transcript)
        let dot = try Host.run(["graph", "home", "--project", dir.path, "--format", "dot"])
        assertContains(dot.stdout, #" -> "order@main" [style=dotted, label="deep link"];"#, in: dot)
    }
}
