/// A screen's rules compiled once: every rule a resolution may reach, in the order it reaches
/// them (the resolver's own walk: a component's rule, then what it holds: children, header,
/// items with their nested components, footer), each with where to go on when it is not true
/// (past the rules of what it guards), and every rule reference looked up in the factory once.
///
/// It is run by the one AND / OR / NOT evaluator (`RuleEvaluator.run`) with pluggable leaves:
/// `CallWalk` calls the rules and records each leaf's outcome (the cached resolution's first
/// pass, whose outcomes key its trees), `host eval`'s `VisibilityPlan` answers leaves from its
/// memos before calling. The building pass replays the recorded outcomes through the same
/// evaluator (`ReplayRuleWalk`), and `--explain` evaluates the rules as written with traces
/// (`LiveRuleWalk`). Which rules are reached, and so which plugin calls are made, is decided
/// here and in `RuleEvaluator` only.
public final class RuleProgram {
    /// By step: the rule, what it guards, and the step to go on at when it is not true. (Three
    /// arrays, not one of structs: the hot loop reads a rule and a skip, and copies no subject.)
    public let rules: [CompiledRule]
    public let subjects: [RuleSubject]
    public let skips: [Int]
    /// Every rule reference of the program in evaluation order (steps in order, each rule's
    /// references as written): `leaves[k].leafIndex == k`. A walk keeps what it knows of a
    /// reference (a memo) by that index.
    public let leaves: [CompiledRule]

    public var count: Int { rules.count }

    /// The program of `resolver`'s screen.
    init(_ resolver: Resolver) {
        let factory = resolver.factory
        var rules: [CompiledRule] = [], subjects: [RuleSubject] = [], skips: [Int] = [], leaves: [CompiledRule] = []
        func add(_ rule: RuleExpression, _ subject: RuleSubject) -> Int {
            rules.append(CompiledRule(rule, factory: factory, leaves: &leaves))
            subjects.append(subject)
            skips.append(0)
            return rules.count - 1
        }
        func component(_ c: Component) {
            if resolver.isInvalid(c.serial) { return }
            let isSpotsRoot = c.type == ScreenParser.spotsRootType && c.path == "components"
            let reg = isSpotsRoot ? nil : factory.componentRegistration(c.type)
            let at = c.rule.map { add($0, .component(c)) }
            if isSpotsRoot || reg != nil {
                for child in c.children { component(child) }
                if reg?.kind == .collection {
                    if let h = c.header { component(h) }
                    for item in c.items where !resolver.isInvalid(item.serial) {
                        let itemAt = item.rule.map { add($0, .item(item)) }
                        for child in item.children { component(child) }
                        if let itemAt { skips[itemAt] = rules.count }
                    }
                    if let f = c.footer { component(f) }
                }
            }
            if let at { skips[at] = rules.count }
        }
        component(resolver.screen.root)
        (self.rules, self.subjects, self.skips, self.leaves) = (rules, subjects, skips, leaves)
    }

    /// Runs the program with `walk`'s leaves: each step's rule through `RuleEvaluator.run`; a
    /// rule that is not true skips the rules of what it guards. `stopOnFailure`: stop at the
    /// first rule that fails (false returned), else a failed rule hides what it guards and the
    /// program goes on. (Inlinable: specialized for each walk, also in other modules.)
    @inlinable
    @discardableResult
    public func run<W: RuleProgramWalk>(_ walk: inout W, stopOnFailure: Bool = false) -> Bool {
        var i = 0
        let n = rules.count
        while i < n {
            walk.enter(step: i)
            let v = walk.value(of: RuleEvaluator.run(rules[i], &walk))
            if v == true {
                i += 1
            } else {
                if v == nil && stopOnFailure { return false }
                i = skips[i]
            }
        }
        return true
    }

    /// The leaves' outcomes for one resolution (0 false, 1 true, 2 failed) in evaluation order,
    /// the rules called (each call counted, each failure reported) as the resolver calls them.
    func outcomes(_ ctx: ResolutionContext) -> [UInt8] {
        guard !rules.isEmpty else { return [] }
        var walk = CallWalk(program: self, ctx: ctx)
        walk.leaves.reserveCapacity(leaves.count + 16)
        run(&walk)
        return walk.leaves
    }

    /// Leaves that call the rule, recording each outcome (0 false, 1 true, 2 failed).
    struct CallWalk: RuleValueWalk {
        let program: RuleProgram
        let ctx: ResolutionContext
        var leaves: [UInt8] = []
        var step = 0

        init(program: RuleProgram, ctx: ResolutionContext) {
            self.program = program
            self.ctx = ctx
        }

        mutating func enter(step: Int) { self.step = step }

        @inline(__always)
        mutating func leaf(_ node: CompiledRule) -> Bool? {
            guard let evaluator = node.evaluator else {
                leaves.append(2)
                return nil
            }
            let subject = program.subjects[step]
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
    }
}

/// A walk a `RuleProgram` runs: told which step it is at before each step's rule.
public protocol RuleProgramWalk: RuleWalk where Node == CompiledRule {
    mutating func enter(step: Int)
}

/// A program walk that keeps values only (no trace, skipped operands not visited): a leaf is
/// worth true, false or nil (failed).
public protocol RuleValueWalk: RuleProgramWalk where Outcome == Bool?, Group == Void {}

extension RuleValueWalk {
    @inlinable public static var reportsSkipped: Bool { false }
    @inlinable @inline(__always) public func value(of outcome: Bool?) -> Bool? { outcome }
    @inlinable @inline(__always) public func group(_ node: CompiledRule) {}
    @inlinable @inline(__always) public func add(_ outcome: Bool?, to group: inout Void) {}
    @inlinable @inline(__always) public func skip(_ node: CompiledRule, in group: inout Void) {}
    @inlinable @inline(__always) public func finish(_ group: Void, value: Bool?, error: String?) -> Bool? { value }
    @inlinable @inline(__always) public func negation(_ node: CompiledRule, of inner: Bool?, value: Bool?, error: String?) -> Bool? { value }
}

/// A rule expression with its rule registrations looked up once (a rule program's, or a named
/// rule's program's).
public final class CompiledRule: RuleNode {
    public let ruleShape: RuleShape<CompiledRule>
    public let name: String
    public let evaluator: (any RuleEvaluating)?
    public let plugin: String
    public let args: JSONNode?
    public let location: SourceLocation
    /// A project's named rule (evaluated as its expression; failures reported inside).
    public let isNamed: Bool
    /// A rule reference's place among its program's leaves (-1: not a reference, or outside a
    /// program).
    public let leafIndex: Int

    convenience init(_ rule: RuleExpression, factory: Factory) {
        var unused: [CompiledRule] = []
        self.init(rule, factory: factory, leaves: &unused, numbered: false)
    }

    /// `rule` compiled, each rule reference numbered and appended to `leaves` in the order written.
    convenience init(_ rule: RuleExpression, factory: Factory, leaves: inout [CompiledRule]) {
        self.init(rule, factory: factory, leaves: &leaves, numbered: true)
    }

    private init(_ rule: RuleExpression, factory: Factory, leaves: inout [CompiledRule], numbered: Bool) {
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
            leafIndex = numbered ? leaves.count : -1
            if numbered { leaves.append(self) }
            return
        case .and(let rs, _):
            ruleShape = .and(rs.map { CompiledRule($0, factory: factory, leaves: &leaves, numbered: numbered) })
        case .or(let rs, _):
            ruleShape = .or(rs.map { CompiledRule($0, factory: factory, leaves: &leaves, numbered: numbered) })
        case .not(let r, _):
            ruleShape = .not(CompiledRule(r, factory: factory, leaves: &leaves, numbered: numbered))
        }
        name = ""
        evaluator = nil
        plugin = ""
        args = nil
        isNamed = false
        leafIndex = -1
    }
}

/// The outcomes of a resolution's rules: every leaf's value (true, false, failed) in
/// evaluation order.
struct OutcomeKey: Hashable {
    /// The leaves' outcomes in evaluation order: with the screen's fixed rule program they
    /// determine which rules ran and what each returned.
    var leaves: [UInt8]
}

extension Resolver {
    /// The rule program a cached resolution runs (nil without a cache). Running it with other
    /// leaves that record each outcome (0 false, 1 true) gives the leaves
    /// `resolve(for:context:replaying:)` takes.
    public var ruleProgram: RuleProgram? {
        cache?.ruleProgram(self)
    }
}
