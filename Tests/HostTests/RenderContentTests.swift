import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// `host render`'s styled look (content and styles) and `host diff --render`'s outlines, end to
/// end on a small food-delivery project built from the built-in components (docs/render.md,
/// docs/diff.md).
final class RenderContentTests: XCTestCase {
    static func screen(carousel: String = #"[{"id": "pizza", "title": "Pizza Pollo", "subtitle": "20 min", "size": {"width": 150, "height": 90}}, {"id": "sushi", "title": "Sushi <Go> & co", "subtitle": "35 min", "size": {"width": 150, "height": 90}}]"#,
                       extra: String = "") -> String {
        """
        {
          "screen": "home",
          "root": {
            "type": "tab_bar", "id": "tabs", "meta": {"selected_index": 0},
            "children": [
              {"type": "navigation", "id": "food_tab",
               "meta": {"title": "Restaurants", "tab_config": {"title": "Food", "icon_name": "fork"}},
               "children": [
                {"type": "stack", "id": "food_stack", "meta": {"spacing": 20},
                 "children": [
                  {"type": "label", "id": "hello", "meta": {"text": "Hungry?"}},
                  {"type": "carousel", "id": "picks", "meta": {"title": "Tonight's picks"}, "constraints": ["height == 90"],
                   "items": \(carousel)},
                  {"type": "button", "id": "order", "meta": {"title": "Order again"}, "action": "order"}\(extra)
                 ]}
               ]},
              {"type": "navigation", "id": "rewards_tab", "rule": {"in": {"tier": ["gold"]}},
               "meta": {"title": "Rewards", "tab_config": {"title": "Rewards", "icon_name": "gift"}},
               "children": [{"type": "label", "id": "points", "meta": {"text": "120 points"}}]}
            ]
          }
        }
        """
    }

    func project(_ files: [String: String] = [:]) throws -> URL {
        let root = try Host.temporaryFolder("render-content")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        var all = [
            "loom.json": #"{"name": "food"}"#,
            "users.json": #"{"gold": {"id": "1", "tier": "gold"}, "free": {"id": "2", "tier": "free"}}"#,
            "styles/button.json": ##"{"background": "#123456", "text_color": "#FEDCBA", "corner_radius": 10, "border_width": 2, "border_color": "#ABCDEF"}"##,
            "screens/home.json": Self.screen(),
        ]
        for (k, v) in files { all[k] = v }
        try Host.write(all, under: root)
        return root
    }

    struct Element {
        var name: String
        var attributes: [String: String]
        var text: String
        var ancestors: [[String: String]]
    }

    /// Elements with their character data and their ancestors' attributes (fails when the SVG is
    /// not well-formed XML).
    func parse(_ svg: String, file: StaticString = #filePath, line: UInt = #line) -> [Element] {
        final class Collector: NSObject, XMLParserDelegate {
            var found: [Element] = []
            var open: [Int] = []
            func parser(_ p: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String]) {
                found.append(Element(name: name, attributes: attributes, text: "", ancestors: open.map { found[$0].attributes }))
                open.append(found.count - 1)
            }
            func parser(_ p: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { open.removeLast() }
            func parser(_ p: XMLParser, foundCharacters s: String) { if let i = open.last { found[i].text += s } }
        }
        let c = Collector()
        let p = XMLParser(data: Data(svg.utf8))
        p.delegate = c
        XCTAssertTrue(p.parse(), "not well-formed XML: \(String(describing: p.parserError))", file: file, line: line)
        return c.found
    }

    /// Each `<text>`'s lines joined by a space (a wrapped title is one entry).
    func texts(_ e: [Element]) -> [String] {
        var out: [String] = []
        for x in e {
            if x.name == "text" { out.append(x.text) } else if x.name == "tspan", !out.isEmpty {
                out[out.count - 1] += (out[out.count - 1].isEmpty ? "" : " ") + x.text
            }
        }
        return out
    }

    func testStyledPictureShowsItemTitlesTabLabelsBarAndCollectionTitles() throws {
        let root = try project()
        for device in ["iphone-se-1st", "iphone-15", "ipad"] {
            let r = try Host.run(["render", "home", "--project", root.path, "--user", "gold", "--device", device])
            assertExit(r, 0)
            let e = parse(r.stdout)
            let t = texts(e)
            for want in ["Hungry?", "Order again", "Pizza Pollo", "20 min", "Sushi <Go> & co", "35 min", "Restaurants", "Tonight's picks",
                         "Food", "Rewards"] {
                XCTAssertTrue(t.contains(want), "\(device): '\(want)' is not drawn as text: \(t)")
            }
            // The selected tab is the first, marked and in the tint.
            let tabs = e.filter { $0.name == "g" && ($0.attributes["class"] ?? "").hasPrefix("tab") && $0.attributes["data-index"] != nil }
            XCTAssertEqual(tabs.map { $0.attributes["class"]! }, ["tab selected", "tab"])
            // The item titles lie inside their items' frames: the item's clip rect holds the text's x.
            XCTAssertEqual(e.filter { $0.name == "text" && $0.attributes["class"] == "title" }.count, 2)
        }
        // Free users have no Rewards tab: no such label.
        let free = try Host.run(["render", "home", "--project", root.path, "--user", "free"])
        assertExit(free, 0)
        XCTAssertFalse(texts(parse(free.stdout)).contains("Rewards"))
    }

    func testStyledPictureAppliesResolvedStylesAndWireKeepsTheWireframe() throws {
        let root = try project()
        let r = try Host.run(["render", "home", "--project", root.path, "--user", "gold"])
        assertExit(r, 0)
        let e = parse(r.stdout)
        // The button's box: the style's background, corner radius and border; its text colour.
        let box = e.first { $0.name == "rect" && $0.ancestors.last?["data-id"] == "order" }
        XCTAssertEqual(box?.attributes["fill"], "#123456")
        XCTAssertEqual(box?.attributes["rx"], "10")
        XCTAssertEqual(box?.attributes["stroke"], "#ABCDEF")
        XCTAssertEqual(box?.attributes["stroke-width"], "2")
        let text = e.first { $0.name == "text" && $0.ancestors.last?["data-id"] == "order" }
        XCTAssertEqual(text?.attributes["fill"], "#FEDCBA")

        let wire = try Host.run(["render", "home", "--project", root.path, "--user", "gold", "--look", "wire"])
        assertExit(wire, 0)
        let w = parse(wire.stdout)
        XCTAssertFalse(texts(w).contains("Pizza Pollo"), "the wireframe draws no item titles")
        let wireBox = w.first { $0.name == "rect" && $0.ancestors.last?["data-id"] == "order" }
        XCTAssertEqual(wireBox?.attributes["fill"], "#123456", "both looks fill the style's background")
        XCTAssertEqual(wireBox?.attributes["stroke"], "#007AFF", "the wireframe keeps the legend's outline")

        let bad = try Host.run(["render", "home", "--project", root.path, "--look", "fancy"])
        assertExit(bad, 64)
    }

    func testMatrixFollowsTheLook() throws {
        let root = try project()
        let r = try Host.run(["render", "home", "--project", root.path, "--matrix", "--users", "gold,free", "--devices", "iphone-15"])
        assertExit(r, 0)
        let t = texts(parse(r.stdout))
        XCTAssertEqual(t.filter { $0 == "Pizza Pollo" }.count, 2, "one per cell")
        XCTAssertEqual(t.filter { $0 == "Rewards" }.count, 1, "only gold's cell has the Rewards tab")
    }

    // MARK: host diff --render

    func diffProject() throws -> URL {
        // New: the carousel's items swapped (moved), Pizza's subtitle changed (updated), a
        // button added (inserted), the label gone (deleted).
        let newScreen = Self.screen(carousel: #"[{"id": "sushi", "title": "Sushi <Go> & co", "subtitle": "35 min", "size": {"width": 150, "height": 90}}, {"id": "pizza", "title": "Pizza Pollo", "subtitle": "15 min", "size": {"width": 150, "height": 90}}]"#,
                                    extra: #", {"type": "button", "id": "track", "meta": {"title": "Track my order"}, "action": "track"}"#)
            .replacingOccurrences(of: #"{"type": "label", "id": "hello", "meta": {"text": "Hungry?"}},"#, with: "")
        return try project(["screens/new.json": newScreen.replacingOccurrences(of: #""screen": "home""#, with: #""screen": "home_new""#)])
    }

    func testDiffPictureOutlinesMatchTheDiffsClassification() throws {
        let root = try diffProject()
        let old = root.appendingPathComponent("screens/home.json").path, new = root.appendingPathComponent("screens/new.json").path
        let out = root.appendingPathComponent("diff.svg")
        let r = try Host.run(["diff", old, new, "--user", "gold", "--format", "json", "--render", "-o", out.path])
        assertExit(r, 1)
        let report = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let changes = ((report["users"] as! [String: Any])["gold"] as! [String: Any])["changes"] as! [[String: Any]]
        XCTAssertFalse(changes.isEmpty)
        let svg = try String(contentsOf: out, encoding: .utf8)
        let outlines = parse(svg).filter { $0.name == "rect" && $0.attributes["class"] == "change" }
        func has(_ change: String, _ side: String, _ path: String) -> Bool {
            outlines.contains { $0.attributes["data-change"] == change && $0.attributes["data-side"] == side && $0.attributes["data-path"] == path }
        }
        var kinds = Set<String>()
        for c in changes {
            let path = c["path"] as! String, change = c["change"] as! String
            // The other tab is not laid out (the selected tab only): nothing there to outline.
            if path.hasPrefix("root/children[1]") { continue }
            switch change {
            case "deleted": XCTAssertTrue(has("deleted", "old", path), "\(c)")
            case "inserted": XCTAssertTrue(has("inserted", "new", path), "\(c)")
            case "moved": XCTAssertTrue(has("moved", "new", path), "\(c)")
            default: XCTAssertTrue(has("updated", "new", path), "\(c)")
            }
            kinds.insert(change == "hard" || change == "soft" ? "updated" : change)
            if let id = c["id"] as? String {
                XCTAssertTrue(outlines.contains { $0.attributes["data-id"] == id }, "\(id) has an outline")
            }
        }
        XCTAssertEqual(kinds, ["deleted", "inserted", "moved", "updated"], "the fixture makes one change of each kind: \(changes)")
        // Every outline is a change of the diff.
        let diffPaths = Set(changes.map { $0["path"] as! String })
        for o in outlines where o.attributes["data-side"] == "new" {
            XCTAssertTrue(diffPaths.contains(o.attributes["data-path"]!), "\(o.attributes)")
        }
        // The legend counts each kind.
        let legend = parse(svg).filter { $0.name == "g" && $0.attributes["class"] == "legend-entry" }
        XCTAssertEqual(legend.map { $0.attributes["data-change"]! }, ["inserted", "deleted", "moved", "updated"])
        XCTAssertTrue(legend.allSatisfy { Int($0.attributes["data-count"]!)! >= 1 })
        // Both versions are drawn, with their content.
        XCTAssertTrue(texts(parse(svg)).contains("Track my order"))
        XCTAssertTrue(texts(parse(svg)).contains("Hungry?"))

        let html = root.appendingPathComponent("diff.html")
        assertExit(try Host.run(["diff", old, new, "--user", "gold", "--render", "-o", html.path]), 1)
        let page = try String(contentsOf: html, encoding: .utf8)
        XCTAssertTrue(page.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(page.contains("data-change=\"inserted\""))
        XCTAssertTrue(page.contains("Sushi &lt;Go&gt; &amp;"), "text is escaped")
    }

    func testDiffRenderUsageErrors() throws {
        let root = try diffProject()
        let old = root.appendingPathComponent("screens/home.json").path, new = root.appendingPathComponent("screens/new.json").path
        assertExit(try Host.run(["diff", old, new, "--user", "gold", "--render"]), 64)
        assertExit(try Host.run(["diff", old, new, "--user", "gold", "--render", "-o", root.appendingPathComponent("d.txt").path]), 64)
        assertExit(try Host.run(["diff", old, new, "--users", "all", "--render", "-o", root.appendingPathComponent("d.svg").path]), 64)
        assertExit(try Host.run(["diff", old, new, "--user", "gold", "-o", root.appendingPathComponent("d.svg").path]), 64)
        // A folder where the picture goes: a located error, exit 2, nothing followed.
        let folder = root.appendingPathComponent("pic.svg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let r = try Host.run(["diff", old, new, "--user", "gold", "--render", "-o", folder.path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("cannot write the picture"), r.transcript)
    }
}
