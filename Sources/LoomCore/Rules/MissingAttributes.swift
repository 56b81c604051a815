import OrderedCollections

/// The user attributes a screen's rules read (as the rules declare them, named rules
/// expanded) that a user lacks: one warning per attribute, at the first rule reference
/// (in the order written) that reads it.
public enum MissingAttributes {
    /// `provided`: attributes the resolution supplies when the user lacks them (the device
    /// context's `device.idiom`, `traits.horizontal`, …): never missing.
    public static func warnings(_ screen: Screen, factory: Factory, user: UserProfile, provided: Set<String> = []) -> Diagnostics {
        warnings(reads(screen, factory: factory), user: user, provided: provided)
    }

    /// One attribute a rule reference of a screen reads: the rule, where the warning goes, and
    /// whether the component's scope (a template element) gives it.
    public struct Read: Sendable {
        public var attribute: String
        public var rule: String
        public var location: SourceLocation
        public var scoped: Bool
    }

    /// The warnings for `user` from a screen's `reads` (in their order): what `warnings(_:factory:user:provided:)`
    /// gives, with the screen's walk done once for every user (`reads` depends on the screen and the rules alone).
    public static func warnings(_ reads: [Read], user: UserProfile, provided: Set<String> = []) -> Diagnostics {
        var d = Diagnostics()
        var warned = Set<String>()
        let who = user.name.map { "user '\($0)'" } ?? "the user"
        for r in reads where user.attributes[r.attribute] == nil && !r.scoped && !provided.contains(r.attribute) && warned.insert(r.attribute).inserted {
            let a = r.attribute
            let syntax = InputSyntax.current
            let hint = a == "now" ? syntax.giveNow : "give it with \(syntax.attribute(a))"
            d.warning("rule '\(r.rule)' reads attribute '\(a)', which \(who) lacks, so it sees it as missing (\(hint))", at: r.location)
        }
        return d
    }

    /// The attributes `screen`'s rules read, in the order a warning for each would be given
    /// (`params.…` left out: never the user's to give).
    public static func reads(_ screen: Screen, factory: Factory) -> [Read] {
        var out: [Read] = []

        // Each named rule is looked into once for the whole screen: what it reads was warned
        // about (or is not missing) the first time, so a second look would find nothing new,
        // and the warnings come out as a walk of the expanded tree (in the order written,
        // each at the first reference outside named rules) would give them. An explicit stack:
        // a chain of named rules is not a recursion as deep as the chain.
        var looked = Set<Int>()
        func visit(_ rule: RuleExpression?, scope: OrderedDictionary<String, JSONValue>? = nil) {
            guard let rule else { return }
            var stack: [(refs: [(name: String, args: JSONNode?, location: SourceLocation)], next: Int, at: SourceLocation?)] =
                [(rule.references, 0, nil)]
            while !stack.isEmpty {
                let top = stack.count - 1
                guard stack[top].next < stack[top].refs.count else {
                    stack.removeLast()
                    continue
                }
                let ref = stack[top].refs[stack[top].next]
                stack[top].next += 1
                let reference = stack[top].at
                guard let reg = factory.rules[ref.name] else { continue }
                if let named = reg.evaluator as? NamedRule {
                    if looked.insert(named.index).inserted { stack.append((named.references, 0, reference ?? ref.location)) }
                    continue
                }
                for a in reg.attributesRead(args: ref.args) ?? [] where !a.hasPrefix("params.") {
                    out.append(Read(attribute: a, rule: ref.name, location: reference ?? ref.location, scoped: scope?[a] != nil))
                }
            }
        }
        func visit(_ c: Component) {
            // A template element's rule reads its element (`r.open`): never the user's to give.
            visit(c.rule, scope: c.scope)
            for child in c.children { visit(child) }
            for item in c.items {
                visit(item.rule, scope: item.scope)
                for child in item.children { visit(child) }
            }
        }
        visit(screen.root)
        return out
    }
}
