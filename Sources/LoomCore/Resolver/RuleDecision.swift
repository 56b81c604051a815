/// Decides a rule expression for a user outside a screen (a flows.json step's `when`): the
/// same evaluation as a component's rule, with a stand-in subject.
public enum RuleDecision {
    public static func decide(
        _ rule: RuleExpression, factory: Factory, user: UserProfile, params: [String: String] = [:]
    ) -> Result<Bool, Diagnostic> {
        let location = rule.references.first?.location ?? SourceLocation(file: "flows.json")
        // One subject per rule place, made once (`Factory.decisionSubjects`); a rule without
        // a reference (no place of its own) gets a subject of its own each time.
        let subject: Component
        if let known = factory.decisionSubjects[location], rule.references.first != nil, known.rule == rule {
            subject = known
        } else {
            subject = Component(
                type: "flow_step", typeLocation: location, id: nil, idLocation: nil, meta: nil, children: [], rule: rule,
                hasRule: true, items: [], hasItems: false, layout: nil, header: nil, footer: nil, title: nil, action: nil,
                actionLocation: nil, style: nil, location: location, path: "when", serial: 0)
            if rule.references.first != nil, factory.decisionSubjects.count < 4096 { factory.decisionSubjects[location] = subject }
        }
        let ctx = ResolutionContext(user: user, screenID: "", params: params)
        var walk = LiveRuleWalk(factory: factory, subject: .component(subject), ctx: ctx)
        let trace = RuleEvaluator.run(rule, &walk)
        if let v = trace.value { return .success(v) }
        if let first = ctx.diagnostics.errors.first { return .failure(first) }
        return .failure(.error(trace.error ?? "the rule failed", at: location))
    }
}
