import XCTest
@testable import LoomCore
@testable import LoomNavigation

final class NavigationRenderingTests: XCTestCase {
    /// A small graph: a tabs flow `main` and a modal flow `shop`, one gated edge, one screen id
    /// that needs escaping.
    static let graph = NavigationGraph(
        entry: "home", entryFlow: "main",
        nodes: [
            .init(id: "home", screen: "home", flow: "main", file: "screens/home.json"),
            .init(id: "movie_detail", screen: "movie_detail", flow: "main"),
            .init(id: "checkout", screen: "checkout", flow: "shop"),
            .init(id: "promo \"2\"", screen: "promo \"2\"", flow: "main"),
        ],
        edges: [
            .init(from: "checkout", to: "home", step: "done", presentation: .finish, flow: "main"),
            .init(from: "home", to: "checkout", step: "buy", presentation: .flow, gated: true, flow: "shop"),
            .init(from: "home", to: "movie_detail", step: "movie", presentation: .push, exampleParam: "42", flow: "main"),
            .init(from: "home", to: "promo \"2\"", step: "promo", presentation: .present, flow: "main"),
        ],
        findings: [
            .init(.unreachableScreen, .warning, "screen 'legacy' is not reachable for this user from 'home'",
                at: SourceLocation(file: "screens/legacy.json")),
            .init(.cycle, .note, "cycle: screens home, checkout lead to each other"),
        ],
        flowPresentations: ["main": .tabs, "shop": .modal])

    func testText() {
        XCTAssertEqual(Self.graph.rendered(.text), """
            navigation from home (flow main)
            home [main]
              ── buy (flow) ──▶ checkout [shop] ⚑
              ── movie (push) ──▶ movie_detail   e.g. movie:42
              ── promo (present) ──▶ promo "2"
            movie_detail [main]
            checkout [shop]
              ── done (finish) ──▶ home [main]
            promo "2" [main]
            ⚑ = reachable only because a rule passed for this user

            findings:
              screens/legacy.json: warning: screen 'legacy' is not reachable for this user from 'home'
              note: cycle: screens home, checkout lead to each other

            """)
    }

    func testJSON() {
        XCTAssertEqual(Self.graph.json, [
            "entry": "home",
            "entry_flow": "main",
            "nodes": [
                ["id": "home", "flow": "main", "file": "screens/home.json"],
                ["id": "movie_detail", "flow": "main"],
                ["id": "checkout", "flow": "shop"],
                ["id": "promo \"2\"", "flow": "main"],
            ],
            "edges": [
                ["from": "checkout", "to": "home", "step": "done", "presentation": "finish", "gated": false, "flow": "main"],
                ["from": "home", "to": "checkout", "step": "buy", "presentation": "flow", "gated": true, "flow": "shop"],
                ["from": "home", "to": "movie_detail", "step": "movie", "presentation": "push", "example": "movie:42", "gated": false, "flow": "main"],
                ["from": "home", "to": "promo \"2\"", "step": "promo", "presentation": "present", "gated": false, "flow": "main"],
            ],
            "findings": [
                ["kind": "unreachable_screen", "severity": "warning", "message": "screen 'legacy' is not reachable for this user from 'home'", "location": "screens/legacy.json"],
                ["kind": "cycle", "severity": "note", "message": "cycle: screens home, checkout lead to each other"],
            ],
        ])
        // Key order is part of the output.
        let text = Self.graph.rendered(.json)
        XCTAssertTrue(text.hasPrefix("{\n  \"entry\": \"home\",\n  \"entry_flow\": \"main\",\n  \"nodes\": ["), text)
        XCTAssertTrue(text.hasSuffix("}\n"))
    }

    func testDOT() {
        XCTAssertEqual(Self.graph.rendered(.dot), #"""
            digraph navigation {
              rankdir=LR;
              node [shape=box, style=rounded, fontname="Helvetica"];
              edge [fontname="Helvetica", fontsize=10];
              subgraph "cluster_main" {
                label="main (tabs)";
                style=rounded;
                "home" [peripheries=2];
                "movie_detail";
                "promo \"2\"";
              }
              subgraph "cluster_shop" {
                label="shop (modal)";
                style=rounded;
                "checkout";
              }
              "checkout" -> "home" [label="done (finish)"];
              "home" -> "checkout" [label="buy (flow)", style=dashed];
              "home" -> "movie_detail" [label="movie (push)"];
              "home" -> "promo \"2\"" [label="promo (present)"];
            }

            """#)
    }

    func testMermaid() {
        XCTAssertEqual(Self.graph.rendered(.mermaid), """
            flowchart LR
              subgraph f_main["main (tabs)"]
                n_home["home"]
                n_movie_detail["movie_detail"]
                n_promo__2_["promo #quot;2#quot;"]
              end
              subgraph f_shop["shop (modal)"]
                n_checkout["checkout"]
              end
              n_checkout -->|"done (finish)"| n_home
              n_home -.->|"buy (flow)"| n_checkout
              n_home -->|"movie (push)"| n_movie_detail
              n_home -->|"promo (present)"| n_promo__2_
              classDef entry stroke-width:3px
              class n_home entry

            """)
    }

    func testMermaidIdsStayUniqueAfterSanitising() {
        let g = NavigationGraph(
            entry: "a-b", nodes: [.init(id: "a-b", screen: "a-b", flow: nil), .init(id: "a_b", screen: "a_b", flow: nil)],
            edges: [.init(from: "a-b", to: "a_b", step: "go", presentation: .push)], findings: [])
        XCTAssertEqual(g.mermaid(), """
            flowchart LR
              n_a_b["a-b"]
              n_a_b_2["a_b"]
              n_a_b -->|"go (push)"| n_a_b_2
              classDef entry stroke-width:3px
              class n_a_b entry

            """)
    }

    func testExploredGraphRendersTheSameEveryTime() {
        let a = NavigationExplorerTests.explore(NavigationExplorerTests.movies(gold: true))
        let b = NavigationExplorerTests.explore(NavigationExplorerTests.movies(gold: true))
        for format in GraphFormat.allCases {
            XCTAssertEqual(a.rendered(format), b.rendered(format), format.rawValue)
        }
        XCTAssertEqual(a.rendered(.text), """
            navigation from home (flow main)
            home [main]
              ── movie (push) ──▶ movie_detail   e.g. movie:42
              ── premium (tab) ──▶ premium ⚑
              ── settings (present) ──▶ settings
            movie_detail [main]
              ── cast (push) ──▶ cast_detail   e.g. cast:3
            settings [main]
            premium [main]
              ── members (flow) ──▶ members_home [members]
              ── members (flow) ──▶ members_intro [members]
            cast_detail [main]
              ── movie (push) ──▶ movie_detail   e.g. movie:5
            members_home [members]
              ── join (finish) ──▶ premium [main]
            members_intro [members]
              ── join (finish) ──▶ premium [main]
              ── movie (parent) ──▶ movie_detail [main]   e.g. movie:1
            deep links (entry edges):
              app://movie/{id} ──▶ movie_detail [main]   via movie:{id}
              app://premium ──▶ premium [main]   via premium
            ⚑ = reachable only because a rule passed for this user

            findings:
              screens/legacy.json: warning: screen 'legacy' is not reachable for this user from 'home'
              note: cycle: screens movie_detail, cast_detail lead to each other

            """)
    }
}
