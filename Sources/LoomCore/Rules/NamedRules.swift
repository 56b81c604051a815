/// A project's named rule (loom.json `rules` or `rules.json`), registered in the factory
/// beside the plugins' rules: a reference to it is evaluated as its expression written in
/// place (`--explain` shows the name, then the expression's trace).
///
/// Named rules form a graph (a rule may use others), and everything done with that graph is
/// done over it, never over the expanded tree, and without recursion whose depth the project
/// chooses: the cycle check and the propagation of problems at registration
/// (`NamedRules.register`), evaluation (`NamedRuleEvaluator`: an explicit stack, and each named
/// rule evaluated once per use, however many of the rules it reaches share it), explanations
/// (`LiveRuleWalk`: a shared rule's trace shown once, expansion bounded in depth) and the
/// attributes a screen's rules read (`MissingAttributes`: each named rule visited once).
public final class NamedRule: RuleEvaluating {
    public let name: String
    public let expression: RuleExpression
    public let location: SourceLocation
    /// Why the rule cannot be used (part of a cycle, refers to an unknown rule, …): reported
    /// at its definition; every reference to it is an error too.
    public internal(set) var problem: String?
    /// The factory holding this rule (which owns it).
    unowned(unsafe) let factory: Factory
    /// Its place among the project's named rules (in the order written): its key in the memo of
    /// one evaluation (`NamedRuleMemo`).
    let index: Int
    /// Every rule reference in its expression, in the order written (computed once).
    let references: [(name: String, args: JSONNode?, location: SourceLocation)]
    /// How many levels its own expression nests (a rule name 1, `{"NOT": "x"}` 2, …): what
    /// expanding it adds to the depth of an explanation.
    let depth: Int
    private var compiledProgram: NamedRuleProgram?

    init(name: String, expression: RuleExpression, location: SourceLocation, factory: Factory, index: Int) {
        self.name = name
        self.expression = expression
        self.location = location
        self.factory = factory
        self.index = index
        references = expression.references
        depth = expression.depth
    }

    /// The plugin a named rule is listed under.
    public static let owner = "project"

    /// How deep `--explain` expands named rules inside named rules: the levels of their own
    /// expressions, added up along the way (see `LiveRuleWalk`).
    public static let explainedDepth = 64

    /// Its expression as a flat program (compiled on first use, once every named rule is
    /// registered; only rules without a problem are compiled, and those use only rules without a
    /// problem, so the programs' references to each other form no cycle).
    var program: NamedRuleProgram {
        if let p = compiledProgram { return p }
        let p = NamedRuleProgram(expression, factory: factory)
        compiledProgram = p
        return p
    }

    public func check(args: JSONNode?, file: String) -> [String] {
        var out: [String] = []
        if args != nil { out.append("a named rule takes no arguments (defined at \(location)); write it as \"\(name)\"") }
        if let problem { out.append("this named rule cannot be used: \(problem) (defined at \(location))") }
        return out
    }

    /// The expression's value; a failure of one of its rules is reported where that rule is
    /// written (and fails this reference closed). Each named rule it reaches is evaluated once.
    public func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        if let problem { return .failure(BuildFailure("named rule '\(name)' cannot be used: \(problem)")) }
        var memo: NamedRuleMemo?
        guard let v = NamedRuleEvaluator.value(self, subject: subject, context: context, memo: &memo) else {
            return .failure(BuildFailure("a rule of named rule '\(name)' failed"))
        }
        return .success(v)
    }
}

extension RuleExpression {
    /// How many levels the expression nests (a rule reference is 1). Recursive: its depth is
    /// bounded by the JSON reader's nesting limit, like every walk over one expression.
    var depth: Int {
        switch self {
        case .rule: return 1
        case .and(let rs, _), .or(let rs, _): return 1 + rs.reduce(0) { max($0, $1.depth) }
        case .not(let r, _): return 1 + r.depth
        }
    }
}

/// A named rule's expression as a flat program for `NamedRuleEvaluator`: its rule references in
/// the order written, with jumps for AND / OR's short-circuits. One value register: each rule
/// sets it; AND goes on after an operand only when it is true (false or failed is the AND's
/// value), OR only when it is false; NOT negates it (a failure stays a failure). This is the
/// same evaluation as `RuleEvaluator.run`'s, written so that a named rule inside a named rule is
/// a jump, not a nested call.
struct NamedRuleProgram {
    enum Op {
        /// A registered rule that is not a named rule (or an unknown name: fails).
        case rule(CompiledRule)
        /// A named rule: its value, evaluated now unless this evaluation knows it already.
        case named(NamedRuleReference)
        /// AND: unless the value is true, jump to the end of the AND.
        case unlessTrue(Int)
        /// OR: unless the value is false, jump to the end of the OR.
        case unlessFalse(Int)
        case not
    }
    let ops: [Op]

    init(_ expression: RuleExpression, factory: Factory) {
        var ops: [Op] = []
        // Recursive over one expression (bounded by the JSON nesting limit), never into another
        // named rule: those are one op each.
        func compile(_ e: RuleExpression) {
            switch e {
            case .rule(let name, _, _):
                if let named = factory.rules[name]?.evaluator as? NamedRule {
                    ops.append(.named(NamedRuleReference(rule: named)))
                } else {
                    ops.append(.rule(CompiledRule(e, factory: factory)))
                }
            case .and(let rs, _), .or(let rs, _):
                let isAnd: Bool
                if case .and = e { isAnd = true } else { isAnd = false }
                var jumps: [Int] = []
                for (k, r) in rs.enumerated() {
                    compile(r)
                    if k < rs.count - 1 {
                        jumps.append(ops.count)
                        ops.append(.not)  // replaced below, once the end is known
                    }
                }
                for j in jumps { ops[j] = isAnd ? .unlessTrue(ops.count) : .unlessFalse(ops.count) }
            case .not(let r, _):
                compile(r)
                ops.append(.not)
            }
        }
        compile(expression)
        self.ops = ops
    }
}

/// A named rule as another named rule's program refers to it: not owned (the factory owns every
/// named rule, and evaluates them only while it lives). Owned, a chain of 50,000 named rules
/// would be freed as a chain of 50,000 nested releases, deeper than the thread's stack.
struct NamedRuleReference {
    unowned(unsafe) let rule: NamedRule
}

/// What one evaluation knows of the named rules it reached: each one's value (true, false,
/// failed) and whether an explanation has shown its trace. One evaluation is one use of a named
/// rule (a reference in a screen, an item or flows.json): rules are deterministic and see the
/// same user and subject throughout, so a named rule several of the rules reach is evaluated
/// once. (A class: the walks of one explanation share it.)
final class NamedRuleMemo {
    enum State: UInt8 { case evaluating, isFalse, isTrue, failed }
    private(set) var states: [Int: State] = [:]
    /// The rules whose trace an explanation has shown.
    var shown = Set<Int>()

    init() {}

    func state(_ r: NamedRule) -> State? { states[r.index] }

    func begin(_ r: NamedRule) { states[r.index] = .evaluating }

    func finish(_ r: NamedRule, _ value: Bool?) {
        states[r.index] = value.map { $0 ? .isTrue : .isFalse } ?? .failed
    }
}

/// Evaluates named rules without recursion: a named rule inside a named rule pushes a frame on
/// an explicit stack (so a chain of 50,000 named rules needs 50,000 frames of the heap, not of
/// the thread's stack), and a named rule this evaluation already evaluated is not evaluated
/// again (so `r_i = AND(r_{i+1}, r_{i+1})` over 40 levels evaluates 41 named rules, not 2^40).
/// Plugin rules are called as the rule program calls them (counted, failures reported where they
/// are written); nothing is allocated for a named rule that uses no other named rule.
enum NamedRuleEvaluator {
    /// The value of `top` (nil: one of its rules failed), `memo` created when a named rule inside
    /// it is reached (and shared with the caller's).
    static func value(_ top: NamedRule, subject: RuleSubject, context ctx: ResolutionContext, memo: inout NamedRuleMemo?) -> Bool? {
        ctx.namedRuleEvaluations += 1
        var rule = top
        var program = top.program
        var pc = 0
        var value: Bool?
        var frames: [(rule: NamedRule, program: NamedRuleProgram, resume: Int)] = []
        while true {
            if pc == program.ops.count {
                guard let caller = frames.popLast() else { return value }
                memo!.finish(rule, value)
                (rule, program, pc) = caller
                continue
            }
            switch program.ops[pc] {
            case .rule(let leaf):
                value = call(leaf, subject: subject, ctx: ctx)
            case .named(let reference):
                let inner = reference.rule
                if inner.problem != nil {
                    // Not reached: a rule without a problem uses only rules without one.
                    value = nil
                    break
                }
                if memo == nil {
                    memo = NamedRuleMemo()
                    memo!.begin(top)
                }
                if let known = memo!.state(inner) {
                    switch known {
                    case .isTrue: value = true
                    case .isFalse: value = false
                    // `.evaluating`: a cycle, which registration rules out; failed closed.
                    case .failed, .evaluating: value = nil
                    }
                    break
                }
                memo!.begin(inner)
                ctx.namedRuleEvaluations += 1
                frames.append((rule, program, pc + 1))
                (rule, program, pc) = (inner, inner.program, 0)
                continue
            case .unlessTrue(let end):
                if value != true {
                    pc = end
                    continue
                }
            case .unlessFalse(let end):
                if value != false {
                    pc = end
                    continue
                }
            case .not:
                value = value.map { !$0 }
            }
            pc += 1
        }
    }

    /// A plugin's rule, as the rule program calls it: counted, its failure reported where it is
    /// written; an unknown rule fails.
    @inline(__always)
    private static func call(_ leaf: CompiledRule, subject: RuleSubject, ctx: ResolutionContext) -> Bool? {
        guard let evaluator = leaf.evaluator else { return nil }
        switch RuleEvaluator.call(evaluator, args: leaf.args, at: leaf.location, subject: subject, context: ctx) {
        case .success(let v): return v
        case .failure(let f):
            if !leaf.isNamed {
                RuleEvaluator.reportFailure(f, name: leaf.name, plugin: leaf.plugin, subject: subject, at: leaf.location, ctx: ctx)
            }
            return nil
        }
    }
}

/// Registers a project's named rules into a factory (after the plugins), checking them: a name
/// a plugin's rule already has, a reference to an unknown rule (with a did-you-mean), a cycle
/// (named in full: a → b → a), arguments that do not fit a rule's schema. Each is an error
/// located in the file that defines the rule. Linear in the size of the rules (no recursion
/// whose depth they choose; each rule and reference looked at a bounded number of times).
public enum NamedRules {
    /// A cycle longer than this is named by its first and last rules, with the count between.
    static let cycleNamesShown = 16

    public static func register(_ sources: [NamedRuleSource], into factory: Factory, definedIn file: String) -> Diagnostics {
        var d = Diagnostics()
        var rules: [String: NamedRule] = [:]
        var order: [NamedRule] = []
        let info = PluginInfo(name: NamedRule.owner, version: LoomVersion.string, folder: file)
        for s in sources {
            if let existing = factory.rules[s.name] {
                d.error("named rule '\(s.name)' shadows rule '\(s.name)' of plugin \(existing.plugin.name) (\(existing.location)); choose another name", at: s.location)
                continue
            }
            if let first = rules[s.name] {
                d.error("named rule '\(s.name)' is already defined at \(first.location)", at: s.location)
                continue
            }
            guard let expression = s.expression else { continue }
            let r = NamedRule(name: s.name, expression: expression, location: s.location, factory: factory, index: order.count)
            rules[s.name] = r
            order.append(r)
        }
        // References: unknown names, arguments. The did-you-means share their candidates and
        // one work budget: 50,000 rules each naming an unknown rule, among 50,000 names, would
        // otherwise compare every name with every other.
        var known: DidYouMean.Candidates?
        for r in order {
            for ref in r.references {
                if let named = rules[ref.name] {
                    // A named rule takes no arguments: given some, they would be dropped.
                    if ref.args != nil {
                        d.error("rule '\(ref.name)' in named rule '\(r.name)': a named rule takes no arguments (defined at \(named.location)); write it as \"\(ref.name)\"",
                                at: ref.args.map { $0.position.located(in: ref.location.file) } ?? ref.location)
                        r.problem = r.problem ?? "it gives arguments to named rule '\(ref.name)'"
                    }
                    continue
                }
                guard let reg = factory.rules[ref.name] else {
                    if known == nil { known = DidYouMean.Candidates(Array(factory.rules.keys) + order.map(\.name), budget: DidYouMean.batchBudget) }
                    d.error("unknown rule '\(ref.name)' in named rule '\(r.name)'\(known!.hint(ref.name))", at: ref.location)
                    r.problem = r.problem ?? "it uses unknown rule '\(ref.name)'"
                    continue
                }
                if !checkArguments(ref, reg, file: ref.location.file, diagnostics: &d) {
                    r.problem = r.problem ?? "the arguments of rule '\(ref.name)' are invalid"
                }
            }
        }
        reportCycles(order, rules, &d)
        propagateProblems(order, rules)
        for r in order {
            do {
                try factory.register(RuleRegistration(
                    name: r.name, plugin: info, location: r.location, description: "named rule: " + r.expression.text, evaluator: r))
            } catch {
                d.append(error)
            }
        }
        return d
    }

    /// The declared schema, then the rule's own check (as for a rule written in a screen).
    static func checkArguments(_ ref: (name: String, args: JSONNode?, location: SourceLocation), _ reg: RuleRegistration, file: String, diagnostics d: inout Diagnostics) -> Bool {
        if let schema = reg.arguments, ref.args?.firstTooDeep() == nil {
            let problems = ArgumentValidator.validate(ref.args, against: schema, at: SourcePosition(line: ref.location.line, column: ref.location.column))
            for p in problems { d.error("rule '\(ref.name)': \(p.message)", at: p.position.located(in: file)) }
            if !problems.isEmpty { return false }
        }
        let messages = reg.evaluator.check(args: ref.args, file: file)
        for m in messages {
            d.error("rule '\(ref.name)': \(m)", at: ref.args.map { $0.position.located(in: file) } ?? ref.location)
        }
        return messages.isEmpty
    }

    /// Each cycle once, at the definition of its first rule (in the order written), named in
    /// full; every rule on it cannot be used.
    ///
    /// A depth-first search from each rule in the order written, following each rule's
    /// references in the order written (a name once per rule); a reference to a rule on the
    /// current path closes a cycle. The search keeps its path on an explicit stack, so its depth
    /// is not the thread's. Marking the rules of a cycle costs nothing for rules already marked:
    /// the path's unmarked rules are kept on a stack of their own, and a cycle marks the top of
    /// the path down to where it starts.
    static func reportCycles(_ order: [NamedRule], _ rules: [String: NamedRule], _ d: inout Diagnostics) {
        var state = [UInt8](repeating: 0, count: order.count)  // 1 on the path, 2 done
        var path: [NamedRule] = []
        /// Each rule's position on the path, while it is on it.
        var position = [Int](repeating: -1, count: order.count)
        /// Positions on the path of its rules without a problem yet, increasing.
        var unmarked: [Int] = []
        struct Frame { let rule: NamedRule; var next = 0; var seen = Set<String>() }
        var frames: [Frame] = []

        func enter(_ r: NamedRule) {
            state[r.index] = 1
            position[r.index] = path.count
            if r.problem == nil { unmarked.append(path.count) }
            path.append(r)
            frames.append(Frame(rule: r))
        }
        for root in order where state[root.index] == 0 {
            enter(root)
            while !frames.isEmpty {
                let top = frames.count - 1
                let r = frames[top].rule
                guard frames[top].next < r.references.count else {
                    // Done with r: off the path.
                    frames.removeLast()
                    path.removeLast()
                    position[r.index] = -1
                    if unmarked.last == path.count { unmarked.removeLast() }
                    state[r.index] = 2
                    continue
                }
                let ref = r.references[frames[top].next]
                frames[top].next += 1
                guard frames[top].seen.insert(ref.name).inserted, let next = rules[ref.name] else { continue }
                if state[next.index] == 1 {
                    let start = position[next.index]
                    let text = cycleText(path, from: start, closing: next)
                    d.error("named rule '\(next.name)' refers to itself: \(text)", at: next.location)
                    let problem = "it is part of the cycle \(text)"
                    while let p = unmarked.last, p >= start {
                        unmarked.removeLast()
                        path[p].problem = problem
                    }
                } else if state[next.index] == 0 {
                    enter(next)
                }
            }
        }
    }

    /// `a → b → a`: the path from `start`, then the rule that closes the cycle. A cycle of more
    /// than `cycleNamesShown` rules names its first and last rules and counts those between (the
    /// text of a long cycle would otherwise grow with its length, once per cycle).
    static func cycleText(_ path: [NamedRule], from start: Int, closing next: NamedRule) -> String {
        let count = path.count - start
        if count <= cycleNamesShown {
            return (path[start...].map(\.name) + [next.name]).joined(separator: " → ")
        }
        let head = cycleNamesShown / 2, tail = cycleNamesShown - head
        let first = path[start..<start + head].map(\.name)
        let last = path[(path.count - tail)...].map(\.name) + [next.name]
        return (first + ["… (\(count - head - tail) more) …"] + last).joined(separator: " → ")
    }

    /// A rule using a rule that cannot be used cannot be used either: "it uses named rule 'x',
    /// which cannot be used", naming the rule it uses that the problem reached first.
    ///
    /// The problems reach the rules as a repeated pass over the rules in the order written would
    /// carry them (each pass gives a rule without a problem the first of its references, in the
    /// order written, to a rule that has one at that moment), which is what the messages have
    /// always said; but computed in one pass over the rules with references before the rules
    /// using them: a rule's pass number is the smallest over its references to rules with
    /// problems (a rule's own problem counts as pass 0, seen in pass 1; a problem given earlier
    /// in the same pass is seen by the rules written after it, else in the next pass). The rules
    /// without a problem after the cycle check use each other without a cycle (every cycle has a
    /// rule on it marked), so that order exists. Before, each pass moved a problem one rule along
    /// a chain: quadratic in the chain's length.
    static func propagateProblems(_ order: [NamedRule], _ rules: [String: NamedRule]) {
        // The pass that gave each rule its problem (0: its own; nil: none).
        var pass = [Int?](repeating: nil, count: order.count)
        for r in order where r.problem != nil { pass[r.index] = 0 }
        // The rules without a problem, each after the rules it uses (an explicit-stack
        // depth-first search, post-order).
        var sorted: [NamedRule] = []
        var visited = [Bool](repeating: false, count: order.count)
        var stack: [(rule: NamedRule, next: Int)] = []
        for root in order where root.problem == nil && !visited[root.index] {
            visited[root.index] = true
            stack.append((root, 0))
            while !stack.isEmpty {
                let top = stack.count - 1
                let r = stack[top].rule
                guard stack[top].next < r.references.count else {
                    stack.removeLast()
                    sorted.append(r)
                    continue
                }
                let ref = r.references[stack[top].next]
                stack[top].next += 1
                if let next = rules[ref.name], next.problem == nil, !visited[next.index] {
                    visited[next.index] = true
                    stack.append((next, 0))
                }
            }
        }
        for r in sorted {
            var best: (pass: Int, name: String)?
            for ref in r.references {
                guard let s = rules[ref.name], let p = pass[s.index] else { continue }
                let seenIn = p == 0 ? 1 : (s.index < r.index ? p : p + 1)
                if best == nil || seenIn < best!.pass { best = (seenIn, ref.name) }
            }
            if let best {
                pass[r.index] = best.pass
                r.problem = "it uses named rule '\(best.name)', which cannot be used"
            }
        }
    }
}
