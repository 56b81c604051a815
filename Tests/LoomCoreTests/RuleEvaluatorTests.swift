@testable import LoomCore
import XCTest

/// AND / OR / NOT short-circuit left to right and fail closed in one evaluator; the cached
/// resolution (rule plan, then replay or a stored tree), the uncached one and `--explain` see the
/// same outcomes, diagnostics and traces.
final class RuleEvaluatorTests: XCTestCase {
    final class Rule: RuleEvaluating {
        let decide: (UserProfile) -> Result<Bool, BuildFailure>
        init(_ decide: @escaping (UserProfile) -> Result<Bool, BuildFailure>) { self.decide = decide }
        func check(args: JSONNode?, file: String) -> [String] { [] }
        func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
            decide(context.user)
        }
    }

    final class Builder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: request.component.type == "box" ? "Box" : "Stack", props: .object([:])))
        }
    }

    static let screenText = """
        {"screen": "s", "root": {"type": "stack", "children": [
          {"type": "box", "id": "a", "rule": "yes"},
          {"type": "box", "id": "b", "rule": "no"},
          {"type": "box", "id": "c", "rule": {"AND": ["yes", "no", "boom"]}},
          {"type": "box", "id": "d", "rule": {"OR": ["no", "boom", "yes"]}},
          {"type": "box", "id": "e", "rule": {"NOT": "boom"}},
          {"type": "box", "id": "f", "rule": {"OR": ["yes", "boom"]}},
          {"type": "box", "id": "g", "rule": {"NOT": {"AND": ["gold", {"NOT": "no"}]}}},
          {"type": "box", "id": "h", "rule": "spent"},
          {"type": "box", "id": "i", "rule": {"AND": ["yes", "spent"]}},
          {"type": "list", "id": "list", "items": [{"title": "One", "rule": "yes"}, {"title": "Two", "rule": {"NOT": "gold"}}]}
        ]}}
        """

    func setUpScreen() throws -> (Factory, Screen, ScreenCheck) {
        let factory = Factory()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        let rules: [String: (UserProfile) -> Result<Bool, BuildFailure>] = [
            "yes": { _ in .success(true) },
            "no": { _ in .success(false) },
            "boom": { _ in .failure(BuildFailure("kaput")) },
            "spent": { _ in .failure(BuildFailure("over its limit", notCalledAgain: true)) },
            "gold": { u in .success(u.attributes["tier"] == .string("gold")) },
        ]
        for (name, decide) in rules.sorted(by: { $0.key < $1.key }) {
            try factory.register(RuleRegistration(name: name, plugin: p, location: at, evaluator: Rule(decide)))
        }
        try factory.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: p, location: at, openMeta: true, builder: Builder()))
        try factory.register(ComponentRegistration(type: "box", kind: .single, plugin: p, location: at, openMeta: true, builder: Builder()))
        try factory.register(ComponentRegistration(type: "list", kind: .collection, plugin: p, location: at, openMeta: true, builder: Builder()))
        let doc = try JSONReader.parse(Array(Self.screenText.utf8), file: "s.json")
        let (parsed, d) = ScreenParser.parse(doc, defaultID: "s")
        let screen = try XCTUnwrap(parsed, "\(d.items)")
        let check = ScreenChecker.check(screen, factory: factory)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        return (factory, screen, check)
    }

    struct Outcome: Equatable {
        var shown: [String]
        var items: [String]
        var traces: [String: RuleTrace]
        var diagnostics: [String]
        var pluginCalls: Int
    }

    func outcome(_ r: Resolution, _ ctx: ResolutionContext) -> Outcome {
        let kids = (r.tree?.children ?? []).filter { !$0.hidden }
        var traces: [String: RuleTrace] = [:]
        for k in kids { traces[k.id ?? "?"] = k.rule }
        let items = kids.flatMap { ($0.items ?? []).filter { !$0.hidden }.compactMap(\.title) }
        return Outcome(
            shown: kids.compactMap(\.id), items: items, traces: traces, diagnostics: r.diagnostics.items.map(\.description),
            pluginCalls: ctx.pluginCalls)
    }

    func testCachedUncachedAndExplainedResolutionsAgree() throws {
        let (factory, screen, check) = try setUpScreen()
        let users = [
            UserProfile(name: "gold", attributes: ["tier": .string("gold")]),
            UserProfile(name: "free", attributes: ["tier": .string("free")]),
        ]
        let cache = ResolutionCache()
        for user in users {
            var seen: [Outcome] = []
            // Without a cache (the live evaluator), then with one: a miss (rule plan, replay), a hit.
            for c in [nil, cache, cache] as [ResolutionCache?] {
                let ctx = ResolutionContext(user: user, screenID: "s")
                let r = Resolver(factory: factory, screen: screen, check: check, cache: c).resolve(for: user, context: ctx)
                seen.append(outcome(r, ctx))
            }
            let ctx = ResolutionContext(user: user, screenID: "s", explain: true)
            let explained = Resolver(factory: factory, screen: screen, check: check, cache: cache).resolve(for: user, context: ctx)
            var e = outcome(explained, ctx)
            XCTAssertEqual(seen[0], seen[1], "uncached and cached (miss) for \(user.name!)")
            XCTAssertEqual(seen[0], seen[2], "uncached and cached (hit) for \(user.name!)")
            XCTAssertEqual(e.shown, seen[0].shown)
            XCTAssertEqual(e.items, seen[0].items)
            XCTAssertEqual(e.diagnostics, seen[0].diagnostics)
            XCTAssertEqual(e.pluginCalls, seen[0].pluginCalls)
            e.traces = [:]

            let isGold = user.name == "gold"
            XCTAssertEqual(seen[0].shown, isGold ? ["a", "f", "list"] : ["a", "f", "g", "list"])
            XCTAssertEqual(seen[0].items, isGold ? ["One"] : ["One", "Two"])
            // yes, no, yes+no (AND stops before boom), no+boom (OR fails closed, yes skipped),
            // boom, yes (OR stops), gold(+no for gold), spent, yes+spent, the items' yes and gold.
            XCTAssertEqual(seen[0].pluginCalls, isGold ? 15 : 14)
            XCTAssertEqual(seen[0].diagnostics, [
                "s.json:5:52: error: rule 'boom' of plugin p failed: kaput; the component 'box' 'd' it guards is hidden",
                "s.json:6:46: error: rule 'boom' of plugin p failed: kaput; the component 'box' 'e' it guards is hidden",
                "s.json:9:38: error: rule 'spent' of plugin p was not called again in this resolution after exceeding its limit: 2 more uses failed closed (hidden)",
            ])
            // A visible component's trace, replayed or evaluated: OR(yes, boom) is true, boom skipped.
            let f = try XCTUnwrap(seen[1].traces["f"] ?? nil)
            XCTAssertEqual(f.value, true)
            XCTAssertEqual(f.children.map(\.value), [true, nil])
            XCTAssertEqual(f.children.map(\.skipped), [false, true])

            // --explain: the hidden components keep their traces.
            let nodes = explained.tree?.children ?? []
            let d = try XCTUnwrap(nodes.first { $0.id == "d" }?.rule)
            XCTAssertEqual(d.expression, "OR(no, boom, yes)")
            XCTAssertNil(d.value)
            XCTAssertEqual(d.error, "a sub-rule failed")
            XCTAssertEqual(d.children.map(\.expression), ["no", "boom", "yes"])
            XCTAssertEqual(d.children.map(\.value), [false, nil, nil])
            XCTAssertEqual(d.children.map(\.error), [nil, "kaput", nil])
            XCTAssertEqual(d.children.map(\.skipped), [false, false, true])
            let eTrace = try XCTUnwrap(nodes.first { $0.id == "e" }?.rule)
            XCTAssertEqual(eTrace.error, "its rule failed")
            XCTAssertNil(eTrace.value)
            let c = try XCTUnwrap(nodes.first { $0.id == "c" }?.rule)
            XCTAssertEqual(c.value, false)
            XCTAssertEqual(c.children.map(\.skipped), [false, false, true])
            let g = try XCTUnwrap(nodes.first { $0.id == "g" }?.rule)
            XCTAssertEqual(g.value, !isGold)
            XCTAssertEqual(g.children.first?.children.map(\.skipped), isGold ? [false, false] : [false, true])
        }
    }
}
