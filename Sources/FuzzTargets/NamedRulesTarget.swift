import Foundation
import LoomCore

/// `FuzzNamedRules`: a project's named rules (loom.json's `rules`, `rules.json`) on any JSON —
/// the document itself as a `rules` object, and its `rules` member when it has one (so loom.json
/// files are good seeds) — parsed, registered into a factory holding a few plugin rules with
/// fixed answers, then every usable rule evaluated (as the rule plan does) and explained (as
/// `--explain` does).
///
/// Invariants: no crash; a member rejected at parse (bad name, malformed expression) ⇔ a parse
/// error; a rule that cannot be used ⇔ registration reported an error (and it refuses every
/// reference); a usable rule uses only usable rules, evaluates to what a plain evaluation of the
/// rules' values in dependency order gives, with at most one call per plugin rule reference
/// written in all the named rules (each named rule evaluated once per use, however many rules
/// share it), and its explanation has the same value, holds each named rule's expression at
/// most once and is no deeper than the expansion limit allows.
extension FuzzTargets {
    public static func namedRules(_ data: [UInt8]) {
        guard let doc = try? JSONReader.parse(data, file: "rules.json") else { return }
        namedRulesOf(doc.root, in: doc)
        if let rules = doc.root.object?.members.first(where: { $0.key == "rules" })?.value {
            namedRulesOf(rules, in: doc)
        }
    }

    /// Plugin rules with fixed answers (true, false or a failure, by name) that count calls.
    final class FixedRule: RuleEvaluating {
        let answer: Result<Bool, BuildFailure>
        var calls = 0
        init(_ answer: Result<Bool, BuildFailure>) { self.answer = answer }
        func check(args: JSONNode?, file: String) -> [String] { [] }
        func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
            calls += 1
            return answer
        }
    }

    final class BoxBuilder: ComponentBuilding {
        func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> { .success(BuildOutput(view: "V", props: .object([:]))) }
    }

    /// The plugin rules: names the seeds use, each with an answer.
    static let fixedRules: [(String, Result<Bool, BuildFailure>)] = [
        ("yes", .success(true)), ("no", .success(false)), ("boom", .failure(BuildFailure("kaput"))),
        ("is_gold_member", .success(true)), ("at_least", .success(false)), ("equals", .success(true)),
        ("is_subscriber", .success(false)), ("between", .failure(BuildFailure("no time"))), ("rollout", .success(true)),
    ]

    /// How many usable rules one input evaluates (each evaluation may walk every rule).
    static let evaluatedRules = 24

    static func namedRulesOf(_ node: JSONNode, in doc: JSONDocument) {
        var pd = Diagnostics()
        let sources = NamedRuleSource.parse(node, in: doc, place: "rules", diagnostics: &pd)
        for d in pd.items { _ = d.description }
        let members = node.object?.members.filter { $0.key != "$schema" }.count
        let rejected = members.map { $0 != sources.count } ?? true || sources.contains { $0.expression == nil }
        check(rejected == pd.hasErrors, "rejected at parse: \(rejected), parse errors: \(pd.items.map(\.description))")

        let factory = Factory()
        let plugin = PluginInfo(name: "p", version: "1", folder: "p")
        let at = SourceLocation(file: "p.lua", line: 1, column: 1)
        var fixed: [String: FixedRule] = [:]
        for (name, answer) in fixedRules {
            let r = FixedRule(answer)
            fixed[name] = r
            try! factory.register(RuleRegistration(name: name, plugin: plugin, location: at, evaluator: r))
        }
        try! factory.register(ComponentRegistration(type: "stack", kind: .cluster, plugin: plugin, location: at, openMeta: true, builder: BoxBuilder()))
        try! factory.register(ComponentRegistration(type: "box", kind: .single, plugin: plugin, location: at, openMeta: true, builder: BoxBuilder()))
        let rd = NamedRules.register(sources, into: factory, definedIn: "rules.json")
        for d in rd.items {
            _ = d.description
            check(d.location != nil, "a registration error without a location: \(d)")
        }

        // The named rules registered (the first of each name that no plugin rule has).
        var named: [NamedRule] = []
        var seen = Set<String>()
        for s in sources where s.expression != nil && fixed[s.name] == nil && seen.insert(s.name).inserted {
            guard let r = factory.rules[s.name]?.evaluator as? NamedRule else { fuzzFailure("named rule '\(s.name)' is not registered") }
            named.append(r)
        }
        var byName: [String: NamedRule] = [:]
        for r in named { byName[r.name] = r }
        let unusable = named.filter { $0.problem != nil }
        check(unusable.isEmpty || rd.hasErrors, "rules that cannot be used (\(unusable.map(\.name))) but no registration error")
        check(!unusable.isEmpty || !rd.items.contains { $0.message.contains("named rule") && $0.message.contains("refers to itself") },
              "a cycle reported but every rule usable")

        // Plugin rule references written in all the named rules: the most one use may call.
        var pluginReferences = 0
        var expressionNodes = 0
        for r in named {
            for ref in r.expression.references where byName[ref.name] == nil { pluginReferences += 1 }
            expressionNodes += size(r.expression)
        }

        let values = plainValues(named, byName)
        let user = UserProfile(name: "u", attributes: [:])
        let usable = named.filter { $0.problem == nil }
        let chosen = usable.count <= evaluatedRules ? usable : Array(usable.prefix(evaluatedRules / 2) + usable.suffix(evaluatedRules / 2))
        for r in chosen {
            for ref in r.expression.references {
                if let u = byName[ref.name] { check(u.problem == nil, "usable '\(r.name)' uses unusable '\(u.name)'") }
            }
            for f in fixed.values { f.calls = 0 }
            let ctx = ResolutionContext(user: user, screenID: "f")
            let component = Component(
                type: "box", typeLocation: r.location, id: nil, idLocation: nil, meta: nil, children: [], rule: .rule(name: r.name, args: nil, location: r.location),
                hasRule: true, items: [], hasItems: false, layout: nil, header: nil, footer: nil, title: nil, action: nil,
                actionLocation: nil, style: nil, location: r.location, path: "root", serial: 0)
            let result = r.evaluate(args: nil, at: r.location, subject: .component(component), context: ctx)
            let value: Bool? = if case .success(let v) = result { v } else { nil }
            check(value == values[r.name]!, "'\(r.name)' evaluated to \(String(describing: value)), its plain value is \(String(describing: values[r.name]!))")
            let calls = fixed.values.reduce(0) { $0 + $1.calls }
            check(calls <= pluginReferences, "'\(r.name)': \(calls) plugin calls for \(pluginReferences) references written")
            explain(r, factory: factory, user: user, value: value, nodes: expressionNodes)
        }
        for r in unusable.prefix(8) {
            check(!r.check(args: nil, file: "s.json").isEmpty, "unusable '\(r.name)' accepts a reference")
            let ctx = ResolutionContext(user: user, screenID: "f")
            let component = Component(
                type: "box", typeLocation: r.location, id: nil, idLocation: nil, meta: nil, children: [], rule: nil,
                hasRule: false, items: [], hasItems: false, layout: nil, header: nil, footer: nil, title: nil, action: nil,
                actionLocation: nil, style: nil, location: r.location, path: "root", serial: 0)
            if case .success = r.evaluate(args: nil, at: r.location, subject: .component(component), context: ctx) {
                fuzzFailure("unusable '\(r.name)' evaluated")
            }
        }
    }

    /// `r` explained in a screen: the same value, each named rule's expression at most once, a
    /// bounded depth.
    static func explain(_ r: NamedRule, factory: Factory, user: UserProfile, value: Bool?, nodes: Int) {
        let text = "{\"screen\": \"f\", \"root\": {\"type\": \"stack\", \"children\": [{\"type\": \"box\", \"id\": \"x\", \"rule\": "
            + JSONValue.string(r.name).serialized(pretty: false) + "}]}}"
        guard let doc = try? JSONReader.parse(Array(text.utf8), file: "f.json"),
              let screen = ScreenParser.parse(doc, defaultID: "f").0 else { fuzzFailure("the explaining screen does not parse") }
        let checked = ScreenChecker.check(screen, factory: factory)
        check(!checked.diagnostics.hasErrors, "a usable rule refused in a screen: \(checked.diagnostics.items)")
        let resolution = Resolver(factory: factory, screen: screen, check: checked).resolve(for: user, explain: true)
        guard let trace = resolution.tree?.children.first?.rule else { fuzzFailure("no trace for '\(r.name)'") }
        check(trace.value == value, "'\(r.name)' explained as \(String(describing: trace.value)), evaluated as \(String(describing: value))")
        var count = 0, deepest = 0
        var stack = [(trace, 1)]
        while let (t, d) = stack.popLast() {
            count += 1
            deepest = max(deepest, d)
            for c in t.children { stack.append((c, d + 1)) }
        }
        check(count <= 1 + nodes, "'\(r.name)': a trace of \(count) nodes for \(nodes) nodes written")
        // The screen's reference, then the expressions of the named rules expanded under it: at
        // most `NamedRule.explainedDepth` levels of them.
        check(deepest <= 1 + NamedRule.explainedDepth, "'\(r.name)': a trace \(deepest) deep")
        for w in MissingAttributes.warnings(screen, factory: factory, user: user).items { _ = w.description }
    }

    /// Nodes of an expression (references and operators).
    static func size(_ e: RuleExpression) -> Int {
        switch e {
        case .rule: return 1
        case .and(let rs, _), .or(let rs, _): return 1 + rs.reduce(0) { $0 + size($1) }
        case .not(let x, _): return 1 + size(x)
        }
    }

    /// Every usable rule's value computed plainly: the rules in dependency order (an explicit
    /// depth-first search), each expression by the evaluation rules (AND / OR left to right,
    /// stopping at the first operand that decides or fails; NOT), plugin rules by their fixed
    /// answers. nil inside: failed.
    static func plainValues(_ named: [NamedRule], _ byName: [String: NamedRule]) -> [String: Bool?] {
        var values: [String: Bool?] = [:]
        let answers = Dictionary(uniqueKeysWithValues: fixedRules.map { ($0.0, $0.1) })
        func value(_ e: RuleExpression) -> Bool? {
            switch e {
            case .rule(let name, _, _):
                if byName[name] != nil { return values[name]! }
                guard case .success(let v)? = answers[name] else { return nil }
                return v
            case .and(let rs, _), .or(let rs, _):
                let isAnd: Bool = if case .and = e { true } else { false }
                for x in rs {
                    guard let v = value(x) else { return nil }
                    if v != isAnd { return v }
                }
                return isAnd
            case .not(let x, _): return value(x).map { !$0 }
            }
        }
        var done = Set<String>()
        for root in named where root.problem == nil && !done.contains(root.name) {
            var stack: [(NamedRule, Bool)] = [(root, false)]
            while let (r, expanded) = stack.popLast() {
                if done.contains(r.name) { continue }
                if expanded {
                    values[r.name] = value(r.expression)
                    done.insert(r.name)
                    continue
                }
                stack.append((r, true))
                for ref in r.expression.references {
                    if let u = byName[ref.name], u.problem == nil, !done.contains(u.name) { stack.append((u, false)) }
                }
            }
        }
        return values
    }
}
