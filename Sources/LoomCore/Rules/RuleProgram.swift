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
    /// Every step's rule as ops in prefix order: a leaf (`arg`: its place in `leaves`), AND / OR
    /// (`arg`: how many operands follow), NOT (one operand follows); `end`: the op after its
    /// operands. (Integers only: walking them retains nothing.)
    public let ops: [RuleOp]
    /// By step: where its rule starts in `ops`, what it guards, and the step to go on at when it
    /// is not true.
    public let starts: [Int32]
    public let subjects: [RuleSubject]
    public let skips: [Int]
    /// Every rule reference of the program in evaluation order (steps in order, each rule's
    /// references as written): `leaves[k].leafIndex == k`. A walk keeps what it knows of a
    /// reference (a memo) by that index.
    public let leaves: [CompiledRule]

    public var count: Int { starts.count }

    /// The program of `resolver`'s screen.
    init(_ resolver: Resolver) {
        let factory = resolver.factory
        var ops: [RuleOp] = [], starts: [Int32] = [], subjects: [RuleSubject] = [], skips: [Int] = []
        var leaves: [CompiledRule] = []
        // Recursive over one expression, bounded by the JSON reader's nesting limit like every
        // walk over one expression.
        func compile(_ r: RuleExpression) {
            let at = ops.count
            switch r {
            case .rule:
                leaves.append(CompiledRule(r, factory: factory, leafIndex: leaves.count))
                ops.append(RuleOp(kind: .leaf, arg: Int32(leaves.count - 1), end: 0))
            case .and(let rs, _), .or(let rs, _):
                let isAnd: Bool
                if case .and = r { isAnd = true } else { isAnd = false }
                ops.append(RuleOp(kind: isAnd ? .and : .or, arg: Int32(rs.count), end: 0))
                rs.forEach(compile)
            case .not(let x, _):
                ops.append(RuleOp(kind: .not, arg: 1, end: 0))
                compile(x)
            }
            ops[at].end = Int32(ops.count)
        }
        func add(_ rule: RuleExpression, _ subject: RuleSubject) -> Int {
            starts.append(Int32(ops.count))
            compile(rule)
            subjects.append(subject)
            skips.append(0)
            return starts.count - 1
        }
        func item(_ item: Item) {
            if resolver.isInvalid(item.serial) { return }
            let itemAt = item.rule.map { add($0, .item(item)) }
            for child in item.children { component(child) }
            if let itemAt { skips[itemAt] = starts.count }
        }
        func component(_ c: Component) {
            if resolver.isInvalid(c.serial) { return }
            let isSpotsRoot = c.type == ScreenParser.spotsRootType && c.path == "components"
            let reg = isSpotsRoot ? nil : factory.componentRegistration(c.type)
            let at = c.rule.map { add($0, .component(c)) }
            if isSpotsRoot || reg != nil {
                for child in c.children { component(child) }
                if reg?.kind == .collection {
                    // A header or footer read as an item (Spots) is walked as an item, as the resolver does.
                    if let h = c.header { if let hi = h.readsAsItem(factory) { item(hi) } else { component(h) } }
                    for it in c.items { item(it) }
                    if let f = c.footer { if let fi = f.readsAsItem(factory) { item(fi) } else { component(f) } }
                }
            }
            if let at { skips[at] = starts.count }
        }
        component(resolver.screen.root)
        (self.ops, self.starts, self.subjects, self.skips, self.leaves) = (ops, starts, subjects, skips, leaves)
    }

    /// Runs the program with `walk`'s leaves: each step's rule through `RuleEvaluator.run`; a
    /// rule that is not true skips the rules of what it guards. `stopOnFailure`: stop at the
    /// first rule that fails (false returned), else a failed rule hides what it guards and the
    /// program goes on. (Inlinable: specialized for each walk, also in other modules.)
    @inlinable
    @discardableResult
    public func run<W: RuleProgramWalk>(_ walk: inout W, stopOnFailure: Bool = false) -> Bool {
        var i = 0
        let n = starts.count
        while i < n {
            walk.enter(step: i)
            let v = walk.value(of: RuleEvaluator.run(starts[i], &walk))
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
        guard !starts.isEmpty else { return [] }
        var walk = CallWalk(program: self, ctx: ctx)
        walk.leaves.reserveCapacity(leaves.count + 16)
        run(&walk)
        return walk.leaves
    }

    /// Leaves that call the rule, recording each outcome (0 false, 1 true, 2 failed).
    struct CallWalk: RuleValueWalk {
        let program: RuleProgram
        let ops: [RuleOp]
        let ctx: ResolutionContext
        var leaves: [UInt8] = []
        var step = 0

        init(program: RuleProgram, ctx: ResolutionContext) {
            self.program = program
            ops = program.ops
            self.ctx = ctx
        }

        @inline(__always) func op(_ node: Int32) -> RuleOp { ops[Int(node)] }

        mutating func enter(step: Int) { self.step = step }

        @inline(__always)
        mutating func leaf(_ op: Int32) -> Bool? {
            let node = program.leaves[Int(ops[Int(op)].arg)]
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

/// One op of a rule program (see `RuleProgram.ops`).
public struct RuleOp: Sendable {
    public let kind: RuleKind
    public let arg: Int32
    public var end: Int32
}

/// A walk a `RuleProgram` runs: its nodes are the program's ops (by index, in `ops`, which the
/// walk holds), and it is told which step it is at before each step's rule.
public protocol RuleProgramWalk: RuleWalk where Node == Int32 {
    /// The program's op at `node` (a walk may hold the ops array, or read it through an object
    /// it does not retain: `VisibilityPlan.KeyWalk`).
    func op(_ node: Int32) -> RuleOp
    mutating func enter(step: Int)
}

extension RuleProgramWalk {
    @inlinable @inline(__always) public func kind(_ node: Int32) -> RuleKind { op(node).kind }
    @inlinable @inline(__always) public func firstOperand(_ node: Int32) -> Int32? { op(node).arg > 0 ? node + 1 : nil }
    @inlinable @inline(__always) public func operand(after operand: Int32, at k: Int, of node: Int32) -> Int32? {
        k + 1 < Int(op(node).arg) ? op(operand).end : nil
    }
    @inlinable @inline(__always) public func notOperand(_ node: Int32) -> Int32 { node + 1 }
}

/// A program walk that keeps values only (no trace, skipped operands not visited): a leaf is
/// worth true, false or nil (failed).
public protocol RuleValueWalk: RuleProgramWalk where Outcome == Bool?, Group == Void {}

extension RuleValueWalk {
    @inlinable public static var reportsSkipped: Bool { false }
    @inlinable @inline(__always) public func value(of outcome: Bool?) -> Bool? { outcome }
    @inlinable @inline(__always) public func group(_ node: Int32) {}
    @inlinable @inline(__always) public func add(_ outcome: Bool?, to group: inout Void) {}
    @inlinable @inline(__always) public func skip(_ node: Int32, in group: inout Void) {}
    @inlinable @inline(__always) public func finish(_ group: Void, value: Bool?, error: String?) -> Bool? { value }
    @inlinable @inline(__always) public func negation(_ node: Int32, of inner: Bool?, value: Bool?, error: String?) -> Bool? { value }
}

/// A rule reference with its registration looked up once (a rule program's leaf, or a named
/// rule's program's).
public final class CompiledRule {
    public let name: String
    public let evaluator: (any RuleEvaluating)?
    public let plugin: String
    public let args: JSONNode?
    public let location: SourceLocation
    /// A project's named rule (evaluated as its expression; failures reported inside).
    public let isNamed: Bool
    /// Its place among its program's leaves (-1: outside a program).
    public let leafIndex: Int

    /// `rule` (a rule reference; anything else compiles to a reference to no rule, which fails).
    init(_ rule: RuleExpression, factory: Factory, leafIndex: Int = -1) {
        location = rule.location
        self.leafIndex = leafIndex
        guard case .rule(let name, let args, _) = rule else {
            name = ""
            evaluator = nil
            plugin = ""
            args = nil
            isNamed = false
            return
        }
        self.name = name
        let reg = factory.rules[name]
        evaluator = reg?.evaluator
        plugin = reg?.plugin.name ?? ""
        self.args = args
        isNamed = reg?.evaluator is NamedRule
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
