import XCTest
@testable import LoomCore
@testable import LoomNavigation

/// The graph draws every deep link to the node where `host navigate --link` lands (one
/// resolution, `LinkLanding`), not to another flow's screen of the same name.
final class LinkLandingTests: XCTestCase {
    /// A tab flow declares `app://order/{id}` (its step `order` pushes `order`); a modal flow
    /// shows a screen `order` too. The user's home offers no `order` action (no past orders),
    /// only the checkout, whose `place` pushes the modal's `order`.
    static let flowsJSON = """
        {"flows": {
          "main": {"presentation": "tabs", "start": "home",
            "steps": {"order": {"push": "order"}, "checkout": {"flow": "checkout"}, "help": {"flow": "help", "step": "faq"}},
            "links": {"app://order/{id}": "order:{id}", "app://help": "help", "app://nowhere/{x}": "nowhere:{x}"}},
          "checkout": {"presentation": "modal", "start": "cart",
            "steps": {"place": {"push": "order"}, "close": {"finish": true}}},
          "help": {"presentation": "modal", "start": "help_home", "steps": {"faq": {"push": "faq"}}}
        }}
        """

    static let app = StubApp(screens: [
        "home": ["checkout"], "cart": ["place", "close"], "order": [],
        "help_home": [], "faq": [],
    ])

    func testALinkIsDrawnWhereNavigateLands() throws {
        let (flows, errors) = loadFlows(Self.flowsJSON)
        XCTAssertEqual(errors, [])
        let entry = flows.entryPoint()!
        let graph = NavigationExplorer.explore(flows: flows, entry: entry, screens: Self.app.locations, actions: Self.app.actions)

        // The order link lands in the tab flow, as the simulator says…
        let sim = try NavigationSimulator(flows: flows, entry: entry, actions: Self.app.actions)
        _ = try sim.openLink("app://order/7").get()
        XCTAssertEqual(sim.current?.screen, "order")
        XCTAssertEqual(sim.current?.flow, "main")

        // …and the graph draws it there: to the tab flow's `order`, a node of its own (no action
        // reaches it), not to the checkout's `order`.
        let link = try XCTUnwrap(graph.links.first { $0.link == "app://order/{id}" })
        let node = try XCTUnwrap(graph.nodes.first { $0.id == link.to }, "\(graph.links)")
        XCTAssertEqual(node.screen, "order")
        XCTAssertEqual(node.flow, "main")
        XCTAssertEqual(link.to, "order@main")
        XCTAssertTrue(graph.nodes.contains { $0.id == "order@checkout" && $0.flow == "checkout" }, "\(graph.nodes)")
        XCTAssertTrue(graph.dot().contains(#" -> "order@main" [style=dotted, label="deep link"];"#), graph.dot())
        XCTAssertFalse(graph.dot().contains(#" -> "order@checkout" [style=dotted"#), graph.dot())

        // A link entering a child flow with a step follows that step into the child flow.
        let help = try XCTUnwrap(graph.links.first { $0.link == "app://help" })
        _ = try sim.openLink("app://help").get()
        XCTAssertEqual(sim.current?.screen, "faq")
        XCTAssertEqual(help.to, "faq")
        XCTAssertEqual(graph.nodes.first { $0.id == "faq" }?.flow, "help")

        // Every link of the graph lands where a fresh simulator's openLink lands.
        for l in graph.links where l.failure == nil {
            let s = try NavigationSimulator(flows: flows, entry: entry, actions: Self.app.actions)
            let url = try XCTUnwrap(flows[l.flow]?.links.first { $0.pattern == l.link }).exampleURL
            _ = try s.openLink(url).get()
            let n = try XCTUnwrap(graph.nodes.first { $0.id == l.to })
            XCTAssertEqual([n.screen, n.flow], [s.current?.screen, s.current?.flow], l.link)
        }

        // A link whose step leads nowhere is listed with the reason, drawn nowhere.
        let broken = try XCTUnwrap(graph.links.first { $0.link == "app://nowhere/{x}" })
        XCTAssertEqual(broken.to, "")
        XCTAssertTrue(broken.failure?.contains("returns nothing for step 'nowhere'") == true, "\(broken)")
        XCTAssertEqual(broken.json["to"], .null)
        XCTAssertTrue(graph.text(links: true).contains("app://nowhere/{x} ──▶ (cannot be opened) [main]"), graph.text(links: true))
    }

    func testExampleURLs() throws {
        let p = try LinkPattern.parse(pattern: "app://order/{id}?tab={tab name}", steps: "order:{id}").get()
        XCTAssertEqual(p.exampleURL, "app://order/id?tab=x")
        XCTAssertNotNil(p.match(p.exampleURL))
    }
}
