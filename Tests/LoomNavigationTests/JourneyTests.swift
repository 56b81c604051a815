import LoomCore
import XCTest
@testable import LoomNavigation

/// `JourneysFile.parse` and `Journey.check` on hand-made graphs: shortest paths in the graph's
/// edge order, `within`, hidden edges (fewest hidden taps, then fewest taps), `never`.
final class JourneyTests: XCTestCase {
    func parse(_ text: String) throws -> ([Journey], Diagnostics) {
        let doc = try JSONReader.parse(Array(text.utf8), file: "journeys.json")
        return JourneysFile.parse(doc)
    }

    func journey(_ text: String) throws -> Journey {
        let (list, d) = try parse("[\(text)]")
        XCTAssertFalse(d.hasErrors, d.items.map(\.description).joined(separator: "\n"))
        return try XCTUnwrap(list.first)
    }

    static let hide = HiddenReason(path: "root/children[1]", reason: "rule is_gold is false", location: SourceLocation(file: "a.json", line: 3, column: 5))

    /// a → b → c → d (visible), a → d hidden, a → e visible, e → d visible.
    func graph() -> NavigationGraph {
        let nodes = ["a", "b", "c", "d", "e"].map { NavigationGraph.Node(id: $0, screen: $0, flow: "main") }
        let edges = [
            NavigationGraph.Edge(from: "a", to: "b", step: "go", presentation: .push),
            NavigationGraph.Edge(from: "a", to: "d", step: "jump", presentation: .push, hiddenBy: JourneyTests.hide),
            NavigationGraph.Edge(from: "a", to: "e", step: "x", presentation: .push, exampleParam: "7"),
            NavigationGraph.Edge(from: "b", to: "c", step: "go", presentation: .push),
            NavigationGraph.Edge(from: "c", to: "d", step: "go", presentation: .push),
            NavigationGraph.Edge(from: "e", to: "d", step: "go", presentation: .push),
        ]
        return NavigationGraph(entry: "a", entryFlow: "main", nodes: nodes, edges: edges, findings: [])
    }

    func testReachTakesTheShortestVisiblePath() throws {
        let v = try journey(#"{"name": "n", "from": "a", "reach": "d"}"#).check(graph())
        XCTAssertEqual(v.outcome, .pass)
        XCTAssertEqual(v.path.map(\.action), ["x:7", "go"])
        XCTAssertEqual(v.path.map(\.toScreen), ["e", "d"])
    }

    func testTooManyTapsNamesTheHiddenShortcut() throws {
        let v = try journey(#"{"name": "n", "from": "a", "reach": "d", "within": 1}"#).check(graph())
        XCTAssertEqual(v.outcome, .fail)
        XCTAssertEqual(v.path.count, 2)
        XCTAssertEqual(v.hidden?.action, "jump")
        XCTAssertEqual(v.hidden?.hiddenBy, JourneyTests.hide)
    }

    func testUnreachableShowsTheFirstHiddenEdgeOnTheWay() throws {
        var g = graph()
        g.edges.removeAll { $0.to == "d" && $0.hiddenBy == nil }
        let v = try journey(#"{"name": "n", "from": "a", "reach": "d"}"#).check(g)
        XCTAssertEqual(v.outcome, .fail)
        XCTAssertEqual(v.path.map(\.action), ["jump"])
        XCTAssertEqual(v.hidden?.fromScreen, "a")
        XCTAssertTrue(v.summary.contains("rule is_gold is false"), v.summary)
        g.edges.removeAll { $0.to == "d" }
        let none = try journey(#"{"name": "n", "from": "a", "reach": "d"}"#).check(g)
        XCTAssertEqual(none.outcome, .fail)
        XCTAssertNil(none.hidden)
        XCTAssertEqual(none.path, [])
    }

    func testNeverFailsWithTheShortestPathAndIgnoresHiddenEdges() throws {
        let v = try journey(#"{"name": "n", "from": "a", "never": "c"}"#).check(graph())
        XCTAssertEqual(v.outcome, .fail)
        XCTAssertEqual(v.path.map(\.toScreen), ["b", "c"])
        XCTAssertEqual(try journey(#"{"name": "n", "from": "a", "never": "c", "within": 1}"#).check(graph()).outcome, .pass)
        var g = graph()
        g.edges.removeAll { $0.to == "d" && $0.hiddenBy == nil }
        XCTAssertEqual(try journey(#"{"name": "n", "from": "a", "never": "d"}"#).check(g).outcome, .pass)
    }

    func testParseErrorsAreLocatedAndLeaveTheJourneyOut() throws {
        let (list, d) = try parse(#"[{"name": "a", "from": "x", "reach": "y", "within": 2}, {"name": "b", "from": "x"}, {"name": "c", "from": "x", "never": "y", "within": 1.5}]"#)
        XCTAssertEqual(list.map(\.name), ["a"])
        XCTAssertEqual(d.errors.count, 2, d.items.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(d.errors.first?.location?.line, 1)
        XCTAssertEqual(list.first?.within, 2)
        let (_, o) = try parse(#"{"journeys": [], "jorneys": 1}"#)
        XCTAssertTrue(o.errors.first?.message.contains("unknown key 'jorneys'") ?? false, o.items.map(\.description).joined())
    }
}
