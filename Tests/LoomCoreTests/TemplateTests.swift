import XCTest
import OrderedCollections
@testable import LoomCore

/// Expressions (`$expr`, `$format`, `$bind`) and template expansion (`$each`, `$template`),
/// including where each error is located (docs/data.md).
final class TemplateTests: XCTestCase {
    let r: JSONValue = ["id": 7, "name": "Curry Corner", "eta": 20, "rating": 4.5, "open": true, "price": 12.5, "tags": ["hot", "veg"]]

    func scope() -> TemplateScope {
        TemplateScope(roots: ["params": ["id": "9"]]).binding("r", to: r)
    }

    func value(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue? {
        switch TemplateExpression.parse(text).flatMap({ $0.evaluate(in: scope()) }) {
        case .success(let v): return v
        case .failure(let f):
            XCTFail("\(text): \(f.message) at \(f.offset)", file: file, line: line)
            return nil
        }
    }

    func failure(_ text: String) -> TemplateExpression.Failure? {
        switch TemplateExpression.parse(text).flatMap({ $0.evaluate(in: scope()) }) {
        case .success: return nil
        case .failure(let f): return f
        }
    }

    func testArithmeticComparisonLogicAndStrings() {
        XCTAssertEqual(value("r.eta * 2 + 1"), .int(41))
        XCTAssertEqual(value("r.price * 2"), .double(25))
        XCTAssertEqual(value("7 / 2"), .double(3.5))
        XCTAssertEqual(value("8 / 2"), .int(4))
        XCTAssertEqual(value("-(r.eta - 25) % 3"), .int(2))
        XCTAssertEqual(value("r.rating >= 4.5 and not (r.eta > 30)"), .bool(true))
        XCTAssertEqual(value("r.open && r.eta < 10 || r.name == 'Curry Corner'"), .bool(true))
        XCTAssertEqual(value("r.open ? 'Open' : 'Closed'"), .string("Open"))
        XCTAssertEqual(value("r.name + ' · ' + r.eta + ' min'"), .string("Curry Corner · 20 min"))
        XCTAssertEqual(value("'it\\'s ' + upper(r.tags[1])"), .string("it's VEG"))
        XCTAssertEqual(value("fixed(r.price, 2)"), .string("12.50"))
        XCTAssertEqual(value("fixed(-0.004, 2)"), .string("0.00"))
        XCTAssertEqual(value("round(r.rating)"), .int(5))
        XCTAssertEqual(value("len(r.tags) + len(r.name)"), .int(14))
        XCTAssertEqual(value("max(r.eta, 3) == 20"), .bool(true))
        XCTAssertEqual(value("params.id"), .string("9"))
        XCTAssertEqual(value("9223372036854775807 + 1"), .double(9223372036854775808))
    }

    func testErrorsAreLocatedInTheString() {
        XCTAssertEqual(failure("r.eta * (2 +"), .init("expected a value, found the end of the expression", at: 12))
        XCTAssertEqual(failure("r.nmae")?.offset, 0)
        XCTAssertTrue(failure("r.nmae")!.message.contains("did you mean 'name'"))
        XCTAssertEqual(failure("1 + rr.eta")?.offset, 4)
        XCTAssertTrue(failure("1 + rr.eta")!.message.contains("unknown name 'rr'"))
        XCTAssertEqual(failure("r.eta = 3")?.offset, 6)
        XCTAssertEqual(failure("r.name * 2")?.offset, 7)
        XCTAssertEqual(failure("r.eta / 0")?.offset, 6)
        XCTAssertEqual(failure("\"x\"")?.offset, 0)
        XCTAssertEqual(failure("r.eta ? 1 : 2")?.message, "a condition is a boolean, found a number")
        XCTAssertEqual(failure("fixd(1, 2)")?.offset, 0)
        XCTAssertEqual(failure("fixed(1)")?.message, "fixed takes 2 arguments, found 1")
        XCTAssertEqual(failure("'open")?.offset, 0)
        XCTAssertEqual(failure("r.tags[5]")?.offset, 0)
    }

    func testBoundedInLengthAndDepth() {
        let deep = String(repeating: "(", count: 200) + "1" + String(repeating: ")", count: 200)
        XCTAssertTrue(failure(deep)!.message.contains("nests deeper than"))
        let nots = String(repeating: "not ", count: 500) + "true"
        XCTAssertTrue(failure(nots)!.message.contains("nests deeper than"))
        let long = String(repeating: "1+", count: 3000) + "1"
        XCTAssertTrue(failure(long)!.message.contains("at most 4096 bytes"))
    }

    func testFormat() {
        func format(_ s: String) -> String? {
            switch TemplateFormat.parse(s).flatMap({ TemplateFormat.evaluate($0, in: scope()) }) {
            case .success(let t): return t
            case .failure: return nil
            }
        }
        XCTAssertEqual(format("{r.eta} min · {r.rating}"), "20 min · 4.5")
        XCTAssertEqual(format("{{literal}} {r.eta * 1.0}"), "{literal} 20")
        XCTAssertEqual(format("{r.open ? 'a}b' : 'c'}"), "a}b")
        if case .failure(let f) = TemplateFormat.parse("ok {r.eta") { XCTAssertEqual(f.offset, 3) } else { XCTFail() }
        if case .failure(let f) = TemplateFormat.parse("{r.eta} {r.eta +}") { XCTAssertEqual(f.offset, 16) } else { XCTFail() }
    }

    // MARK: Expansion

    func expand(_ screen: String, data: String, templates: String = "{}") -> (JSONValue?, [String]) {
        let doc = try! JSONReader.parse(Array(screen.utf8), file: "s.json")
        let d = try! JSONReader.parse(Array(data.utf8), file: "d.json")
        let t = try! JSONReader.parse(Array(templates.utf8), file: "loom.json")
        var diags = Diagnostics()
        let named = NamedTemplates.parse(t.root, in: t, diagnostics: &diags)
        let (out, ed) = TemplateExpander.expand(doc, data: ["rs": DataValue(node: d.root, file: "d.json")], templates: named,
                                                params: [:], limits: .standard)
        diags.append(contentsOf: ed)
        return (out?.root.plain, diags.items.map(\.description))
    }

    let rs = #"[{"id": 1, "name": "A", "open": true, "dishes": [{"n": "x"}, {"n": "y"}]}, {"id": 2, "name": "B", "open": false, "dishes": []}]"#

    func testEachNestedWithScopeAndIDs() {
        let screen = #"""
        {"root": {"type": "view", "id": "top", "children": [
          {"type": "label", "id": "head"},
          {"$each": "rs", "as": "r", "template": {"type": "view", "id": {"$format": "r-{r.id}"}, "rule": {"equals": {"r.open": true}},
            "children": {"$each": "r.dishes", "as": "d", "template": {"type": "label", "id": {"$expr": "'d-' + r.id + '-' + d.n"}, "meta": {"text": {"$bind": "d.n"}}}}}}
        ]}}
        """#
        let (out, diags) = expand(screen, data: rs)
        XCTAssertEqual(diags, [])
        let children = out?["root"]?["children"]?.array
        XCTAssertEqual(children?.map { $0["id"] }, ["head", "r-1", "r-2"])
        XCTAssertEqual(children?[1]["children"]?.array?.map { $0["id"] }, ["d-1-x", "d-1-y"])
        XCTAssertEqual(children?[1]["children"]?.array?.first?["meta"], ["text": "x"])
        XCTAssertEqual(children?[2]["children"], .array([]))
        // The element, for the node's rule only.
        XCTAssertEqual(children?[1][TemplateExpander.scopeKey]?["r.open"], .bool(true))
        XCTAssertNil(children?[1]["children"]?.array?.first?[TemplateExpander.scopeKey])
        // A nested element's sources go through its outer element: d is r.dishes[0] of rs[0].
        XCTAssertEqual(children?[1]["children"]?.array?.first?[TemplateExpander.boundKey]?["meta.text"], "rs[0].dishes[0].n")
        // A meta object is no node: its bindings belong to the node holding it.
        XCTAssertNil(children?[1]["children"]?.array?.first?["meta"]?[TemplateExpander.boundKey])
    }

    func testNamedTemplateDeepMergeOverridesWin() {
        let templates = #"{"card": {"type": "label", "id": {"$format": "c-{r.id}"}, "meta": {"text": {"$bind": "r.name"}, "kind": "card", "size": {"w": 1, "h": 2}}}}"#
        let screen = #"{"root": {"type": "view", "children": {"$each": "rs", "as": "r", "template": {"$template": "card", "meta": {"kind": "wide", "size": {"h": 3}}}}}}"#
        let (out, diags) = expand(screen, data: rs, templates: templates)
        XCTAssertEqual(diags, [])
        XCTAssertEqual(out?["root"]?["children"]?.array?.first, [
            "type": "label", "id": "c-1", "meta": ["text": "A", "kind": "wide", "size": ["w": 1, "h": 3]],
            // Where each bound value came from (--explain): the field as written → its source.
            TemplateExpander.boundKey: ["id": #"$format "c-{r.id}" (rs[0].id)"#, "meta.text": "rs[0].name"],
        ])
    }

    func testOneLocatedErrorEach() {
        // A template without an id binding.
        var (out, diags) = expand(#"{"root": {"type": "view", "children": {"$each": "rs", "as": "r", "template": {"type": "label", "id": "x"}}}}"#, data: rs)
        XCTAssertEqual(diags.count, 1)
        XCTAssertTrue(diags[0].hasPrefix("s.json:1:102: error: a template's \"id\" comes from a $bind"), diags[0])
        // A binding to a missing field: once, at its column in the string, however many elements.
        (out, diags) = expand(#"{"root": {"type": "view", "children": {"$each": "rs", "as": "r", "template": {"type": "label", "id": {"$bind": "r.nam"}}}}}"#, data: rs)
        XCTAssertEqual(diags.count, 1)
        XCTAssertTrue(diags[0].hasPrefix("s.json:1:113: error: $bind: r has no field 'nam'; did you mean 'name'?"), diags[0])
        XCTAssertEqual(out?["root"]?["children"], .array([]))
        // Duplicate ids.
        (_, diags) = expand(#"{"root": {"type": "view", "id": "v-1", "children": {"$each": "rs", "as": "r", "template": {"type": "label", "id": {"$format": "v-{r.id}"}}}}}"#, data: rs)
        XCTAssertEqual(diags.count, 1)
        XCTAssertTrue(diags[0].contains("id 'v-1' of element 0 of rs is already used in the screen"), diags[0])
        // Not a list; unknown template.
        (_, diags) = expand(#"{"root": {"type": "view", "children": {"$each": "rs[0]", "as": "r", "template": {"type": "label", "id": {"$bind": "r.name"}}}}}"#, data: rs)
        XCTAssertTrue(diags.first?.contains("rs[0] is an object, not a list") == true, "\(diags)")
        (_, diags) = expand(#"{"root": {"type": "view", "children": {"$each": "rs", "as": "r", "template": {"$template": "crad"}}}}"#, data: rs, templates: #"{"card": {"type": "label"}}"#)
        XCTAssertTrue(diags.first?.contains("unknown template 'crad'; did you mean 'card'?") == true, "\(diags)")
    }

    func testOtherDollarKeysAreKeptAndNearMissesWarned() {
        let (out, diags) = expand(#"{"root": {"type": "view", "meta": {"$ref": "x", "t": {"$bnd": "r.name"}}, "children": {"$each": "rs", "as": "r", "template": {"type": "label", "id": {"$bind": "r.name"}}}}}"#, data: rs)
        XCTAssertEqual(out?["root"]?["meta"], ["$ref": "x", "t": ["$bnd": "r.name"]])
        XCTAssertEqual(diags, ["s.json:1:55: warning: '$bnd' is not a template key and is kept as written; did you mean '$bind'?"])
        let plain = try! JSONReader.parse(Array(#"{"root": {"type": "view", "meta": {"$ref": "x"}}}"#.utf8), file: "p.json")
        XCTAssertFalse(TemplateExpander.needsExpansion(plain))
    }

    func testExpansionIsBounded() {
        let big = "[" + (0..<2000).map { "{\"id\": \($0)}" }.joined(separator: ",") + "]"
        let doc = try! JSONReader.parse(Array(#"{"root": {"type": "view", "children": {"$each": "rs", "as": "r", "template": {"type": "label", "id": {"$bind": "r.id"}, "meta": {"a": 1, "b": 2}}}}}"#.utf8), file: "s.json")
        let d = try! JSONReader.parse(Array(big.utf8), file: "d.json")
        // 1 MiB: 16,384 nodes; 2,000 elements of 6 nodes fit; 1 KiB limits (16 nodes) do not.
        let (ok, okd) = TemplateExpander.expand(doc, data: ["rs": DataValue(node: d.root, file: "d.json")], templates: NamedTemplates(), params: [:], limits: FileLimits(megabytes: 1))
        XCTAssertEqual(okd.count, 0)
        XCTAssertEqual(ok?.root.plain["root"]?["children"]?.array?.count, 2000)
        let (none, nd) = TemplateExpander.expand(doc, data: ["rs": DataValue(node: d.root, file: "d.json")], templates: NamedTemplates(), params: [:], limits: FileLimits(maxBytes: 1024))
        XCTAssertNil(none)
        XCTAssertEqual(nd.count, 1)
        XCTAssertTrue(nd.items[0].message.contains("more than 16 nodes"), nd.items[0].message)
    }

    func testNamedTemplateCycleIsAnError() {
        let (_, diags) = expand(#"{"root": {"type": "view", "children": {"$each": "rs", "as": "r", "template": {"$template": "a"}}}}"#, data: rs,
                                templates: #"{"a": {"$template": "b"}, "b": {"$template": "a"}}"#)
        XCTAssertEqual(diags.count, 1)
        XCTAssertTrue(diags[0].contains("more than 16 deep"), diags[0])
    }

    func testSchemaSubset() {
        let schema = try! JSONReader.parse(Array(#"{"type": "array", "items": {"type": "object", "required": ["id"], "additionalProperties": false, "properties": {"id": {"type": "integer"}, "rating": {"type": "number", "maximum": 5}}}}"#.utf8), file: "x.schema.json")
        let (s, sd) = DataSchema.parse(schema)
        XCTAssertEqual(sd.count, 0)
        let data = try! JSONReader.parse(Array("[{\"id\": 1, \"rating\": 4},\n {\"rating\": 7, \"extra\": true}]".utf8), file: "x.json")
        let d = s!.validate(data.root, file: "x.json", path: "xs")
        XCTAssertEqual(d.items.map(\.description), [
            "x.json:2:2: error: xs[1]: missing required field 'id'",
            "x.json:2:13: error: xs[1].rating: 7 is above the maximum 5",
            "x.json:2:16: error: xs[1]: unknown field 'extra' (the schema allows no other fields)",
        ])
        let bad = try! JSONReader.parse(Array(#"{"type": "array", "itmes": {}}"#.utf8), file: "b.schema.json")
        let (none, bd) = DataSchema.parse(bad)
        XCTAssertNil(none)
        XCTAssertEqual(bd.items.first?.description, "b.schema.json:1:19: error: schema keyword 'itmes' is not in the subset the host checks; did you mean 'items'? (docs/data.md, \"Schemas\")")
    }
}
