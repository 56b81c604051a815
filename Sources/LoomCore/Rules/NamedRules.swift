/// A project's named rule (loom.json `rules` or `rules.json`), registered in the factory
/// beside the plugins' rules: a reference to it is evaluated as its expression written in
/// place (`--explain` shows the name, then the expression's trace).
public final class NamedRule: RuleEvaluating {
    public let name: String
    public let expression: RuleExpression
    public let location: SourceLocation
    /// Why the rule cannot be used (part of a cycle, refers to an unknown rule, …): reported
    /// at its definition; every reference to it is an error too.
    public internal(set) var problem: String?
    /// The factory holding this rule (which owns it).
    unowned(unsafe) let factory: Factory
    private var compiledRule: CompiledRule?

    init(name: String, expression: RuleExpression, location: SourceLocation, factory: Factory) {
        self.name = name
        self.expression = expression
        self.location = location
        self.factory = factory
    }

    /// The plugin a named rule is listed under.
    public static let owner = "project"

    var compiled: CompiledRule {
        if let c = compiledRule { return c }
        let c = CompiledRule(expression, factory: factory)
        compiledRule = c
        return c
    }

    public func check(args: JSONNode?, file: String) -> [String] {
        var out: [String] = []
        if args != nil { out.append("a named rule takes no arguments (defined at \(location)); write it as \"\(name)\"") }
        if let problem { out.append("this named rule cannot be used: \(problem) (defined at \(location))") }
        return out
    }

    /// The expression's value; a failure of one of its rules is reported where that rule is
    /// written (and fails this reference closed).
    public func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        if let problem { return .failure(BuildFailure("named rule '\(name)' cannot be used: \(problem)")) }
        var walk = PlanRuleWalk(subject: subject, ctx: context, leaves: [])
        guard let v = RuleEvaluator.run(compiled, &walk) else { return .failure(BuildFailure("a rule of named rule '\(name)' failed")) }
        return .success(v)
    }
}

/// Registers a project's named rules into a factory (after the plugins), checking them: a name
/// a plugin's rule already has, a reference to an unknown rule (with a did-you-mean), a cycle
/// (named in full: a → b → a), arguments that do not fit a rule's schema. Each is an error
/// located in the file that defines the rule.
public enum NamedRules {
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
            let r = NamedRule(name: s.name, expression: expression, location: s.location, factory: factory)
            rules[s.name] = r
            order.append(r)
        }
        // References: unknown names, arguments.
        let known = Array(factory.rules.keys) + order.map(\.name)
        for r in order {
            for ref in r.expression.references where rules[ref.name] == nil {
                guard let reg = factory.rules[ref.name] else {
                    d.error("unknown rule '\(ref.name)' in named rule '\(r.name)'\(DidYouMean.hint(ref.name, among: known))", at: ref.location)
                    r.problem = r.problem ?? "it uses unknown rule '\(ref.name)'"
                    continue
                }
                if !checkArguments(ref, reg, file: ref.location.file, diagnostics: &d) {
                    r.problem = r.problem ?? "the arguments of rule '\(ref.name)' are invalid"
                }
            }
        }
        reportCycles(order, rules, &d)
        // A rule using a rule that cannot be used cannot be used either.
        var changed = true
        while changed {
            changed = false
            for r in order where r.problem == nil {
                if let bad = r.expression.references.first(where: { rules[$0.name]?.problem != nil }) {
                    r.problem = "it uses named rule '\(bad.name)', which cannot be used"
                    changed = true
                }
            }
        }
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
    static func reportCycles(_ order: [NamedRule], _ rules: [String: NamedRule], _ d: inout Diagnostics) {
        var state: [String: Int] = [:]  // 1 on the path, 2 done
        var path: [NamedRule] = []
        func visit(_ r: NamedRule) {
            state[r.name] = 1
            path.append(r)
            var seen = Set<String>()
            for ref in r.expression.references where seen.insert(ref.name).inserted {
                guard let next = rules[ref.name] else { continue }
                if state[next.name] == 1 {
                    let start = path.firstIndex { $0 === next }!
                    let cycle = path[start...].map(\.name) + [next.name]
                    let text = cycle.joined(separator: " → ")
                    d.error("named rule '\(next.name)' refers to itself: \(text)", at: next.location)
                    for x in path[start...] { x.problem = x.problem ?? "it is part of the cycle \(text)" }
                } else if state[next.name] == nil {
                    visit(next)
                }
            }
            path.removeLast()
            state[r.name] = 2
        }
        for r in order where state[r.name] == nil { visit(r) }
    }
}
