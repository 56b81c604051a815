@testable import LoomCore
import XCTest

/// Named rules at sizes the project chooses (issue 36): a chain of 50,000 (no recursion as deep
/// as the chain: registration, evaluation, explanations, missing attributes), a graph of shared
/// sub-rules (each evaluated once per use: counted), problems carried along a chain in one pass
/// (the messages the repeated passes gave, checked against them on random graphs).
final class NamedRuleCostTests: XCTestCase {
    /// A rule that counts its calls.
    final class Counting: RuleEvaluating, AttributeReading {
        var calls = 0
        let answer: Result<Bool, BuildFailure>
        let reads: AttributeReads?
        init(_ answer: Result<Bool, BuildFailure>, reads: AttributeReads? = nil) {
            self.answer = answer
            self.reads = reads
        }
        func check(args: JSONNode?, file: String) -> [String] { [] }
        func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
            calls += 1
            return answer
        }
    }

    final class Builder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: "V", props: .object([:])))
        }
    }

    struct Setup {
        let factory: Factory
        let yes: Counting, boom: Counting, staff: Counting
        let diagnostics: Diagnostics
    }

    /// A factory with the rules `yes` (true), `boom` (fails), `staff` (reads `role`, false), and
    /// the named rules of `rules` (the text of loom.json's `rules`).
    func setUp(rules: String) throws -> Setup {
        let f = Factory()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        let yes = Counting(.success(true)), boom = Counting(.failure(BuildFailure("kaput")))
        let staff = Counting(.success(false), reads: AttributeReads([.attribute("role")]))
        try f.register(RuleRegistration(name: "yes", plugin: p, location: at, evaluator: yes))
        try f.register(RuleRegistration(name: "boom", plugin: p, location: at, evaluator: boom))
        try f.register(RuleRegistration(name: "staff", plugin: p, location: at, evaluator: staff))
        try f.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: p, location: at, openMeta: true, builder: Builder()))
        try f.register(ComponentRegistration(type: "box", kind: .single, plugin: p, location: at, openMeta: true, builder: Builder()))
        let doc = try JSONReader.parse(Array(rules.utf8), file: "loom.json")
        var pd = Diagnostics()
        let sources = NamedRuleSource.parse(doc.root, in: doc, place: "rules", diagnostics: &pd)
        XCTAssertTrue(pd.isEmpty, "\(pd.items)")
        let d = NamedRules.register(sources, into: f, definedIn: "loom.json")
        return Setup(factory: f, yes: yes, boom: boom, staff: staff, diagnostics: d)
    }

    func screen(rule: String, factory: Factory) throws -> (Screen, ScreenCheck) {
        let text = """
            {"screen": "s", "root": {"type": "stack", "children": [{"type": "box", "id": "gated", "rule": \(rule)}]}}
            """
        let doc = try JSONReader.parse(Array(text.utf8), file: "s.json")
        let screen = try XCTUnwrap(ScreenParser.parse(doc, defaultID: "s").0)
        return (screen, ScreenChecker.check(screen, factory: factory))
    }

    enum Path: CaseIterable { case cached, uncached, explained }

    /// One resolution by `path`: whether `gated` is shown, its rule's trace, the context.
    func resolve(_ s: Setup, _ screen: Screen, _ check: ScreenCheck, _ path: Path, user: UserProfile = UserProfile(name: "u", attributes: [:]))
        -> (shown: Bool, trace: RuleTrace?, ctx: ResolutionContext)
    {
        let ctx = ResolutionContext(user: user, screenID: "s", explain: path == .explained)
        let r = Resolver(factory: s.factory, screen: screen, check: check, cache: path == .uncached ? nil : ResolutionCache())
            .resolve(for: user, context: ctx)
        let gated = r.tree?.children.first { $0.id == "gated" }
        return (gated.map { !$0.hidden } ?? false, gated?.rule, ctx)
    }

    /// Every trace under `t` (itself included), without recursion.
    func nodes(_ t: RuleTrace) -> [RuleTrace] {
        var out: [RuleTrace] = [], stack = [t]
        while let x = stack.popLast() {
            out.append(x)
            stack.append(contentsOf: x.children)
        }
        return out
    }

    func depth(_ t: RuleTrace) -> Int {
        var best = 0, stack = [(t, 1)]
        while let (x, d) = stack.popLast() {
            best = max(best, d)
            for c in x.children { stack.append((c, d + 1)) }
        }
        return best
    }

    /// `r_i = AND(r_{i+1}, r_{i+1})` over 40 levels: expanded as a tree it is 2^40 evaluations
    /// (it never finished); each named rule is evaluated once per use: 41 named rules, one call
    /// of the plugin rule at the bottom, by every path (rule plan, uncached, explained). The
    /// explanation shows each named rule's trace once and says `(shown above)` at the second
    /// reference.
    func testSharedSubRulesAreEvaluatedOncePerUse() throws {
        let levels = 40
        var members = (0..<levels).map { "\"r\($0)\": {\"AND\": [\"r\($0 + 1)\", \"r\($0 + 1)\"]}" }
        members.append("\"r\(levels)\": \"yes\"")
        let s = try setUp(rules: "{" + members.joined(separator: ",\n") + "}")
        XCTAssertTrue(s.diagnostics.isEmpty, "\(s.diagnostics.items)")
        let (screen, check) = try screen(rule: "\"r0\"", factory: s.factory)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        for path in Path.allCases {
            s.yes.calls = 0
            let r = resolve(s, screen, check, path)
            XCTAssertTrue(r.shown, "\(path)")
            XCTAssertEqual(s.yes.calls, 1, "\(path): the rule at the bottom is called once")
            XCTAssertEqual(r.ctx.namedRuleEvaluations, levels + 1, "\(path): each named rule evaluated once")
            if path == .explained {
                let t = try XCTUnwrap(r.trace)
                XCTAssertEqual(t.expression, "r0")
                let all = nodes(t)
                // Per level: the name, its AND, and the second reference.
                XCTAssertLessThanOrEqual(all.count, 3 * (levels + 1) + 2)
                // Each level adds 2 to the depth (its AND, its references): the first 32 named
                // rules are expanded, the 33rd is evaluated without a trace.
                let expanded = LiveRuleWalk.maxNamedDepth / 2
                XCTAssertEqual(all.filter { $0.expression.hasSuffix(" (shown above)") }.count, expanded - 1)
                XCTAssertEqual(all.filter { $0.expression == "r\(expanded) (not expanded: named rules nest too deep here)" }.count, 1)
                XCTAssertEqual(all.filter { $0.expression == "r\(expanded) (evaluated above)" }.count, 1)
                let and = try XCTUnwrap(t.children.first)
                XCTAssertEqual(and.children.map(\.expression), ["r1", "r1 (shown above)"])
                XCTAssertEqual(and.children.map(\.value), [true, true])
                XCTAssertEqual(and.children[1].children.count, 0)
            }
        }
    }

    /// A shared rule that fails is reported once where its plugin rule is written, and its
    /// failure is the value of every later reference (fails closed), on every path.
    func testASharedFailingRuleIsReportedOnce() throws {
        let s = try setUp(rules: #"{"a": {"OR": ["b", "b"]}, "b": {"AND": ["yes", "boom"]}}"#)
        XCTAssertTrue(s.diagnostics.isEmpty, "\(s.diagnostics.items)")
        let (screen, check) = try screen(rule: "\"a\"", factory: s.factory)
        for path in Path.allCases {
            s.boom.calls = 0
            let r = resolve(s, screen, check, path)
            XCTAssertFalse(r.shown, "\(path)")
            XCTAssertEqual(s.boom.calls, 1, "\(path)")
            XCTAssertEqual(r.ctx.diagnostics.errors.map(\.message), ["rule 'boom' of plugin p failed: kaput; the component 'box' 'gated' it guards is hidden"], "\(path)")
        }
    }

    /// A chain of 50,000 named rules: registered, checked, evaluated on every path, its missing
    /// attribute warned about at the screen's reference, with no recursion as deep as the chain
    /// (the cycle check alone overflowed the stack before). The explanation expands the first
    /// `LiveRuleWalk.maxNamedDepth` levels and evaluates the rest without a trace.
    func testAChainOf50000NamedRules() throws {
        let n = 50_000
        var members = (0..<(n - 1)).map { "\"r\($0)\": \"r\($0 + 1)\"" }
        members.append("\"r\(n - 1)\": {\"NOT\": \"staff\"}")
        let s = try setUp(rules: "{" + members.joined(separator: ",\n") + "}")
        XCTAssertTrue(s.diagnostics.isEmpty, "\(s.diagnostics.items.prefix(3))")
        let (screen, check) = try screen(rule: "\"r0\"", factory: s.factory)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        for path in Path.allCases {
            s.staff.calls = 0
            let r = resolve(s, screen, check, path)
            XCTAssertTrue(r.shown, "\(path)")
            XCTAssertEqual(s.staff.calls, 1, "\(path)")
            XCTAssertEqual(r.ctx.namedRuleEvaluations, n, "\(path)")
            if path == .explained {
                let t = try XCTUnwrap(r.trace)
                XCTAssertLessThanOrEqual(depth(t), 2 * LiveRuleWalk.maxNamedDepth + 2)
                let cut = try XCTUnwrap(nodes(t).first { $0.expression.hasSuffix("(not expanded: named rules nest too deep here)") })
                XCTAssertEqual(cut.value, true)
                XCTAssertTrue(cut.children.isEmpty)
            }
        }
        let user = UserProfile(name: "u", attributes: [:])
        let warnings = MissingAttributes.warnings(screen, factory: s.factory, user: user)
        XCTAssertEqual(warnings.items.map(\.description), [
            "s.json:1:95: warning: rule 'staff' reads attribute 'role', which user 'u' lacks, so it sees it as missing (give it with --context role=VALUE or in users.json)",
        ])
    }

    /// The same chain closed into a cycle at its end, or ending in an unknown rule: one error at
    /// the root cause, and every rule before it cannot be used (a reference to the first is an
    /// error naming the second), in one pass over the chain.
    func testAChainOf50000EndingInACycleOrAnUnknownRule() throws {
        let n = 50_000
        let chain = (0..<(n - 1)).map { "\"r\($0)\": \"r\($0 + 1)\"" }
        for (last, error) in [
            ("{\"AND\": [\"yes\", \"r\(n - 5)\"]}",
             "named rule 'r\(n - 5)' refers to itself: r\(n - 5) → r\(n - 4) → r\(n - 3) → r\(n - 2) → r\(n - 1) → r\(n - 5)"),
            ("\"r0\"", "named rule 'r0' refers to itself: r0 → r1 → r2 → r3 → r4 → r5 → r6 → r7 → … (49984 more) … → r49992 → r49993 → r49994 → r49995 → r49996 → r49997 → r49998 → r49999 → r0"),
            ("{\"NOT\": \"yse\"}", "unknown rule 'yse' in named rule 'r\(n - 1)'; did you mean 'yes'?"),
        ] {
            let s = try setUp(rules: "{" + (chain + ["\"r\(n - 1)\": \(last)"]).joined(separator: ",\n") + "}")
            XCTAssertEqual(s.diagnostics.items.map(\.message), [error])
            let r0 = try XCTUnwrap(s.factory.rules["r0"]?.evaluator as? NamedRule)
            if last == "\"r0\"" {
                XCTAssertTrue(r0.problem?.hasPrefix("it is part of the cycle r0 → r1") == true, r0.problem ?? "nil")
            } else {
                XCTAssertEqual(r0.problem, "it uses named rule 'r1', which cannot be used")
            }
            let (_, check) = try screen(rule: "\"r0\"", factory: s.factory)
            XCTAssertEqual(check.diagnostics.errors.count, 1)
            XCTAssertTrue(check.diagnostics.errors[0].message.hasPrefix("rule 'r0': this named rule cannot be used: "), check.diagnostics.errors[0].message)
        }
    }

    // MARK: - The messages of the repeated passes

    /// The registration before issue 36 (recursive cycle check, problems carried by repeated
    /// passes), on plain names: the reference the one-pass registration must agree with.
    static func oldProblems(_ rules: [(name: String, refs: [String])], plugin: Set<String>) -> (errors: [String], problems: [String: String]) {
        var errors: [String] = []
        var problems: [String: String] = [:]
        var byName: [String: [String]] = [:]
        var order: [String] = []
        for r in rules where byName[r.name] == nil && !plugin.contains(r.name) {
            byName[r.name] = r.refs
            order.append(r.name)
        }
        for r in order {
            for ref in byName[r]! where byName[ref] == nil && !plugin.contains(ref) {
                errors.append("unknown rule '\(ref)' in named rule '\(r)'")
                problems[r] = problems[r] ?? "it uses unknown rule '\(ref)'"
            }
        }
        var state: [String: Int] = [:]
        var path: [String] = []
        func visit(_ r: String) {
            state[r] = 1
            path.append(r)
            var seen = Set<String>()
            for ref in byName[r]! where seen.insert(ref).inserted {
                guard byName[ref] != nil else { continue }
                if state[ref] == 1 {
                    let start = path.firstIndex(of: ref)!
                    let text = (path[start...] + [ref]).joined(separator: " → ")
                    errors.append("named rule '\(ref)' refers to itself: \(text)")
                    for x in path[start...] { problems[x] = problems[x] ?? "it is part of the cycle \(text)" }
                } else if state[ref] == nil {
                    visit(ref)
                }
            }
            path.removeLast()
            state[r] = 2
        }
        for r in order where state[r] == nil { visit(r) }
        var changed = true
        while changed {
            changed = false
            for r in order where problems[r] == nil {
                if let bad = byName[r]!.first(where: { problems[$0] != nil }) {
                    problems[r] = "it uses named rule '\(bad)', which cannot be used"
                    changed = true
                }
            }
        }
        return (errors, problems)
    }

    /// Random graphs of up to 9 named rules (cycles, self references, unknown names, shared and
    /// repeated references): the same errors in the same order, and every
    /// rule's problem, as the repeated passes gave.
    func testProblemsAreTheOnesOfTheRepeatedPasses() throws {
        var rng = SplitMix(seed: 2036)
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for round in 0..<600 {
            let count = rng.int(1...names.count)
            var rules: [(name: String, refs: [String])] = []
            for k in 0..<count {
                let pool = Array(names.prefix(count)) + ["yes", "staff", "nope"]
                let refs = (0..<rng.int(1...4)).map { _ in pool[rng.int(0...(pool.count - 1))] }
                rules.append((names[k], refs))
            }
            let text = "{" + rules.map { r in
                "\"\(r.name)\": {\"OR\": [" + r.refs.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
            }.joined(separator: ",\n") + "}"
            let s = try setUp(rules: text)
            let expected = Self.oldProblems(rules, plugin: ["yes", "boom", "staff"])
            XCTAssertEqual(s.diagnostics.items.map(\.message).map { $0.replacingOccurrences(of: "; did you mean 'yes'?", with: "") }, expected.errors, "round \(round): \(text)")
            for name in Set(rules.map(\.name)) {
                let r = try XCTUnwrap(s.factory.rules[name]?.evaluator as? NamedRule, name)
                XCTAssertEqual(r.problem, expected.problems[name], "round \(round), rule \(name): \(text)")
            }
        }
    }
}
