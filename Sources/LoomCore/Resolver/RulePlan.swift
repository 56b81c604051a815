/// The rule plan of a screen: every rule a resolution may reach, in the order it reaches them,
/// evaluated without building (the cached resolution's first pass).
extension Resolver {
    /// Evaluates the rules a resolution reaches, in the order it reaches them, without building:
    /// a rule that is not true skips the rules of what it guards. Returns every leaf's outcome
    /// (0 false, 1 true, 2 failed) in evaluation order.
    func runRulePlan(_ plan: [RulePlanStep], ctx: ResolutionContext) -> [UInt8] {
        guard let first = plan.first else { return [] }
        var walk = PlanRuleWalk(subject: first.subject, ctx: ctx, leaves: [])
        walk.leaves.reserveCapacity(plan.count + 16)
        plan.withUnsafeBufferPointer { steps in
            var i = 0
            while i < steps.count {
                walk.subject = steps[i].subject
                let v = RuleEvaluator.run(steps[i].rule, &walk)
                i = v == true ? i + 1 : steps[i].skip
            }
        }
        return walk.leaves
    }

    /// The rule plan of this screen: every rule a resolution may reach, in the order it reaches
    /// them (the same walk as `resolve`), each with where to go on when it is not true.
    func makeRulePlan() -> [RulePlanStep] {
        var plan: [RulePlanStep] = []
        func item(_ item: Item) {
            if isInvalid(item.serial) { return }
            var itemAt: Int?
            if let rule = item.rule {
                itemAt = plan.count
                plan.append(RulePlanStep(rule: CompiledRule(rule, factory: factory), expression: rule, subject: .item(item), skip: 0))
            }
            for child in item.children { component(child) }
            if let itemAt { plan[itemAt].skip = plan.count }
        }
        func component(_ c: Component) {
            if isInvalid(c.serial) { return }
            let isSpotsRoot = c.type == ScreenParser.spotsRootType && c.path == "components"
            let reg = isSpotsRoot ? nil : factory.componentRegistration(c.type)
            var at: Int?
            if let rule = c.rule {
                at = plan.count
                plan.append(RulePlanStep(rule: CompiledRule(rule, factory: factory), expression: rule, subject: .component(c), skip: 0))
            }
            if isSpotsRoot || reg != nil {
                for child in c.children { component(child) }
                if reg?.kind == .collection {
                    // A header or footer read as an item (Spots) is walked as an item, as the resolver does.
                    if let h = c.header { if let hi = h.readsAsItem(factory) { item(hi) } else { component(h) } }
                    for it in c.items { item(it) }
                    if let f = c.footer { if let fi = f.readsAsItem(factory) { item(fi) } else { component(f) } }
                }
            }
            if let at { plan[at].skip = plan.count }
        }
        component(screen.root)
        return plan
    }
}

/// Evaluates a compiled rule for the rule plan: the value only, each leaf's outcome recorded.
struct PlanRuleWalk: RuleWalk {
    var subject: RuleSubject
    let ctx: ResolutionContext
    var leaves: [UInt8]

    static var reportsSkipped: Bool { false }

    @inline(__always)
    mutating func leaf(_ node: CompiledRule) -> Bool? {
        guard let evaluator = node.evaluator else {
            leaves.append(2)
            return nil
        }
        switch RuleEvaluator.call(evaluator, args: node.args, at: node.location, subject: subject, context: ctx) {
        case .success(let v):
            leaves.append(v ? 1 : 0)
            return v
        case .failure(let f):
            leaves.append(2)
            // A named rule's failing rule was reported where it is written.
            if !node.isNamed {
                RuleEvaluator.reportFailure(f, name: node.name, plugin: node.plugin, subject: subject, at: node.location, ctx: ctx)
            }
            return nil
        }
    }

    @inline(__always) func value(of outcome: Bool?) -> Bool? { outcome }
    @inline(__always) func group(_ node: CompiledRule) {}
    @inline(__always) func add(_ outcome: Bool?, to group: inout Void) {}
    @inline(__always) func skip(_ node: CompiledRule, in group: inout Void) {}
    @inline(__always) func finish(_ group: Void, value: Bool?, error: String?) -> Bool? { value }
    @inline(__always) func negation(_ node: CompiledRule, of inner: Bool?, value: Bool?, error: String?) -> Bool? { value }
}

/// The outcomes of a resolution's rules: every leaf's value (true, false, failed, skipped) in
/// evaluation order.
struct OutcomeKey: Hashable {
    /// The leaves' outcomes in evaluation order: with the screen's fixed rule plan they determine
    /// which rules ran and what each returned.
    var leaves: [UInt8]
}

/// One rule of a screen's rule plan: evaluate `rule` for `subject`; when it is not true, go on at
/// `skip` (past the rules of what it guards).
struct RulePlanStep {
    var rule: CompiledRule
    var expression: RuleExpression
    var subject: RuleSubject
    var skip: Int
}

/// One rule of a screen's rule plan as its callers see it (`Resolver.rulePlanEntries`): the rule
/// as written, what it guards, and the entry to go on at when it is not true.
public struct RulePlanEntry {
    public let rule: RuleExpression
    public let subject: RuleSubject
    public let skip: Int
}

extension Resolver {
    /// The rules a cached resolution evaluates, in the order it evaluates them (nil without a
    /// cache). Evaluating them the same way (AND / OR short-circuit left to right, a rule that is
    /// not true skipping to `skip`) gives the leaves `resolve(for:context:replaying:)` takes.
    public var rulePlanEntries: [RulePlanEntry]? {
        guard let cache else { return nil }
        return cache.rulePlan(self).map { RulePlanEntry(rule: $0.expression, subject: $0.subject, skip: $0.skip) }
    }
}

/// A rule expression with its rule registrations looked up once (for the rule plan's hot loop).
final class CompiledRule: RuleNode {
    let ruleShape: RuleShape<CompiledRule>
    let name: String
    let evaluator: (any RuleEvaluating)?
    let plugin: String
    let args: JSONNode?
    let location: SourceLocation
    /// A project's named rule (evaluated as its expression; failures reported inside).
    let isNamed: Bool

    init(_ rule: RuleExpression, factory: Factory) {
        location = rule.location
        switch rule {
        case .rule(let name, let args, _):
            ruleShape = .leaf
            self.name = name
            let reg = factory.rules[name]
            evaluator = reg?.evaluator
            plugin = reg?.plugin.name ?? ""
            self.args = args
            isNamed = reg?.evaluator is NamedRule
            return
        case .and(let rs, _):
            ruleShape = .and(rs.map { CompiledRule($0, factory: factory) })
        case .or(let rs, _):
            ruleShape = .or(rs.map { CompiledRule($0, factory: factory) })
        case .not(let r, _):
            ruleShape = .not(CompiledRule(r, factory: factory))
        }
        name = ""
        evaluator = nil
        plugin = ""
        args = nil
        isNamed = false
    }
}
