import LoomCommands
import LoomCore
import XCTest

/// `PopulationDiffFact.facts` (one user's changes, node by node) and `PopulationDiffCounts`
/// (merged counts and their order), and `TextEscape.markdown`, on hand-written trees.
final class PopulationDiffFactTests: XCTestCase {
    func json(_ s: String) throws -> JSONValue { try JSONReader.parse(Array(s.utf8), file: "t.json").root.plain }

    func testAppearingComponentBringsEverythingInside() throws {
        let old = try json(#"{"type": "stack", "id": "root", "children": [{"type": "label", "id": "a", "meta": {"text": "x"}}]}"#)
        let new = try json(#"""
            {"type": "stack", "id": "root", "children": [
              {"type": "label", "id": "a", "meta": {"text": "y"}},
              {"type": "list", "id": "l", "header": {"type": "label", "id": "h"},
               "items": [{"kind": "movie", "title": "A"}, {"id": "m2", "kind": "movie", "title": "B"}],
               "children": [{"type": "label"}]}]}
            """#)
        let graphOld = try json(#"{"edges": [{"from": "home", "step": "go", "to": "x", "presentation": "push"}, {"from": "home", "step": "b", "to": "y", "presentation": "push"}]}"#)
        let graphNew = try json(#"{"edges": [{"from": "home", "step": "go", "to": "x", "presentation": "modal"}, {"from": "home", "step": "c", "to": "z", "presentation": "push"}]}"#)
        let facts = PopulationDiffFact.facts(old: old, new: new, oldGraph: graphOld, newGraph: graphNew)
        let got = Set(facts.map { "\($0.kind.rawValue)|\($0.id)|\($0.change.rawValue)" })
        XCTAssertEqual(got, [
            "component|a|updated",
            "component|l|gained", "component|h|gained", "item|item 0 of list 'l'|gained", "item|m2|gained",
            "component|root/children[1]/children[0]|gained",
            "edge|home -go-> x|updated", "edge|home -b-> y|lost", "edge|home -c-> z|gained",
        ])
    }

    func testCountsMergeToTheSameRowsInOrder() {
        let f1 = PopulationDiffFact(id: "b", kind: .component, change: .updated)
        let f2 = PopulationDiffFact(id: "a", kind: .item, change: .lost)
        var whole = PopulationDiffCounts(by: ["tier"]), p1 = PopulationDiffCounts(by: ["tier"]), p2 = PopulationDiffCounts(by: ["tier"])
        let users: [(JSONValue?, Set<PopulationDiffFact>)] = [(.string("gold"), [f1, f2]), (nil, [f1]), (.string("free"), []), (.string("gold"), [f1])]
        for (i, (tier, facts)) in users.enumerated() {
            var attrs = UserProfile(name: nil, attributes: [:]).attributes
            if let tier { attrs["tier"] = tier }
            whole.add(attributes: attrs, facts: facts)
            if i < 2 { p1.add(attributes: attrs, facts: facts) } else { p2.add(attributes: attrs, facts: facts) }
        }
        p1.merge(p2)
        let rows = { (c: PopulationDiffCounts) in c.rows.map { "\($0.segment.map { $0.serialized(pretty: false) })|\($0.segmentUsers)|\($0.fact.id)|\($0.fact.change.rawValue)|\($0.count)" } }
        XCTAssertEqual(rows(p1), rows(whole))
        XCTAssertEqual(rows(whole), [
            "[\"\\\"gold\\\"\"]|2|a|lost|1", "[\"\\\"gold\\\"\"]|2|b|updated|2",
            "[\"null\"]|1|b|updated|1",
        ])
        XCTAssertEqual(whole.users, 4)
        XCTAssertEqual(whole.seenBy, ["tier"])
    }

    func testMarkdownEscapesEveryPunctuationAndControl() {
        XCTAssertEqual(TextEscape.markdown("a|b"), "a\\|b")
        XCTAssertEqual(TextEscape.markdown("<script>"), "\\<script\\>")
        XCTAssertEqual(TextEscape.markdown("x\ny\u{1B}"), "x\\\\ny\\\\u\\{1B\\}")
        XCTAssertEqual(TextEscape.markdown("plain text 42"), "plain text 42")
    }
}
