/// The user attributes a screen's rules read (as the rules declare them, named rules
/// expanded) that a user lacks: one warning per attribute, at the first rule reference
/// (in the order written) that reads it.
public enum MissingAttributes {
    /// `provided`: attributes the resolution supplies when the user lacks them (the device
    /// context's `device.idiom`, `traits.horizontal`, …): never missing.
    public static func warnings(_ screen: Screen, factory: Factory, user: UserProfile, provided: Set<String> = []) -> Diagnostics {
        var d = Diagnostics()
        var warned = Set<String>()
        let who = user.name.map { "user '\($0)'" } ?? "the user"

        func reads(_ rule: RuleExpression, at reference: SourceLocation?, expanding: inout Set<String>) {
            for ref in rule.references {
                guard let reg = factory.rules[ref.name] else { continue }
                if let named = reg.evaluator as? NamedRule {
                    guard expanding.insert(named.name).inserted else { continue }
                    reads(named.expression, at: reference ?? ref.location, expanding: &expanding)
                    expanding.remove(named.name)
                    continue
                }
                for a in reg.attributesRead(args: ref.args) ?? [] where user.attributes[a] == nil && !a.hasPrefix("params.") && !provided.contains(a) && warned.insert(a).inserted {
                    let hint = a == "now" ? "give --now" : "give it with --context \(a)=VALUE or in users.json"
                    d.warning("rule '\(ref.name)' reads attribute '\(a)', which \(who) lacks, so it sees it as missing (\(hint))", at: reference ?? ref.location)
                }
            }
        }
        func visit(_ rule: RuleExpression?) {
            guard let rule else { return }
            var expanding = Set<String>()
            reads(rule, at: nil, expanding: &expanding)
        }
        func visit(_ c: Component) {
            visit(c.rule)
            for child in c.children { visit(child) }
            for item in c.items {
                visit(item.rule)
                for child in item.children { visit(child) }
            }
        }
        visit(screen.root)
        return d
    }
}
