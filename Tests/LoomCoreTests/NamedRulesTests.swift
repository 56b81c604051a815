@testable import LoomCore
import XCTest

/// Named rules registered into the factory (cycles, unknown names, shadowing located; cached,
/// uncached and explained resolutions agree), root causes first, `reads` declarations.
final class NamedRulesTests: XCTestCase {
    final class Rule: RuleEvaluating, AttributeReading {
        let decide: (UserProfile) -> Result<Bool, BuildFailure>
        let reads: AttributeReads?
        init(reads: AttributeReads? = nil, _ decide: @escaping (UserProfile) -> Result<Bool, BuildFailure>) {
            self.decide = decide
            self.reads = reads
        }
        func check(args: JSONNode?, file: String) -> [String] { [] }
        func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
            decide(context.user)
        }
    }

    final class Builder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: "V", props: .object([:])))
        }
    }

    func factory() throws -> Factory {
        let f = Factory()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        try f.register(RuleRegistration(name: "subscriber", plugin: p, location: at, evaluator: Rule { .success($0.attributes["sub"] == .bool(true)) }))
        try f.register(RuleRegistration(name: "staff", plugin: p, location: at, evaluator: Rule(reads: AttributeReads([.attribute("role")])) { .success($0.attributes["role"] == .string("staff")) }))
        try f.register(RuleRegistration(name: "boom", plugin: p, location: at, evaluator: Rule { _ in .failure(BuildFailure("kaput")) }))
        try f.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: p, location: at, openMeta: true, builder: Builder()))
        try f.register(ComponentRegistration(type: "box", kind: .single, plugin: p, location: at, openMeta: true, builder: Builder()))
        return f
    }

    func sources(_ text: String) throws -> ([NamedRuleSource], Diagnostics) {
        let doc = try JSONReader.parse(Array(text.utf8), file: "loom.json")
        var d = Diagnostics()
        let s = NamedRuleSource.parse(doc.root, in: doc, place: "rules", diagnostics: &d)
        return (s, d)
    }

    func testNamedRulesEvaluateAsTheirExpression() throws {
        let f = try factory()
        let (src, pd) = try sources(#"{"paywalled": {"NOT": "member"}, "member": {"OR": ["subscriber", "staff"]}}"#)
        XCTAssertTrue(pd.isEmpty)
        let d = NamedRules.register(src, into: f, definedIn: "loom.json")
        XCTAssertTrue(d.isEmpty, "\(d.items)")
        let text = """
            {"screen": "s", "root": {"type": "stack", "children": [
              {"type": "box", "id": "body", "rule": {"NOT": "paywalled"}},
              {"type": "box", "id": "wall", "rule": "paywalled"}]}}
            """
        let doc = try JSONReader.parse(Array(text.utf8), file: "s.json")
        let screen = try XCTUnwrap(ScreenParser.parse(doc, defaultID: "s").0)
        let check = ScreenChecker.check(screen, factory: f)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        let cache = ResolutionCache()
        for (attrs, shown) in [(["sub": JSONValue.bool(true)], ["body"]), (["role": .string("staff")], ["body"]), ([:], ["wall"])] {
            let user = UserProfile(name: "u", attributes: .init(uniqueKeysWithValues: attrs.map { ($0.key, $0.value) }))
            for c in [nil, cache, cache] as [ResolutionCache?] {
                let ctx = ResolutionContext(user: user, screenID: "s")
                let r = Resolver(factory: f, screen: screen, check: check, cache: c).resolve(for: user, context: ctx)
                XCTAssertEqual((r.tree?.children ?? []).filter { !$0.hidden }.compactMap(\.id), shown, "\(attrs)")
            }
            let ctx = ResolutionContext(user: user, screenID: "s", explain: true)
            let r = Resolver(factory: f, screen: screen, check: check, cache: cache).resolve(for: user, context: ctx)
            let wall = try XCTUnwrap(r.tree?.children.first { $0.id == "wall" }?.rule)
            XCTAssertEqual(wall.expression, "paywalled")
            XCTAssertEqual(wall.children.first?.expression, "NOT(member)")
            XCTAssertEqual(wall.children.first?.children.first?.children.first?.expression, "OR(subscriber, staff)")
            if attrs.isEmpty {
                // staff declares it reads `role`: the trace says it was missing.
                let or = try XCTUnwrap(wall.children.first?.children.first?.children.first)
                XCTAssertEqual(or.children.map(\.expression), ["subscriber", "staff (role is missing)"])
            }
        }
    }

    func testCyclesUnknownNamesAndShadowingAreLocated() throws {
        let f = try factory()
        let (src, _) = try sources("{\n\"a\": {\"AND\": [\"b\", \"subscriber\"]},\n\"b\": {\"NOT\": \"a\"},\n\"c\": \"suscriber\",\n\"staff\": \"subscriber\",\n\"d\": \"a\"}")
        let d = NamedRules.register(src, into: f, definedIn: "loom.json")
        let text = d.items.map(\.description)
        XCTAssertTrue(text.contains("loom.json:2:1: error: named rule 'a' refers to itself: a → b → a"), "\(text)")
        XCTAssertTrue(text.contains("loom.json:4:6: error: unknown rule 'suscriber' in named rule 'c'; did you mean 'subscriber'?"), "\(text)")
        XCTAssertTrue(text.contains { $0.hasPrefix("loom.json:5:1: error: named rule 'staff' shadows rule 'staff' of plugin p") }, "\(text)")
        XCTAssertEqual(d.items.count, 3, "\(text)")
        // Every rule of the cycle, and those using one, cannot be used: a reference is an error.
        for name in ["a", "b", "c", "d"] {
            let reg = try XCTUnwrap(f.rules[name])
            XCTAssertFalse(reg.evaluator.check(args: nil, file: "s.json").isEmpty, name)
        }
        XCTAssertEqual(f.rules["staff"]?.plugin.name, "p")
    }

    /// A named rule takes no arguments, also when another named rule uses it: arguments given
    /// there are an error at them (they were dropped), and the rule using it cannot be used.
    func testArgumentsGivenToANamedRuleAreAnError() throws {
        let f = try factory()
        let (src, _) = try sources("{\n\"a\": \"subscriber\",\n\"b\": {\"AND\": [{\"a\": {\"x\": 1}}, \"staff\"]},\n\"c\": \"b\"}")
        let d = NamedRules.register(src, into: f, definedIn: "loom.json")
        XCTAssertEqual(d.items.map(\.description), [
            "loom.json:3:21: error: rule 'a' in named rule 'b': a named rule takes no arguments (defined at loom.json:2:1); write it as \"a\"",
        ])
        XCTAssertTrue(f.rules["a"]!.evaluator.check(args: nil, file: "s.json").isEmpty)
        for name in ["b", "c"] {
            XCTAssertFalse(try XCTUnwrap(f.rules[name]).evaluator.check(args: nil, file: "s.json").isEmpty, name)
        }
    }

    func testASelfReferenceIsACycle() throws {
        let f = try factory()
        let (src, _) = try sources(#"{"a": {"OR": ["subscriber", "a"]}}"#)
        let d = NamedRules.register(src, into: f, definedIn: "loom.json")
        XCTAssertEqual(d.items.map(\.message), ["named rule 'a' refers to itself: a → a"])
    }

    func testOperatorsAreNotNames() throws {
        let (src, d) = try sources(#"{"NOT": "subscriber", "ok": "subscriber"}"#)
        XCTAssertEqual(src.map(\.name), ["ok"])
        XCTAssertEqual(d.items.map(\.message), ["'NOT' is an operator, not a rule name"])
    }

    func testRootCausesComeFirstWithTheirConsequences() {
        var d = Diagnostics()
        d.error("unknown rule 'is_subscriber' on component 'label'", at: SourceLocation(file: "a.json", line: 3, column: 1))
        d.error("step 'pay' of flow 'main' enters unknown flow 'paywall'", at: SourceLocation(file: "flows.json", line: 1, column: 1))
        d.warning("something else", at: SourceLocation(file: "b.json", line: 1, column: 1))
        d.error("plugin news (z/plugin.lua:3): syntax", at: SourceLocation(file: "z/plugin.lua", line: 3, column: 0))
        d.markLastErrorAsRootCause(RootCause(plugin: "news", names: LuaStringLiterals.of(#"host.rule("is_subscriber", f) host.flow('paywall', {}) -- "nope""#)))
        XCTAssertEqual(d.sorted.map(\.description), [
            "z/plugin.lua:3: error: plugin news (z/plugin.lua:3): syntax",
            "note: 2 more errors follow from plugin 'news' failing to load",
            "a.json:3:1: error: unknown rule 'is_subscriber' on component 'label'",
            "flows.json:1:1: error: step 'pay' of flow 'main' enters unknown flow 'paywall'",
            "b.json:1:1: warning: something else",
        ])
    }

    func testStringLiterals() {
        let names = LuaStringLiterals.of(#"local a = "x\"y" .. 'z' -- "comment""# + "\n local b = [[long]]")
        XCTAssertEqual(names, [#"x\"y"#, "z", "long"])
    }

    func testReadsDeclarations() throws {
        let args = try JSONReader.parse(Array(#"{"role": "staff", "stickiness": "country"}"#.utf8), file: "a").root
        XCTAssertEqual(try AttributeReads.parse(.string("args")).get().attributes(args: args), ["role", "stickiness"])
        let named = try AttributeReads.parse(.array([.object(["arg": .string("stickiness"), "default": .string("id")])])).get()
        XCTAssertEqual(named.attributes(args: args), ["country"])
        XCTAssertEqual(named.attributes(args: nil), ["id"])
        XCTAssertEqual(try AttributeReads.parse(.array([.string("now")])).get().attributes(args: nil), ["now"])
        guard case .failure = AttributeReads.parse(.int(3)) else { return XCTFail("a number is not a reads declaration") }
        guard case .failure = AttributeReads.parse(.array([.object(["arg": .string("x"), "dflt": .string("id")])])) else { return XCTFail("unknown key") }
    }
}
