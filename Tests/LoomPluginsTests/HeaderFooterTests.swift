import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LoomTesting
import XCTest

/// A collection's header and footer: resolved as components (with their rules), handed to the
/// builder resolved, kept in output and in the graph; `style` and item `size` kept; unused keys
/// reported where they are written (Tests/Fixtures/headers).
final class HeaderFooterTests: XCTestCase {
    static let repo: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let project = repo + "/Tests/Fixtures/headers"
    static let shop = project + "/screens/shop.json"

    func workspace() throws -> Workspace {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = Self.project
        o.standardPlugins = Self.repo + "/Plugins"
        let ws = try Workspace(options: o)
        XCTAssertFalse(ws.loadDiagnostics.hasErrors, "\(ws.loadDiagnostics.items)")
        return ws
    }

    func resolve(_ ws: Workspace, user: String, explain: Bool = false) throws -> (Resolution, Diagnostics) {
        let loaded = ws.screen(file: Self.shop)
        let screen = try XCTUnwrap(loaded.screen, "\(loaded.diagnostics.items)")
        let profile = try ws.users.user(named: user, context: [], now: nil).get()
        let r = ws.resolve(screen, check: try XCTUnwrap(loaded.check), user: profile, explain: explain)
        var all = loaded.diagnostics
        all.append(contentsOf: r.diagnostics)
        return (r, all)
    }

    func node(_ r: Resolution, _ id: String) throws -> ResolvedNode {
        var found: ResolvedNode?
        r.tree?.walk { if $0.id == id { found = $0 } }
        return try XCTUnwrap(found, "no node #\(id)")
    }

    func prop(_ n: ResolvedNode, _ key: String) -> JSONValue? { n.props[key] }

    func testHeaderAndFooterReachTheBuilderResolved() throws {
        let ws = try workspace()
        let (gold, d) = try resolve(ws, user: "gold")
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        let deals = try node(gold, "deals")
        XCTAssertEqual(deals.header?.id, "gold_banner")
        XCTAssertEqual(deals.header?.view, "Label")
        XCTAssertEqual(deals.footer?.id, "see_all")
        XCTAssertEqual(prop(deals, "header_view"), .string("Label"))
        XCTAssertEqual(prop(deals, "header_text"), .string("Gold deals"))
        XCTAssertEqual(prop(deals, "footer_view"), .string("Button"))
        XCTAssertEqual(prop(deals, "footer_action"), .string("offers"))
        // The header's path is under its collection.
        XCTAssertEqual(deals.header?.path, "root/children[0]/header")
    }

    func testAHeaderHiddenByItsRuleIsNilForTheBuilderAndAbsentFromOutput() throws {
        let ws = try workspace()
        let (free, _) = try resolve(ws, user: "free")
        let deals = try node(free, "deals")
        XCTAssertNil(deals.header)
        XCTAssertNil(prop(deals, "header_view"))
        XCTAssertEqual(prop(deals, "footer_view"), .string("Button"))
        let json = TreeOutput.json(try XCTUnwrap(free.tree))
        let text = json.serialized(pretty: false)
        XCTAssertFalse(text.contains("gold_banner"), text)
        XCTAssertTrue(text.contains(#""footer":{"type":"button","id":"see_all""#), text)
        // With --explain the hidden header appears, marked hidden with why.
        let (explained, _) = try resolve(ws, user: "free", explain: true)
        let header = try XCTUnwrap(try node(explained, "deals").header)
        XCTAssertTrue(header.hidden)
        XCTAssertEqual(header.hiddenReason, #"rule equals{"tier":"gold"} is false"#)
        // ... and the builder still got nil.
        XCTAssertNil(prop(try node(explained, "deals"), "header_view"))
    }

    func testFooterActionsAreGraphEdgesOnlyWhenShown() throws {
        let ws = try workspace()
        let (gold, _) = try resolve(ws, user: "gold")
        let (free, _) = try resolve(ws, user: "free")
        XCTAssertTrue(gold.actions.contains { $0.action == "checkout" && $0.path == "root/children[1]/footer" && $0.gated })
        XCTAssertTrue(gold.actions.contains { $0.action == "offers" && !$0.gated })
        XCTAssertFalse(free.actions.contains { $0.action == "checkout" })
        let loaded = ws.screen(file: Self.shop)
        let graph = ws.navigationGraph(from: loaded.screen, user: try ws.users.user(named: "gold", context: [], now: nil).get())
        XCTAssertTrue(graph.graph.edges.contains { $0.step == "checkout" }, graph.text)
        XCTAssertTrue(graph.graph.edges.contains { $0.step == "offers" }, graph.text)
        let freeGraph = ws.navigationGraph(from: loaded.screen, user: try ws.users.user(named: "free", context: [], now: nil).get())
        XCTAssertFalse(freeGraph.graph.edges.contains { $0.step == "checkout" }, freeGraph.text)
    }

    func testStyleSizeAndUndeclaredMetaAreKept() throws {
        let ws = try workspace()
        let (gold, _) = try resolve(ws, user: "gold")
        let deals = try node(gold, "deals")
        XCTAssertEqual(deals.style, .string("card"))
        XCTAssertEqual(prop(deals, "style_name"), .string("card"))  // node.style for builders
        XCTAssertEqual(prop(deals, "heights"), .array([.int(80), .int(96)]))  // item.size for builders
        XCTAssertEqual(deals.items?.first?.size, .object(["width": .int(120), "height": .int(80)]))
        XCTAssertEqual(try node(gold, "page").style, .array([.string("page"), .string("dark")]))
        let cart = try node(gold, "cart")
        XCTAssertEqual(cart.extraMeta, .object(["badge": .string("3")]))
        let json = TreeOutput.json(cart).serialized(pretty: false)
        XCTAssertTrue(json.contains(#""extra_meta":{"badge":"3"},"style":{"corner_radius":8}"#), json)
        let dealsJSON = TreeOutput.json(deals).serialized(pretty: false)
        XCTAssertTrue(dealsJSON.contains(#""size":{"width":120,"height":80}"#), dealsJSON)
        let text = TreeOutput.text(gold, style: Style(color: false))
        XCTAssertTrue(text.contains("├─ header: label #gold_banner  Label"), text)
        XCTAssertTrue(text.contains("└─ footer: button #see_all  Button  title=\"See all\"  → offers"), text)
        XCTAssertTrue(text.contains("style: \"card\""), text)
        XCTAssertTrue(text.contains("extra meta: {\"badge\":\"3\"}"), text)
    }

    func testUnusedKeysAreLocatedWarnings() throws {
        let ws = try workspace()
        let (_, d) = try resolve(ws, user: "gold")
        let lines = d.items.map { "\($0.location?.description ?? ""): \($0.severity.rawValue): \($0.message)" }
        let file = Self.shop
        XCTAssertTrue(lines.contains("\(file):19:36: warning: unknown key 'subtitel' in item (not used by the host); did you mean 'subtitle'?"), "\(lines)")
        XCTAssertTrue(lines.contains("\(file):20:74: warning: unknown key 'colour' in component (not used by the host)"), "\(lines)")
        XCTAssertTrue(lines.contains("\(file):15:64: warning: unknown meta key 'badge' for 'list'"), "\(lines)")
    }

    func testHeaderOnANonCollectionIsAWarningAndHeaderRulesAndTypesAreChecked() throws {
        let ws = try workspace()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-headers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bad.json")
        try #"""
        {"screen": "bad", "root": {"type": "stack", "children": [
          {"type": "label", "meta": {"text": "x"}, "header": {"type": "label", "meta": {"text": "h"}}},
          {"type": "list", "header": {"type": "lable"}, "footer": {"type": "label", "rule": "no_such_rule"}, "items": []}
        ]}}
        """#.write(to: file, atomically: true, encoding: .utf8)
        let loaded = ws.screen(file: file.path)
        let messages = loaded.diagnostics.items.map { "\($0.location.map { "\($0.line):\($0.column)" } ?? ""): \($0.message)" }
        XCTAssertTrue(messages.contains { $0.hasPrefix("2:54: 'label' is not a collection; its \"header\" is ignored") }, "\(messages)")
        // Only keys a component and an item share: a type that is neither is reported as both (Spots' item-style header).
        XCTAssertTrue(messages.contains { $0.hasPrefix("3:39: unknown header type 'lable' of 'list'") && $0.contains("did you mean 'label'") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.hasPrefix("3:85: unknown rule 'no_such_rule'") }, "\(messages)")
    }

    func testSnapshotsHoldHeaderFooterStyleAndSizeAndDiffThem() throws {
        let temp = NSTemporaryDirectory() + "loom-headers-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: temp) }
        try FileManager.default.copyItem(atPath: Self.project, toPath: temp)
        var o = ScenarioOptions()
        o.project = temp
        o.jobs = 1
        o.standardPlugins = Self.repo + "/Plugins"
        let first = ScenarioRunner.run(o)
        XCTAssertEqual(first.failed, 0, first.results.compactMap(\.message).joined(separator: "\n"))
        let gold = try String(contentsOfFile: temp + "/scenarios/__snapshots__/shop/shop_per_segment_gold.snap", encoding: .utf8)
        XCTAssertTrue(gold.contains("\n    header: label #gold_banner Label {\"text\":\"Gold deals\"}\n"), gold)
        XCTAssertTrue(gold.contains("\n    footer: button #see_all Button {\"title\":\"See all\"} → offers\n"), gold)
        XCTAssertTrue(gold.contains(" style \"card\"\n"), gold)
        XCTAssertTrue(gold.contains(#"ListView {"#) && gold.contains(#"} style {"corner_radius":8} extra_meta {"badge":"3"}"#), gold)
        XCTAssertTrue(gold.contains(#"• item - "#) == false && gold.contains(#" size {"height":80,"width":120} → product:1"#), gold)
        let free = try String(contentsOfFile: temp + "/scenarios/__snapshots__/shop/shop_per_segment_free.snap", encoding: .utf8)
        XCTAssertFalse(free.contains("gold_banner"), free)
        // Recorded snapshots read back equal (the lines parse), and a changed header is a node diff.
        XCTAssertEqual(ScenarioRunner.run(o).failed, 0)
        let screen = temp + "/screens/shop.json"
        try String(contentsOfFile: screen, encoding: .utf8).replacingOccurrences(of: "Gold deals", with: "Gold offers")
            .write(toFile: screen, atomically: true, encoding: .utf8)
        let changed = ScenarioRunner.run(o)
        let failed = try XCTUnwrap(changed.results.first { $0.name == "shop per segment [gold]" })
        XCTAssertEqual(failed.status, .failed)
        let message = failed.message ?? ""
        XCTAssertTrue(message.contains("~ changed page/deals/gold_banner: props.text \"Gold deals\" → \"Gold offers\""), message)
        XCTAssertEqual(changed.results.first { $0.name == "shop per segment [free]" }?.status, .passed)
    }
}
