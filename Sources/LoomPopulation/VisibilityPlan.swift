import LoomCore
import OrderedCollections

/// `--select visible`'s fast path. A resolved tree depends on the screen's rule outcomes only
/// (builders are deterministic and see no user: the premise of the resolver's own tree cache),
/// so what a user sees is a function of the outcomes of the rules the screen holds. This plan
/// evaluates those rules for a user, in document order with AND / OR short-circuits, each
/// rule of a component or item only when what encloses it is shown, and keys the answer by the
/// outcomes: the first user with a given key is resolved by the real resolver and its visible
/// ids (and diagnostics) are kept for every later user with the same key. A user whose rules
/// fail anywhere is resolved by the resolver every time (failures are reported per user).
/// The plan covers every rule the resolver can reach (a superset: rules of components the
/// resolver would skip make keys only more specific), so equal keys mean equal trees.
public final class VisibilityPlan {
    /// A rule reference (a class: walking the plan copies no fields).
    final class Leaf {
        let evaluator: (any RuleEvaluating)?
        let args: JSONNode?
        let location: SourceLocation
        /// Lua rules: the rule as observable and its answers by what it read (`RuleMemo`); nil
        /// for other evaluators.
        let observable: (any ObservableRule)?
        let memo: RuleMemo?
        init(evaluator: (any RuleEvaluating)?, args: JSONNode?, location: SourceLocation, observable: (any ObservableRule)?, memo: RuleMemo?) {
            self.evaluator = evaluator
            self.args = args
            self.location = location
            self.observable = observable
            self.memo = memo
        }
    }
    indirect enum Node { case leaf(Leaf), and([Node]), or([Node]), not(Node) }
    struct Step { let rule: Node; let subject: RuleSubject; var skip: Int }

    private var steps: [Step] = []
    private var cache: [OutcomeKey: (fragment: String, diagnostics: [Diagnostic])] = [:]
    /// Distinct outcome keys kept (beyond it, users are resolved by the resolver).
    public static let maxKeys = 4096
    let screenID: String

    /// `useMemo`: reuse Lua rules' answers by what they read (`RuleMemo`).
    public init(screen: Screen, factory: Factory, useMemo: Bool = true) {
        screenID = screen.id
        func compile(_ r: RuleExpression) -> Node {
            switch r {
            case .rule(let name, let args, let loc):
                let e = factory.rules[name]?.evaluator
                let observable = useMemo ? e as? any ObservableRule : nil
                return .leaf(Leaf(evaluator: e, args: args, location: loc, observable: observable, memo: observable == nil ? nil : RuleMemo()))
            case .and(let rs, _): return .and(rs.map(compile))
            case .or(let rs, _): return .or(rs.map(compile))
            case .not(let x, _): return .not(compile(x))
            }
        }
        func component(_ c: Component) {
            var at: Int?
            if let r = c.rule { at = steps.count; steps.append(Step(rule: compile(r), subject: .component(c), skip: 0)) }
            if let h = c.header { component(h) }
            for child in c.children { component(child) }
            for item in c.items {
                var itemAt: Int?
                if let r = item.rule { itemAt = steps.count; steps.append(Step(rule: compile(r), subject: .item(item), skip: 0)) }
                for child in item.children { component(child) }
                if let itemAt { steps[itemAt].skip = steps.count }
            }
            if let f = c.footer { component(f) }
            if let at { steps[at].skip = steps.count }
        }
        component(screen.root)
    }

    /// The user's outcome key; nil when a rule failed. `ctx`: a resolution context for the user,
    /// prepared as the resolver's (the device context's attributes).
    func key(_ ctx: PlanUser) -> OutcomeKey? {
        var out = OutcomeKey()
        var i = 0
        while i < steps.count {
            guard let v = VisibilityPlan.eval(steps[i].rule, steps[i].subject, ctx, &out) else { return nil }
            i = v ? i + 1 : steps[i].skip
        }
        return out
    }

    /// A rule's value (nil: failed), each leaf's outcome appended to `out`.
    private static func eval(_ n: Node, _ subject: RuleSubject, _ u: PlanUser, _ out: inout OutcomeKey) -> Bool? {
        switch n {
        case .leaf(let l):
            guard let e = l.evaluator else { return nil }
            let v: Bool
            if let memo = l.memo, let observable = l.observable {
                if let known = memo.answer(u) {
                    v = known
                } else {
                    let (result, reads) = observable.evaluateObserved(args: l.args, at: l.location, subject: subject, context: u.context)
                    guard case .success(let answer) = result else { return nil }
                    if let reads { memo.learn(reads, answer: answer, u) }
                    v = answer
                }
            } else {
                guard case .success(let answer) = e.evaluate(args: l.args, at: l.location, subject: subject, context: u.context) else { return nil }
                v = answer
            }
            out.append(v)
            return v
        case .and(let xs):
            for x in xs { guard let v = eval(x, subject, u, &out) else { return nil }; if !v { return false } }
            return true
        case .or(let xs):
            for x in xs { guard let v = eval(x, subject, u, &out) else { return nil }; if v { return true } }
            return false
        case .not(let x):
            return eval(x, subject, u, &out).map { !$0 }
        }
    }

    /// The `"visible":[…]` JSON of a user and the diagnostics of their resolution, on screen `n`
    /// of `screens` (whose resolution context and resolver are used when a rule has to be called
    /// or the tree has to be built).
    public func visible(for user: UserProfile, screens: PopulationScreens, screen n: Int) -> (fragment: String, diagnostics: [Diagnostic]) {
        let k = key(PlanUser(user: user, screens: screens, screen: n))
        if let k, let hit = cache[k] { return hit }
        let r = screens.resolve(n, for: user)
        let answer = (EvalLineWriter.visibleFragment(r.tree), r.diagnostics.items)
        // A tree holding nodes a builder created with a rule depends on their outcomes too (not
        // in this plan): such answers are not shared by key.
        if let k, !r.evaluatedCreatedRules, cache.count < VisibilityPlan.maxKeys { cache[k] = answer }
        return answer
    }
}

/// A plan's key: the outcomes of the rules evaluated, in order (bits inline up to 128).
struct OutcomeKey: Hashable {
    private var low: UInt64 = 0, high: UInt64 = 0
    private var count = 0
    private var rest: [Bool]?

    mutating func append(_ v: Bool) {
        if count < 64 {
            if v { low |= 1 << UInt64(count) }
        } else if count < 128 {
            if v { high |= 1 << UInt64(count - 64) }
        } else {
            rest = (rest ?? []) + [v]
        }
        count += 1
    }
}
