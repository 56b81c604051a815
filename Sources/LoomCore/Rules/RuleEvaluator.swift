/// The one place where rule expressions combine: AND and OR evaluate their rules left to right
/// and stop at the first that decides (the rest are skipped), NOT negates, and a rule that fails
/// fails every expression above it closed. What a leaf is worth, and what is made of the
/// outcomes (a trace, or only a value), is the walk's: its leaves call the rule (`LiveRuleWalk`
/// with traces for `--explain`, `RuleProgram.CallWalk` recording outcomes), replay recorded
/// outcomes (`ReplayRuleWalk`), or answer from a memo (`host eval`'s `VisibilityPlan`). A
/// screen's rules go through it as a `RuleProgram`.
public enum RuleEvaluator {
    /// The outcome of `node` under `walk`. (Inlinable: specialized for each walk, also in the
    /// modules that bring their own leaves.)
    @inlinable
    public static func run<W: RuleWalk>(_ node: W.Node, _ walk: inout W) -> W.Outcome {
        switch walk.kind(node) {
        case .leaf:
            return walk.leaf(node)
        case .and:
            return combine(node, isAnd: true, &walk)
        case .or:
            return combine(node, isAnd: false, &walk)
        case .not:
            let inner = run(walk.notOperand(node), &walk)
            let value = walk.value(of: inner)
            return walk.negation(node, of: inner, value: value.map { !$0 }, error: value == nil ? "its rule failed" : nil)
        }
    }

    @inlinable @inline(__always)
    static func combine<W: RuleWalk>(_ node: W.Node, isAnd: Bool, _ walk: inout W) -> W.Outcome {
        var group = walk.group(node)
        var decided: Bool?
        var failed = false
        var next = walk.firstOperand(node)
        var k = 0
        while let operand = next {
            if decided != nil {
                // Short-circuit: what is left is not evaluated.
                guard W.reportsSkipped else { break }
                walk.skip(operand, in: &group)
            } else {
                let outcome = run(operand, &walk)
                let value = walk.value(of: outcome)
                walk.add(outcome, to: &group)
                if let value {
                    if isAnd && !value { decided = false }
                    if !isAnd && value { decided = true }
                } else {
                    // An error fails the whole expression closed.
                    failed = true
                    decided = false
                }
            }
            next = walk.operand(after: operand, at: k, of: node)
            k += 1
        }
        return failed
            ? walk.finish(group, value: nil, error: "a sub-rule failed")
            : walk.finish(group, value: decided ?? isAnd, error: nil)
    }

    /// Calls a registered rule: always a plugin call (rule results are never cached). A failure
    /// goes to `reportFailure`.
    @inline(__always)
    static func call(
        _ evaluator: any RuleEvaluating, args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context ctx: ResolutionContext
    ) -> Result<Bool, BuildFailure> {
        ctx.pluginCalls += 1
        return evaluator.evaluate(args: args, at: location, subject: subject, context: ctx)
    }

    /// A failed rule's report: a diagnostic, or, for a rule not called again after exceeding a
    /// limit, one count reported once at the end of the resolution.
    static func reportFailure(_ f: BuildFailure, name: String, plugin: String, subject: RuleSubject, at loc: SourceLocation, ctx: ResolutionContext) {
        if f.notCalledAgain {
            ctx.countNotCalledAgain("rule '\(name)' of plugin \(plugin)", at: loc)
            return
        }
        let at = f.scriptLocation.map { " (\($0))" } ?? ""
        ctx.diagnostics.error("rule '\(name)' of plugin \(plugin) failed\(at): \(f.message); the \(subject.label) it guards is hidden", at: loc)
    }
}

extension RuleSubject {
    /// "component 'banner' 'promo'", "item 'Dune'" for messages.
    var label: String {
        switch self {
        case .component(let c): return "component '\(c.type)'" + (c.id.map { " '\($0)'" } ?? "")
        case .item(let i): return "item" + (i.title.map { " '\($0)'" } ?? "")
        }
    }
}

/// What a node of a rule expression is, as the evaluator walks it.
public enum RuleKind: UInt8, Sendable {
    case leaf, and, or, not
}

/// What one evaluation makes of a rule expression: the value of its leaves, and what it keeps of
/// the outcomes (`Outcome` per expression, `Group` while an AND / OR collects its operands).
public protocol RuleWalk {
    associatedtype Node
    associatedtype Outcome
    associatedtype Group
    /// Whether the operands an AND / OR skips are reported (traces) or not visited at all.
    static var reportsSkipped: Bool { get }
    /// The expression's shape, as the walk's nodes hold it (an expression as written, or an op
    /// of a rule program): what a node is, an AND / OR's operands in order (the first, then the
    /// one after operand `k`), a NOT's operand.
    func kind(_ node: Node) -> RuleKind
    func firstOperand(_ node: Node) -> Node?
    func operand(after operand: Node, at k: Int, of node: Node) -> Node?
    func notOperand(_ node: Node) -> Node
    mutating func leaf(_ node: Node) -> Outcome
    func value(of outcome: Outcome) -> Bool?
    func group(_ node: Node) -> Group
    func add(_ outcome: Outcome, to group: inout Group)
    func skip(_ node: Node, in group: inout Group)
    /// An AND / OR's outcome: `value` nil with an `error` when an operand failed.
    func finish(_ group: Group, value: Bool?, error: String?) -> Outcome
    /// A NOT's outcome: `value` nil with an `error` when its rule failed.
    func negation(_ node: Node, of inner: Outcome, value: Bool?, error: String?) -> Outcome
}

/// A walk that makes a trace: every expression's value or error, skipped operands marked.
protocol RuleTraceWalk: RuleWalk where Node == RuleExpression, Outcome == RuleTrace, Group == RuleTrace {
    /// The text a trace shows for an expression (empty unless explaining).
    func expression(_ node: Node) -> String
}

extension RuleTraceWalk {
    static var reportsSkipped: Bool { true }

    func kind(_ node: RuleExpression) -> RuleKind {
        switch node {
        case .rule: return .leaf
        case .and: return .and
        case .or: return .or
        case .not: return .not
        }
    }

    func firstOperand(_ node: RuleExpression) -> RuleExpression? {
        switch node {
        case .and(let rs, _), .or(let rs, _): return rs.first
        case .not(let r, _): return r
        case .rule: return nil
        }
    }

    func operand(after operand: RuleExpression, at k: Int, of node: RuleExpression) -> RuleExpression? {
        switch node {
        case .and(let rs, _), .or(let rs, _): return k + 1 < rs.count ? rs[k + 1] : nil
        case .not, .rule: return nil
        }
    }

    func notOperand(_ node: RuleExpression) -> RuleExpression {
        if case .not(let r, _) = node { return r }
        return node
    }

    func trace(_ node: Node, value: Bool?, error: String?, skipped: Bool = false, children: [RuleTrace] = []) -> RuleTrace {
        RuleTrace(expression: expression(node), value: value, error: error, skipped: skipped, children: children, location: node.location)
    }

    func value(of outcome: RuleTrace) -> Bool? { outcome.value }
    func group(_ node: Node) -> RuleTrace { trace(node, value: nil, error: nil) }
    func add(_ outcome: RuleTrace, to group: inout RuleTrace) { group.children.append(outcome) }
    func skip(_ node: Node, in group: inout RuleTrace) { group.children.append(trace(node, value: nil, error: nil, skipped: true)) }

    func finish(_ group: RuleTrace, value: Bool?, error: String?) -> RuleTrace {
        var t = group
        t.value = value
        t.error = error
        return t
    }

    func negation(_ node: Node, of inner: RuleTrace, value: Bool?, error: String?) -> RuleTrace {
        trace(node, value: value, error: error, children: [inner])
    }
}

/// Evaluates a rule as written, calling the plugins' rules, with a full trace (`--explain`, and
/// resolutions without a cache).
///
/// A named rule is traced as its name with its expression's trace under it, when explaining;
/// within one use of a named rule (a reference outside named rules), each named rule it reaches
/// is evaluated once and its trace shown once: a later reference to it says
/// `NAME (shown above)` with its value and no trace. Expansion stops `maxNamedDepth` levels deep
/// (the levels of the named rules' own expressions, added up along the way): a named rule there
/// says `NAME (not expanded: named rules nest too deep here)` with its value, evaluated without
/// a trace. So an explanation holds each named rule at most once and its depth is bounded,
/// whatever the project's named rules. Without explaining, a named rule's trace is its value
/// only (nothing reads what is under it), evaluated by `NamedRuleEvaluator`.
struct LiveRuleWalk: RuleTraceWalk {
    let factory: Factory
    let subject: RuleSubject
    let ctx: ResolutionContext
    /// The named rules of the use being traced (nil outside named rules).
    var named: NamedRuleMemo?
    /// The levels of named rules' expressions expanded above this walk.
    var namedDepth = 0
    /// How deep an explanation expands named rules inside named rules (see above).
    static let maxNamedDepth = NamedRule.explainedDepth

    init(factory: Factory, subject: RuleSubject, ctx: ResolutionContext) {
        self.factory = factory
        self.subject = subject
        self.ctx = ctx
    }

    func expression(_ node: RuleExpression) -> String { ctx.explain ? node.text : "" }

    func leaf(_ node: RuleExpression) -> RuleTrace {
        guard case .rule(let name, let args, let loc) = node else { return trace(node, value: nil, error: "not a rule") }
        guard let reg = factory.rules[name] else { return trace(node, value: nil, error: "rule '\(name)' is not registered") }
        if let named = reg.evaluator as? NamedRule, named.problem == nil {
            return namedLeaf(node, named)
        }
        switch RuleEvaluator.call(reg.evaluator, args: args, at: loc, subject: subject, context: ctx) {
        case .success(let v): return leafTrace(node, reg, args, value: v, error: nil)
        case .failure(let f):
            RuleEvaluator.reportFailure(f, name: name, plugin: reg.plugin.name, subject: subject, at: loc, ctx: ctx)
            return leafTrace(node, reg, args, value: nil, error: f.message)
        }
    }

    /// A named rule's trace (see the type's comment).
    func namedLeaf(_ node: RuleExpression, _ rule: NamedRule) -> RuleTrace {
        let memo = named ?? NamedRuleMemo()
        func failure(_ v: Bool?) -> String? { v == nil ? "a rule of named rule '\(rule.name)' failed" : nil }
        if let known = memo.state(rule) {
            let v: Bool? = known == .isTrue ? true : known == .isFalse ? false : nil
            var t = trace(node, value: v, error: failure(v))
            if ctx.explain { t.expression += memo.shown.contains(rule.index) ? " (shown above)" : " (evaluated above)" }
            return t
        }
        let depth = namedDepth + rule.depth
        guard ctx.explain, depth <= LiveRuleWalk.maxNamedDepth else {
            memo.begin(rule)
            var m: NamedRuleMemo? = memo
            let v = NamedRuleEvaluator.value(rule, subject: subject, context: ctx, memo: &m)
            memo.finish(rule, v)
            var t = trace(node, value: v, error: failure(v))
            if ctx.explain { t.expression += " (not expanded: named rules nest too deep here)" }
            return t
        }
        // The name, then its expression's trace.
        memo.begin(rule)
        ctx.namedRuleEvaluations += 1
        var inner = self
        inner.named = memo
        inner.namedDepth = depth
        let sub = RuleEvaluator.run(rule.expression, &inner)
        memo.finish(rule, sub.value)
        memo.shown.insert(rule.index)
        return trace(node, value: sub.value, error: failure(sub.value), children: [sub])
    }

    /// A leaf's trace; when explaining, its expression names the attributes the rule reads
    /// that the user lacks: `between{"to":"2025-01-01"} (now is missing)`.
    func leafTrace(_ node: RuleExpression, _ reg: RuleRegistration, _ args: JSONNode?, value: Bool?, error: String?) -> RuleTrace {
        var t = trace(node, value: value, error: error)
        if ctx.explain, let read = reg.attributesRead(args: args) {
            var seen = Set<String>()
            let missing = read.filter { ctx.attribute($0) == nil && subject.scope?[$0] == nil && seen.insert($0).inserted }
            if !missing.isEmpty {
                t.expression += " (" + missing.joined(separator: ", ") + (missing.count == 1 ? " is" : " are") + " missing)"
            }
        }
        return t
    }
}

/// Rebuilds the trace a live walk would have made from recorded leaf outcomes (0 false, 1 true,
/// 2 failed), without calling any plugin.
struct ReplayRuleWalk: RuleTraceWalk {
    let leaves: [UInt8]
    var cursor: Int

    func expression(_ node: RuleExpression) -> String { "" }

    mutating func leaf(_ node: RuleExpression) -> RuleTrace {
        let code = cursor < leaves.count ? leaves[cursor] : 2
        cursor += 1
        return trace(node, value: code == 2 ? nil : code == 1, error: code == 2 ? "failed" : nil)
    }
}
