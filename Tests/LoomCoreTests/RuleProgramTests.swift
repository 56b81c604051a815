@testable import LoomCore
import XCTest

/// A screen's rule program run by the one AND / OR / NOT evaluator with each kind of leaf: the
/// call (recording outcomes), the replay (no call), a memo (no call once known), and the trace
/// walk of an uncached resolution. Each asserts which rules are called, in which order: a change
/// to the short-circuit order, or to which rules a hidden component skips, fails here.
final class RuleProgramTests: XCTestCase {
    /// Every rule call, by name, in order.
    final class Calls { var names: [String] = [] }

    final class Rule: RuleEvaluating {
        let name: String
        let calls: Calls
        let decide: (UserProfile) -> Result<Bool, BuildFailure>
        init(_ name: String, _ calls: Calls, _ decide: @escaping (UserProfile) -> Result<Bool, BuildFailure>) {
            self.name = name
            self.calls = calls
            self.decide = decide
        }
        func check(args: JSONNode?, file: String) -> [String] { [] }
        func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
            calls.names.append(name)
            return decide(context.user)
        }
    }

    final class Builder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
            .success(BuildOutput(view: request.component.type, props: .object([:])))
        }
    }

    // a: AND stops at `no` (boom not called), and hides x (its rule not reached);
    // b: OR goes on past `no`, NOT(no) decides it (boom not called), c's rule is reached;
    // the list's second item is hidden, so its nested box's rule is not reached;
    // d: boom fails (yes not called); e is reached after the failure.
    static let screenText = """
        {"screen": "s", "root": {"type": "stack", "children": [
          {"type": "stack", "id": "a", "rule": {"AND": ["yes", "no", "boom"]}, "children": [{"type": "box", "id": "x", "rule": "yes"}]},
          {"type": "stack", "id": "b", "rule": {"OR": ["no", {"NOT": "no"}, "boom"]}, "children": [{"type": "box", "id": "c", "rule": "gold"}]},
          {"type": "list", "id": "list", "items": [
            {"title": "One", "rule": "yes"},
            {"title": "Two", "rule": {"NOT": "yes"}, "children": [{"type": "box", "id": "nested", "rule": "no"}]}]},
          {"type": "box", "id": "d", "rule": {"AND": ["boom", "yes"]}},
          {"type": "box", "id": "e", "rule": "yes"}
        ]}}
        """

    let gold = UserProfile(name: "gold", attributes: ["tier": .string("gold")])
    let free = UserProfile(name: "free", attributes: ["tier": .string("free")])

    func setUp(_ calls: Calls) throws -> Resolver {
        let factory = Factory()
        let p = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        let rules: [String: (UserProfile) -> Result<Bool, BuildFailure>] = [
            "yes": { _ in .success(true) },
            "no": { _ in .success(false) },
            "boom": { _ in .failure(BuildFailure("kaput")) },
            "gold": { u in .success(u.attributes["tier"] == .string("gold")) },
        ]
        for (name, decide) in rules.sorted(by: { $0.key < $1.key }) {
            try factory.register(RuleRegistration(name: name, plugin: p, location: at, evaluator: Rule(name, calls, decide)))
        }
        try factory.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: p, location: at, openMeta: true, builder: Builder()))
        try factory.register(ComponentRegistration(type: "box", kind: .single, plugin: p, location: at, openMeta: true, builder: Builder()))
        try factory.register(ComponentRegistration(type: "list", kind: .collection, plugin: p, location: at, openMeta: true, builder: Builder()))
        let doc = try JSONReader.parse(Array(Self.screenText.utf8), file: "s.json")
        let (parsed, d) = ScreenParser.parse(doc, defaultID: "s")
        let screen = try XCTUnwrap(parsed, "\(d.items)")
        let check = ScreenChecker.check(screen, factory: factory)
        XCTAssertFalse(check.diagnostics.hasErrors, "\(check.diagnostics.items)")
        return Resolver(factory: factory, screen: screen, check: check, cache: ResolutionCache())
    }

    /// What the program calls for the gold user, in order, and what a free user's `gold` changes.
    static let goldCalls = ["yes", "no", "no", "no", "gold", "yes", "yes", "boom", "yes"]
    static let goldOutcomes: [UInt8] = [1, 0, 0, 0, 1, 1, 1, 2, 1]

    func testTheProgramNumbersEveryReferenceInEvaluationOrder() throws {
        let program = try XCTUnwrap(try setUp(Calls()).ruleProgram)
        // a, x, b, c, the two items, nested, d, e.
        XCTAssertEqual(program.count, 9)
        XCTAssertEqual(program.skips, [2, 2, 4, 4, 5, 7, 7, 8, 9])
        XCTAssertEqual(program.leaves.map(\.name), ["yes", "no", "boom", "yes", "no", "no", "boom", "gold", "yes", "yes", "no", "boom", "yes", "yes"])
        XCTAssertEqual(program.leaves.map(\.leafIndex), Array(0..<14))
    }

    func testCallLeavesCallInShortCircuitOrderAndRecordOutcomes() throws {
        let calls = Calls()
        let program = try XCTUnwrap(try setUp(calls).ruleProgram)
        let ctx = ResolutionContext(user: gold, screenID: "s")
        XCTAssertEqual(program.outcomes(ctx), Self.goldOutcomes)
        XCTAssertEqual(calls.names, Self.goldCalls)
        XCTAssertEqual(ctx.pluginCalls, Self.goldCalls.count)
        XCTAssertEqual(ctx.diagnostics.items.map(\.description), [
            "s.json:7:47: error: rule 'boom' of plugin p failed: kaput; the component 'box' 'd' it guards is hidden"
        ])

        calls.names = []
        let free = ResolutionContext(user: self.free, screenID: "s")
        XCTAssertEqual(program.outcomes(free), [1, 0, 0, 0, 0, 1, 1, 2, 1])
        XCTAssertEqual(calls.names, Self.goldCalls)
    }

    func testReplayLeavesCallNothingAndBuildWhatTheLiveWalkBuilds() throws {
        let calls = Calls()
        let resolver = try setUp(calls)
        // The uncached resolution (trace leaves, as --explain) calls the same rules in the same order.
        let uncached = Resolver(factory: resolver.factory, screen: resolver.screen, check: resolver.check)
        let live = uncached.resolve(for: gold, context: ResolutionContext(user: gold, screenID: "s"))
        XCTAssertEqual(calls.names, Self.goldCalls)
        let explained = uncached.resolve(for: gold, context: ResolutionContext(user: gold, screenID: "s", explain: true))
        XCTAssertEqual(calls.names, Self.goldCalls + Self.goldCalls)

        calls.names = []
        let ctx = ResolutionContext(user: gold, screenID: "s")
        let replayed = resolver.resolve(for: gold, context: ctx, replaying: Self.goldOutcomes)
        XCTAssertEqual(calls.names, [], "a replay calls no rule")
        XCTAssertEqual(ctx.pluginCalls, 0)
        func shown(_ r: Resolution) -> [String] {
            var out: [String] = []
            r.tree?.walk { n in if !n.hidden, let id = n.id { out.append(id) } }
            return out
        }
        XCTAssertEqual(shown(replayed), ["b", "c", "list", "e"])
        XCTAssertEqual(shown(replayed), shown(live))
        XCTAssertEqual(shown(explained), shown(live))
        // What the explanation says of the rules the short-circuits skipped.
        let a = try XCTUnwrap(explained.tree?.children.first { $0.id == "a" }?.rule)
        XCTAssertEqual(a.children.map(\.skipped), [false, false, true])
    }

    /// Leaves of a walk another module would write (as `host eval`'s): answered from a memo by
    /// reference when known, else called.
    struct MemoWalk: RuleValueWalk {
        let program: RuleProgram
        let ops: [RuleOp]
        let ctx: ResolutionContext
        var memo: [Int: Bool] = [:]
        var out: [Bool] = []
        var step = 0

        init(program: RuleProgram, ctx: ResolutionContext) {
            self.program = program
            ops = program.ops
            self.ctx = ctx
        }

        @inline(__always) func op(_ node: Int32) -> RuleOp { ops[Int(node)] }

        mutating func enter(step: Int) { self.step = step }

        mutating func leaf(_ op: Int32) -> Bool? {
            let node = program.leaves[Int(ops[Int(op)].arg)]
            if let v = memo[node.leafIndex] {
                out.append(v)
                return v
            }
            let r = node.evaluator!.evaluate(args: node.args, at: node.location, subject: program.subjects[step], context: ctx)
            guard case .success(let v) = r else { return nil }
            memo[node.leafIndex] = v
            out.append(v)
            return v
        }
    }

    func testMemoLeavesStopAtTheFirstFailureAndCallNothingOnceKnown() throws {
        let calls = Calls()
        let program = try XCTUnwrap(try setUp(calls).ruleProgram)
        var walk = MemoWalk(program: program, ctx: ResolutionContext(user: gold, screenID: "s"))
        XCTAssertFalse(program.run(&walk, stopOnFailure: true))
        // Stopped at boom: e's rule is not called.
        XCTAssertEqual(calls.names, Array(Self.goldCalls.dropLast()))
        XCTAssertEqual(walk.out, [true, false, false, false, true, true, true])

        // Run again to the end with what the memo learnt: only boom (never learnt) and e's rule are called.
        calls.names = []
        walk.out = []
        XCTAssertTrue(program.run(&walk))
        XCTAssertEqual(calls.names, ["boom", "yes"])
        XCTAssertEqual(walk.out, [true, false, false, false, true, true, true, true])
    }
}
