import XCTest
import LoomCore
@testable import LoomDiff

final class TreeDifferTests: XCTestCase {
    private func item(_ title: String, id: String? = nil, size: JSONValue? = nil, action: String? = nil) -> JSONValue {
        var o: [(String, JSONValue)] = []
        if let id { o.append(("id", .string(id))) }
        o.append(("kind", "movie"))
        o.append(("view", "MovieCell"))
        o.append(("props", .object(["title": .string(title)])))
        if let size { o.append(("size", size)) }
        if let action { o.append(("action", .string(action))) }
        return .object(.init(uniqueKeysWithValues: o))
    }

    private func list(_ items: [JSONValue], id: String = "watched", type: String = "list") -> JSONValue {
        .object(["type": .string(type), "id": .string(id), "view": "ListView", "props": ["title": "Watched"], "items": .array(items)])
    }

    private func root(_ children: [JSONValue]) -> JSONValue {
        .object(["type": "stack", "id": "root", "view": "StackView", "props": [:], "children": .array(children)])
    }

    private func kinds(_ d: TreeDiffer) -> [String] { d.changes.map { "\($0.change.rawValue) \($0.path)" } }

    func testIdenticalTreesHaveNoChanges() {
        let t = root([list([item("A"), item("B")])])
        let d = TreeDiffer(old: t, new: t)
        XCTAssertEqual(d.changes, [])
        XCTAssertEqual(d.unchanged, 4)
    }

    /// A size written `{"width", "height"}` in one file and `{"height", "width"}` in the other
    /// (a tool rewrote it) is the same size: no change; a different value still is.
    func testMemberOrderIsNoChange() {
        let old = root([list([item("A", size: ["width": 80, "height": 120])])])
        let new = root([list([item("A", size: ["height": 120, "width": 80])])])
        XCTAssertEqual(TreeDiffer(old: old, new: new).changes, [])
        let bigger = root([list([item("A", size: ["height": 121, "width": 80])])])
        XCTAssertEqual(kinds(TreeDiffer(old: old, new: bigger)), ["hard root/children[0]/items[0]"])
    }

    func testAppendTwoAndUpdateOneIsTwoInsertedAndOneSoft() {
        let old = root([list([item("A"), item("B"), item("C")])])
        let new = root([list([item("A"), item("B2"), item("C"), item("D"), item("E")])])
        let d = TreeDiffer(old: old, new: new)
        XCTAssertEqual(kinds(d), [
            "soft root/children[0]/items[1]",
            "inserted root/children[0]/items[3]",
            "inserted root/children[0]/items[4]",
        ])
        XCTAssertEqual(d.changes[0].fields, ["props.title"])
        XCTAssertEqual(d.counts.inserted, 2)
        XCTAssertEqual(d.counts.soft, 1)
    }

    func testPrependIsOneInsertNotAShiftOfUpdates() {
        let old = root([list([item("A"), item("B")])])
        let new = root([list([item("Z"), item("A"), item("B")])])
        XCTAssertEqual(kinds(TreeDiffer(old: old, new: new)), ["inserted root/children[0]/items[0]"])
    }

    func testSizeOrKindChangeIsHard() {
        let old = root([list([item("A", size: ["width": 100, "height": 50])])])
        let new = root([list([item("A", size: ["width": 100, "height": 80])])])
        let d = TreeDiffer(old: old, new: new)
        XCTAssertEqual(kinds(d), ["hard root/children[0]/items[0]"])
        XCTAssertEqual(d.changes[0].fields, ["size"])
        let grid = root([list([item("A", size: ["width": 100, "height": 50])], type: "grid")])
        XCTAssertEqual(TreeDiffer(old: old, new: grid).changes.map(\.change), [.hard])
        XCTAssertEqual(TreeDiffer(old: old, new: grid).changes.first?.fields, ["type"])
    }

    func testKeyedMovesDeletesAndInserts() {
        let a = list([], id: "a"), b = list([], id: "b"), c = list([], id: "c"), d = list([], id: "d")
        let diff = TreeDiffer(old: root([a, b, c]), new: root([c, a, d]))
        XCTAssertEqual(diff.changes.map { "\($0.change.rawValue) \($0.id ?? "-")" }, ["deleted b", "moved c", "inserted d"])
        let moved = diff.changes[1]
        XCTAssertEqual(moved.oldIndex, 2)
        XCTAssertEqual(moved.newIndex, 0)
        XCTAssertEqual(diff.changes[0].path, "root/children[1]")
    }

    func testActionChangeIsSoftAndJSONShape() {
        let old = root([list([item("A", id: "m1", action: "movie:1")])])
        let new = root([list([item("A", id: "m1", action: "movie:2")])])
        let d = TreeDiffer(old: old, new: new)
        XCTAssertEqual(d.changes.count, 1)
        XCTAssertEqual(d.changes[0].json.serialized(pretty: false),
                       #"{"id":"m1","path":"root/children[0]/items[0]","change":"soft","node":"item","type":"movie","old_index":0,"new_index":0,"fields":["action"]}"#)
    }

    func testHeaderAppearingIsAnInsert() {
        var new = list([item("A")]).object!
        new["header"] = .object(["type": "label", "id": "h", "view": "Label", "props": ["text": "Hi"]])
        let d = TreeDiffer(old: root([list([item("A")])]), new: root([.object(new)]))
        XCTAssertEqual(kinds(d), ["inserted root/children[0]/header"])
    }

    func testGraphDiff() {
        let e1: JSONValue = ["from": "home", "to": "lounge", "step": "premium", "presentation": "flow"]
        let e2: JSONValue = ["from": "home", "to": "upgrade", "step": "premium", "presentation": "flow"]
        let g = GraphDiff(old: ["edges": [e1]], new: ["edges": [e2]])
        XCTAssertEqual(g.gained, ["home --premium--> upgrade (flow)"])
        XCTAssertEqual(g.lost, ["home --premium--> lounge (flow)"])
        XCTAssertFalse(GraphDiff(old: ["edges": [e1]], new: ["edges": [e1]]).changed)
    }

    /// Items without a `kind` (Spots' items often have none) are items, named by their place
    /// in their collection, not "component ?".
    func testItemsWithoutKindAreNamedAsItems() {
        func plain(_ title: String) -> JSONValue { ["view": "ListItem", "props": ["title": .string(title)]] }
        let old = root([list([plain("A"), plain("B")])])
        let new = root([list([plain("A"), plain("B2"), plain("C")])])
        let d = TreeDiffer(old: old, new: new)
        XCTAssertEqual(d.changes.map(\.line), [
            "soft     item 1 of list 'watched' (root/children[0]/items[1]): props.title",
            "inserted item 2 of list 'watched' (root/children[0]/items[2])",
        ])
        XCTAssertEqual(d.changes.map(\.node), ["item", "item"])
        XCTAssertEqual(d.changes[1].json["node"], "item")
        let gone = TreeDiffer(old: old, new: root([list([plain("A")])]))
        XCTAssertEqual(gone.changes.map(\.line), ["deleted  item 1 of list 'watched' (root/children[0]/items[1])"])
        // A collection without an id is named by its type; components stay components.
        let bare: JSONValue = ["type": "carousel", "view": "CarouselView", "items": [plain("A")]]
        XCTAssertEqual(TreeDiffer(old: bare, new: ["type": "carousel", "view": "CarouselView", "items": []]).changes.map(\.line),
                       ["deleted  item 0 of carousel (root/items[0])"])
        XCTAssertEqual(TreeDiffer(old: root([]), new: root([list([])])).changes.map(\.line),
                       ["inserted component 'watched' (root/children[0])"])
    }

    func testLongestIncreasingIsDeterministic() {
        XCTAssertEqual(SiblingMatch.longestIncreasing([2, 0, 1]), [1, 2])
        XCTAssertEqual(SiblingMatch.longestIncreasing([]), [])
    }
}

extension TreeDifferTests {
    func testItemCountPropFollowsItemsNotAComponentUpdate() {
        let a: JSONValue = ["type": "list", "id": "l", "props": ["item_count": 1, "title": "T"], "items": [["kind": "m", "props": ["title": "A"]]]]
        let b: JSONValue = ["type": "list", "id": "l", "props": ["item_count": 2, "title": "T"], "items": [["kind": "m", "props": ["title": "A"]], ["kind": "m", "props": ["title": "B"]]]]
        XCTAssertEqual(TreeDiffer(old: a, new: b).changes.map(\.change), [.inserted])
        // A count that does not match the items is a prop like any other.
        let c: JSONValue = ["type": "list", "id": "l", "props": ["item_count": 7, "title": "T"], "items": [["kind": "m", "props": ["title": "A"]], ["kind": "m", "props": ["title": "B"]]]]
        XCTAssertEqual(TreeDiffer(old: a, new: c).changes.map(\.change), [.soft, .inserted])
    }
}

extension TreeDifferTests {
    /// Change lines and graph lines print names and values from the project through TextEscape:
    /// an id with CR LF cannot start a line of its own, ESC cannot drive the terminal.
    func testLinesEscapeControlCharacters() {
        let c = TreeChange(node: "item", id: "m1\r\nsoft     item FORGED", path: "root/items[0]", change: .soft, type: "movie",
                           fields: ["props.ti\u{1B}[2Jtle"], reason: "rule \u{9B}x")
        XCTAssertEqual(c.line, #"soft     item 'm1\r\nsoft     item FORGED' (root/items[0]): props.ti\u{1B}[2Jtle — rule \u{9B}x"#)
        let unkeyed = TreeChange(node: "item", id: nil, path: "root/items[1]", change: .inserted, type: "mo\u{202E}vie")
        XCTAssertEqual(unkeyed.line, #"inserted item mo\u{202E}vie (root/items[1])"#)
        let e: JSONValue = ["from": "home\u{1B}[31m", "to": "other\u{07}", "step": "go", "presentation": "push"]
        XCTAssertEqual(GraphDiff(old: ["edges": []], new: ["edges": [e]]).lines, [#"graph + home\u{1B}[31m --go--> other\u{07} (push)"#])
        // JSON keeps the text as it is; the writer escapes it.
        XCTAssertEqual(c.json["id"]?.string, "m1\r\nsoft     item FORGED")
        XCTAssertTrue(c.json.serialized(pretty: false).contains(#""id":"m1\r\nsoft     item FORGED""#))
    }
}

extension TreeDifferTests {
    /// A deletion names its place in the old tree, also below a node that moved (it named the
    /// parent's new place with the old index, a place in neither tree).
    func testDeletionBelowAMovedNodeNamesTheOldPath() {
        let a = list([item("A"), item("B")], id: "a"), b = list([], id: "b")
        var headed = a.object!
        headed["header"] = .object(["type": "label", "id": "h", "view": "Label", "props": ["text": "Hi"]])
        let old = root([b, .object(headed)])
        let new = root([list([item("A")], id: "a"), b])
        XCTAssertEqual(kinds(TreeDiffer(old: old, new: new)), [
            "moved root/children[0]",
            "deleted root/children[1]/header",
            "deleted root/children[1]/items[1]",
        ])
    }
}
