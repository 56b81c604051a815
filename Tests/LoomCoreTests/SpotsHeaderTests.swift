@testable import LoomCore
import XCTest

/// Spots' item-style headers and footers (ComponentModel.header / .footer are Items): read by
/// their keys and the registered types, checked and resolved as items, and a component-style
/// header still a component. The cached resolution (rule plan, replay) agrees with the live one.
final class SpotsHeaderTests: XCTestCase {
    final class Rule: RuleEvaluating {
        let decide: (RuleSubject) -> Bool
        init(_ decide: @escaping (RuleSubject) -> Bool) { self.decide = decide }
        func check(args: JSONNode?, file: String) -> [String] { [] }
        func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
            .success(decide(subject))
        }
    }

    final class Builder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: request.component.type.capitalized, props: .object([:])))
        }
    }

    final class ItemView: ItemBuilding {
        func build(_ item: Item, context: ResolutionContext) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: "SectionHeaderView", props: .object(["title": item.title.map { .string($0) } ?? .null])))
        }
    }

    func factory() throws -> Factory {
        let f = Factory()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        try f.register(RuleRegistration(name: "yes", plugin: p, location: at, evaluator: Rule { _ in true }))
        try f.register(RuleRegistration(name: "no", plugin: p, location: at, evaluator: Rule { _ in false }))
        // True only for an item: the rule plan must hand an item header's rule the item, as the resolver does.
        try f.register(RuleRegistration(name: "is_item", plugin: p, location: at, evaluator: Rule { s in
            if case .item = s { return true }
            return false
        }))
        try f.register(ComponentRegistration(type: "list", kind: .collection, plugin: p, location: at, openMeta: true, builder: Builder()))
        try f.register(ComponentRegistration(type: "label", kind: .single, plugin: p, location: at, openMeta: true, builder: Builder()))
        try f.register(ItemRegistration(kind: "section_header", plugin: p, location: at, builder: ItemView()))
        return f
    }

    func parse(_ text: String) throws -> Screen {
        let doc = try JSONReader.parse(Array(text.utf8), file: "s.json")
        let (screen, d) = ScreenParser.parse(doc, defaultID: "s")
        XCTAssertFalse(d.hasErrors, "\(d.items)")
        return try XCTUnwrap(screen)
    }

    func testHeadersAreReadByTheirKeysAndTheRegisteredTypes() throws {
        let f = try factory()
        let s = try parse("""
            {"components": [
              {"kind": "list", "header": {"title": "A", "subtitle": "B", "kind": "label"}, "footer": {"title": "No type"}},
              {"kind": "list", "header": {"kind": "section_header", "title": "T"}, "footer": {"kind": "label", "meta": {"text": "x"}}},
              {"kind": "list", "header": {"kind": "list", "items": []}}
            ]}
            """)
        let (a, b, c) = (s.root.children[0], s.root.children[1], s.root.children[2])
        // Item keys (subtitle) make an item even when the kind is also a component type.
        XCTAssertEqual(a.header?.readsAsItem(f)?.kind, "label")
        XCTAssertEqual(a.header?.readsAsItem(f)?.subtitle, "B")
        // No type at all: an item without a kind (the collection's default item view).
        XCTAssertNotNil(a.footer?.readsAsItem(f))
        XCTAssertNil(a.footer?.readsAsItem(f)?.kind)
        // Only shared keys: an item when the kind is no component type, else a component.
        XCTAssertEqual(b.header?.readsAsItem(f)?.kind, "section_header")
        XCTAssertNil(b.footer?.readsAsItem(f))
        XCTAssertEqual(b.footer?.type, "label")
        // Component keys (items): a component.
        XCTAssertNil(c.header?.itemForm)
        // The item reading shares the header's serial and path (what the checker marks, the resolver skips).
        XCTAssertEqual(b.header?.readsAsItem(f)?.serial, b.header?.serial)
        XCTAssertEqual(b.header?.readsAsItem(f)?.path, "components[1]/header")
    }

    func testAnUnknownHeaderKindIsALocatedErrorWithADidYouMean() throws {
        let f = try factory()
        let s = try parse("""
            {"components": [
              {"kind": "list", "header": {"title": "T", "kind": "section_hedaer"}, "items": [{"title": "x"}]}
            ]}
            """)
        let check = ScreenChecker.check(s, factory: f)
        XCTAssertEqual(check.diagnostics.items.map(\.description), [
            "s.json:2:53: error: unknown header type 'section_hedaer' of 'list' at components[0]: neither a component type nor an item view (host.item; Spots reads a header as an item of that kind); did you mean 'section_header'?; the header is hidden",
        ])
        let r = Resolver(factory: f, screen: s, check: check).resolve(for: UserProfile(name: nil, attributes: [:]))
        XCTAssertNil(r.tree?.children.first?.header, "fails closed: the header is hidden")
        XCTAssertEqual(r.tree?.children.first?.items?.count, 1)
    }

    func testItemHeadersResolveAsItemsAndTheCachedResolutionAgrees() throws {
        let f = try factory()
        let s = try parse("""
            {"screen": "s", "root": {"type": "list", "id": "l",
              "header": {"type": "section_header", "title": "Shown", "rule": {"AND": ["yes", "is_item"]}, "action": "more:1"},
              "footer": {"kind": "section_header", "title": "Hidden", "rule": "no"},
              "items": [{"title": "x", "rule": "yes"}]}}
            """)
        let check = ScreenChecker.check(s, factory: f)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        let user = UserProfile(name: "u", attributes: [:])
        let cache = ResolutionCache()
        var texts: [String] = []
        for c in [nil, cache, cache] as [ResolutionCache?] {
            let r = Resolver(factory: f, screen: s, check: check, cache: c).resolve(for: user)
            let tree = try XCTUnwrap(r.tree)
            let h = try XCTUnwrap(tree.header)
            XCTAssertEqual(h.asItem?.kind, "section_header")
            XCTAssertEqual(h.view, "SectionHeaderView")
            XCTAssertEqual(h.action, "more:1", "an item header's action is an action of the tree (a graph edge)")
            XCTAssertNil(tree.footer, "its rule is false")
            XCTAssertEqual(tree.items?.count, 1)
            texts.append(TreeOutput.text(r, style: Style(color: false)))
        }
        XCTAssertEqual(texts[0], """
            screen s  user u
            list #l  List
            ├─ header: • section_header  SectionHeaderView  title="Shown"  → more:1
            └─ • item  ItemView  title="x"

            """)
        XCTAssertEqual(texts[1], texts[0], "cached (miss: rule plan, replay)")
        XCTAssertEqual(texts[2], texts[0], "cached (hit)")
        // JSON: an item object in the header's place; --explain keeps the hidden footer as an item.
        let explained = Resolver(factory: f, screen: s, check: check).resolve(for: user, explain: true)
        let json = TreeOutput.json(try XCTUnwrap(explained.tree), explain: false)
        XCTAssertEqual(json["header"]?.serialized(pretty: false),
                       #"{"kind":"section_header","view":"SectionHeaderView","props":{"title":"Shown"},"action":"more:1"}"#)
        XCTAssertEqual(json["footer"]?.serialized(pretty: false),
                       #"{"kind":"section_header","hidden":true,"title":"Hidden","reason":"rule no is false"}"#)
    }
}
